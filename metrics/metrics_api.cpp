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
        policy::note_sample_time(r, items.front().timestamp);
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
    for (std::size_t i = 0, n = list.error.empty() ? d.array(list.items) : 0; i < n; ++i) {
        const auto item = kinds::decode_external_metric_item(d, list.items.at(i));
        r.external_values.push_back(item.milli);
        policy::note_sample_time(r, item.timestamp);
    }
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

std::shared_ptr<pod_metrics_pool::list> pod_metrics_pool::take() {
    list* l = nullptr;
    {
        std::lock_guard lock(mutex_);
        if (!spares_.empty()) {
            l = spares_.back().release();
            spares_.pop_back();
            spare_pods_ -= l->capacity();
        }
    }
    if (!l) l = new list;
    return std::shared_ptr<list>(l, [pool = weak_from_this()](list* done) {
        if (const auto p = pool.lock())
            p->give_back(done);
        else
            delete done;
    });
}

void pod_metrics_pool::give_back(list* l) {
    std::unique_ptr<list> owned(l);
    std::lock_guard lock(mutex_);
    if (spares_.size() >= max_lists || spare_pods_ + l->capacity() > max_pods) return;
    spare_pods_ += l->capacity();
    spares_.push_back(std::move(owned));
}

std::size_t pod_metrics_pool::spare_lists() const {
    std::lock_guard lock(mutex_);
    return spares_.size();
}

boost::asio::awaitable<pod_metrics_answer> list_pod_metrics(kube::api_client& client,
                                                            std::string ns,
                                                            std::string pod_selector,
                                                            pod_metrics_pool& pool) {
    pod_metrics_answer out;
    const std::string no_continue; // named: GCC 12 mishandles temporaries in co_await calls
    auto response = co_await kube::list(client, pod_metrics_path, ns, pod_selector, 0, no_continue);
    if (!response) {
        out.error = failure("resource", response);
        co_return out;
    }
    auto items = pool.take();
    if (!kinds::decode_pod_metrics_list(response.body, *items, pool.scratch())) {
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
