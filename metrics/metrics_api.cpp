// metrics/metrics_api.cpp — the Kubernetes metrics APIs as metric readings.
#include "metrics/metrics_api.hpp"

#include "kinds/decode.hpp"
#include "kinds/pod_metrics.hpp"
#include "kube/resources.hpp"
#include "net/http_message.hpp"
#include "net/json_parse.hpp"
#include "policy/metric_samples.hpp"

#include <rapidjson/document.h>

namespace hpaplus::metrics {
namespace {

const kube::resource_path pod_metrics_path{"metrics.k8s.io", "v1beta1", "pods", true};

std::string failure(const char* api, const kube::api_response& r) {
    return std::string("unable to fetch metrics from ") + api + " metrics API: " + r.message();
}

// The `items` of a list answer (or the answer itself when it is one object).
struct list_answer {
    rapidjson::Document doc;
    kube::json_node items{nullptr, ""};
    std::string error;
};

void parse_items(const std::string& body, list_answer& out) {
    if (std::string e = net::parse_json(out.doc, body); !e.empty() || !out.doc.IsObject()) {
        out.error = e.empty() ? "the answer is not a JSON object" : e;
        return;
    }
    out.items = kube::json_node{&out.doc, ""}["items"];
}

std::string query(const std::string& selector) {
    return selector.empty() ? "" : "?labelSelector=" + net::percent_encode(selector);
}

void read_custom(const std::string& body, const policy::metric_spec& spec,
                 policy::metric_reading& r) {
    list_answer list;
    parse_items(body, list);
    kube::json_decoder d;
    std::vector<kinds::custom_metric_item> items;
    if (list.error.empty()) {
        if (list.items.present()) {
            for (std::size_t i = 0, n = d.array(list.items); i < n; ++i)
                items.push_back(kinds::decode_custom_metric_item(d, list.items.at(i)));
        } else {
            items.push_back(kinds::decode_custom_metric_item(d, {&list.doc, ""}));
        }
    }
    if (!list.error.empty() || !d.ok()) {
        r.error = "unable to fetch metrics from custom metrics API: " +
                  (list.error.empty() ? d.error().to_string() : list.error);
        return;
    }
    if (spec.type == policy::metric_source_type::object) {
        if (items.size() != 1) {
            r.error = "unable to fetch metrics from custom metrics API: the custom metrics API "
                      "server returned " +
                      std::to_string(items.size()) + " results when we asked for exactly one";
            return;
        }
        r.object_value = items.front().milli;
        return;
    }
    const auto held =
        std::make_shared<const std::vector<kinds::custom_metric_item>>(std::move(items));
    policy::sample_set samples;
    for (const auto& item : *held)
        samples.push_back({item.described_object.name, item.milli, item.timestamp, item.window});
    policy::set_samples(r, policy::samples_from_custom_metrics(std::move(samples)));
    r.names = held;
}

void read_external(const std::string& body, policy::metric_reading& r) {
    list_answer list;
    parse_items(body, list);
    kube::json_decoder d;
    for (std::size_t i = 0, n = list.error.empty() ? d.array(list.items) : 0; i < n; ++i)
        r.external_values.push_back(kinds::decode_external_metric_item(d, list.items.at(i)).milli);
    if (!list.error.empty() || !d.ok()) {
        r.error = "unable to fetch metrics from external metrics API: " +
                  (list.error.empty() ? d.error().to_string() : list.error);
        r.external_values.clear();
    } else if (r.external_values.empty()) {
        r.error = "no metrics returned from external metrics API";
    }
}

} // namespace

std::string selector_text(const std::optional<core::label_selector_spec>& spec) {
    if (!spec) return {};
    auto selector = core::to_label_selector(*spec);
    return selector ? core::to_string(*selector) : std::string();
}

// PodMetrics lists whose last reader is done, kept by the thread for the next list to be decoded
// into: kinds::decode_pod_metrics_list reuses their pods' strings, so a steady read allocates
// nothing for the pods' names. Reads overlap (a shared read is held while its readers decide), so
// a few dozen are kept; bounded by the pods they hold (~300 bytes each), not only by their number.
using pod_metrics_vector = std::vector<core::pod_metrics>;
constexpr std::size_t spare_lists_cap = 64;
constexpr std::size_t spare_pods_cap = 4096;
thread_local bool spare_lists_gone = false; // trivially destroyed: readable until the thread ends
struct spare_lists {
    std::vector<std::unique_ptr<pod_metrics_vector>> lists;
    std::size_t pods = 0; ///< the capacity of `lists`, in pods
    ~spare_lists() { spare_lists_gone = true; }
};
thread_local spare_lists spares;

void give_back_list(pod_metrics_vector* list) {
    if (spare_lists_gone || spares.lists.size() >= spare_lists_cap ||
        spares.pods + list->capacity() > spare_pods_cap) {
        delete list;
        return;
    }
    spares.pods += list->capacity();
    spares.lists.emplace_back(list);
}

std::shared_ptr<pod_metrics_vector> recycled_list() {
    pod_metrics_vector* list = nullptr;
    if (!spare_lists_gone && !spares.lists.empty()) {
        list = spares.lists.back().release();
        spares.lists.pop_back();
        spares.pods -= list->capacity();
    } else {
        list = new pod_metrics_vector;
    }
    return std::shared_ptr<pod_metrics_vector>(list, give_back_list);
}

boost::asio::awaitable<pod_metrics_answer>
list_pod_metrics(kube::api_client& client, std::string ns, std::string pod_selector) {
    pod_metrics_answer out;
    const std::string no_continue; // named: GCC 12 mishandles temporaries in co_await calls
    auto response = co_await kube::list(client, pod_metrics_path, ns, pod_selector, 0, no_continue);
    if (!response) {
        out.error = failure("resource", response);
        co_return out;
    }
    auto items = recycled_list();
    if (!kinds::decode_pod_metrics_list(response.body, *items)) {
        // Not the usual shape: the DOM decoder says what is wrong, or reads it after all.
        items->clear();
        list_answer list;
        parse_items(response.body, list);
        kube::json_decoder d;
        for (std::size_t i = 0, n = list.error.empty() ? d.array(list.items) : 0; i < n; ++i)
            items->push_back(kinds::decode_pod_metrics(d, list.items.at(i)));
        if (!list.error.empty() || !d.ok())
            out.error = "unable to fetch metrics from resource metrics API: " +
                        (list.error.empty() ? d.error().to_string() : list.error);
    }
    out.items.reserve(items->size());
    for (const auto& m : *items)
        out.items.push_back(&m);
    out.list = std::move(items);
    co_return out;
}

void set_resource_reading(const pod_metrics_answer& answer, const policy::metric_spec& spec,
                          policy::metric_reading& r) {
    if (!answer.error.empty()) {
        r.error = answer.error;
        return;
    }
    policy::set_samples(
        r, policy::samples_from_pod_metrics(answer.items, spec.resource_name, spec.container));
    r.names = answer.list;
}

boost::asio::awaitable<policy::metric_reading> read_custom_or_external(kube::api_client& client,
                                                                       std::string ns,
                                                                       std::string pod_selector,
                                                                       policy::metric_spec spec) {
    policy::metric_reading r;
    if (spec.type == policy::metric_source_type::external) {
        const std::string target = "/apis/external.metrics.k8s.io/v1beta1/namespaces/" + ns + "/" +
                                   spec.metric.name + query(selector_text(spec.metric.selector));
        kube::api_request request{"GET", target, "", "application/json"};
        auto response = co_await client.send(std::move(request));
        if (!response)
            r.error = failure("external", response);
        else
            read_external(response.body, r);
        co_return r;
    }
    std::string target = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + ns + "/";
    std::string selector;
    if (spec.type == policy::metric_source_type::pods) {
        target += "pods/*/" + spec.metric.name;
        selector = std::move(pod_selector);
    } else {
        const auto path = kube::target_resource(spec.described_object);
        target += path.plural + (path.group.empty() ? "" : "." + path.group) + "/" +
                  spec.described_object.name + "/" + spec.metric.name;
    }
    std::string q = query(selector);
    const std::string metric_selector = selector_text(spec.metric.selector);
    if (!metric_selector.empty())
        q += (q.empty() ? "?" : "&") + std::string("metricLabelSelector=") +
             net::percent_encode(metric_selector);
    kube::api_request request{"GET", target + q, "", "application/json"};
    auto response = co_await client.send(std::move(request));
    if (!response)
        r.error = failure("custom", response);
    else
        read_custom(response.body, spec, r);
    co_return r;
}

} // namespace hpaplus::metrics
