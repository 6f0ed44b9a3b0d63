// adapter/api.cpp — routes and wire format of the metrics adapter.
#include "adapter/api.hpp"

#include "adapter/auth.hpp"
#include "core/names.hpp"
#include "core/quantity.hpp"
#include "core/time.hpp"
#include "metrics/http_backend.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>

namespace hpaplus::adapter {

using namespace metrics; // the metric sources the server answers from
namespace asio = boost::asio;

namespace {

constexpr const char* external_gv = "external.metrics.k8s.io/v1beta1";
constexpr const char* custom_gv = "custom.metrics.k8s.io/v1beta2";

using writer = rapidjson::Writer<rapidjson::StringBuffer>;

net::http_response json_response(int status, rapidjson::StringBuffer& body) {
    net::http_response r;
    r.status = status;
    r.body.assign(body.GetString(), body.GetSize());
    return r;
}

std::vector<std::string_view> split_path(std::string_view path) {
    std::vector<std::string_view> parts;
    while (!path.empty()) {
        const auto slash = path.find('/');
        if (slash != 0) parts.push_back(path.substr(0, slash));
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash + 1);
    }
    return parts;
}

void group(writer& w, const char* name, const char* version) {
    const std::string gv = std::string(name) + "/" + version;
    w.StartObject();
    w.Key("name"), w.String(name);
    w.Key("versions"), w.StartArray();
    w.StartObject(), w.Key("groupVersion"), w.String(gv), w.Key("version"), w.String(version),
        w.EndObject();
    w.EndArray();
    w.Key("preferredVersion"), w.StartObject(), w.Key("groupVersion"), w.String(gv);
    w.Key("version"), w.String(version), w.EndObject();
    w.EndObject();
}

std::string quantity_of(double value) {
    const double milli = std::clamp(value * 1000, -9.2e18, 9.2e18);
    return core::quantity::from_milli(std::llround(milli)).to_string();
}

// "services" → "Service", "ingresses.networking.k8s.io" → "Ingresse" is not right, so the kind
// of an object is only a display name here; the HPA controller does not read it.
std::string kind_of(std::string_view resource) {
    if (resource == "pods") return "Pod";
    std::string kind(resource.substr(0, resource.find('.')));
    if (kind.size() > 1 && kind.back() == 's') kind.pop_back();
    if (!kind.empty()) kind.front() = static_cast<char>(std::toupper(kind.front()));
    return kind;
}

} // namespace

struct adapter_api::impl {
    http_backends backends;
    std::vector<adapter_metric> external;
    std::vector<adapter_metric> custom;

    net::http_response resources(bool is_external) const {
        rapidjson::StringBuffer b;
        writer w(b);
        w.StartObject();
        w.Key("kind"), w.String("APIResourceList");
        w.Key("apiVersion"), w.String("v1");
        w.Key("groupVersion"), w.String(is_external ? external_gv : custom_gv);
        w.Key("resources"), w.StartArray();
        for (const auto& m : is_external ? external : custom) {
            w.StartObject();
            w.Key("name"), w.String(is_external ? m.name : m.resource + "/" + m.name);
            w.Key("singularName"), w.String("");
            w.Key("namespaced"), w.Bool(true);
            w.Key("kind"), w.String(is_external ? "ExternalMetricValueList" : "MetricValueList");
            w.Key("verbs"), w.StartArray(), w.String("get"), w.EndArray();
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
        return json_response(200, b);
    }

    // Asks the metric's backend; `object` is "" for external metrics, "*" for every pod.
    asio::awaitable<net::http_response> metric(const adapter_metric& m, std::string ns,
                                               std::string object, std::string selector_text) {
        auto selector = core::parse_label_selector(selector_text);
        if (!selector) co_return status_response(400, "BadRequest", selector.error().text);
        auto matchers = promql_matchers(*selector);
        if (!matchers) co_return status_response(400, "BadRequest", matchers.error().text);
        http_backend* b = find_backend(backends, m.backend); // the file names only known ones
        template_values values{{"namespace", ns},
                               {"name", object},
                               {"metric", m.name},
                               {"selector", *matchers},
                               {"labelSelector", core::to_string(*selector)},
                               {"window", b->config().window}};
        auto query = expand_query(m.query, values, b->config().query_language);
        if (!query) co_return status_response(500, "InternalError", query.error().text);
        const std::string who = "backend \"" + m.backend + "\"";
        const backend_answer answer = co_await b->fetch(std::move(*query), std::move(values));
        if (answer.kind == answer_kind::unavailable)
            co_return status_response(503, "ServiceUnavailable",
                                      who + " is unavailable: " + answer.error);
        if (answer.kind == answer_kind::bad_answer)
            co_return status_response(500, "InternalError",
                                      who + " answered badly: " + answer.error);
        co_return list(m, ns, object, answer);
    }

    net::http_response list(const adapter_metric& m, const std::string& ns,
                            const std::string& object, const backend_answer& answer) const {
        const bool is_external = m.resource.empty();
        const auto now = std::chrono::time_point_cast<std::chrono::nanoseconds>(
            std::chrono::system_clock::now());
        rapidjson::StringBuffer b;
        writer w(b);
        w.StartObject();
        w.Key("kind"), w.String(is_external ? "ExternalMetricValueList" : "MetricValueList");
        w.Key("apiVersion"), w.String(is_external ? external_gv : custom_gv);
        w.Key("metadata"), w.StartObject(), w.EndObject();
        w.Key("items"), w.StartArray();
        for (const auto& v : answer.values) {
            const bool all_pods = m.resource == "pods" && object == "*";
            if (!is_external && all_pods && v.pod.empty()) continue; // not a per-pod value
            if (!is_external && m.resource == "pods" && !all_pods && v.pod != object) continue;
            w.StartObject();
            if (is_external) {
                w.Key("metricName"), w.String(m.name);
                w.Key("metricLabels"), w.StartObject();
                if (!v.pod.empty()) w.Key("pod"), w.String(v.pod);
                w.EndObject();
            } else {
                w.Key("describedObject"), w.StartObject();
                w.Key("kind"), w.String(kind_of(m.resource));
                w.Key("namespace"), w.String(ns);
                w.Key("name"), w.String(all_pods ? v.pod : object);
                w.Key("apiVersion"), w.String(m.resource == "pods" ? "/v1" : "");
                w.EndObject();
                w.Key("metric"), w.StartObject(), w.Key("name"), w.String(m.name), w.EndObject();
            }
            w.Key("timestamp"), w.String(core::format_rfc3339(v.timestamp.value_or(now)));
            w.Key("value"), w.String(quantity_of(v.value));
            w.EndObject();
            if (!is_external && !all_pods) break; // one object, one value
        }
        w.EndArray();
        w.EndObject();
        return json_response(200, b);
    }
};

adapter_api::adapter_api(asio::any_io_executor executor, const backends_file& file)
    : impl_(std::make_unique<impl>()) {
    impl_->backends = make_http_backends(executor, file);
    impl_->external = file.adapter_external;
    impl_->custom = file.adapter_custom;
}

adapter_api::~adapter_api() = default;

asio::awaitable<net::http_response> adapter_api::handle(const net::http_request& request) {
    const auto parts = split_path(request.path);
    if (request.method != "GET")
        co_return status_response(405, "MethodNotAllowed",
                                  "the metrics APIs are read-only (method " + request.method + ")");
    if (parts.size() == 1 &&
        (parts[0] == "healthz" || parts[0] == "readyz" || parts[0] == "livez")) {
        net::http_response ok;
        ok.content_type = "text/plain";
        ok.body = "ok";
        co_return ok;
    }
    if (parts.empty() || parts[0] != "apis")
        co_return status_response(404, "NotFound", "the server could not find " + request.path);
    if (parts.size() == 1) {
        rapidjson::StringBuffer b;
        writer w(b);
        w.StartObject();
        w.Key("kind"), w.String("APIGroupList");
        w.Key("apiVersion"), w.String("v1");
        w.Key("groups"), w.StartArray();
        group(w, "external.metrics.k8s.io", "v1beta1");
        group(w, "custom.metrics.k8s.io", "v1beta2");
        w.EndArray();
        w.EndObject();
        co_return json_response(200, b);
    }
    const bool is_external = parts[1] == "external.metrics.k8s.io";
    const bool is_custom = parts[1] == "custom.metrics.k8s.io";
    if (!is_external && !is_custom)
        co_return status_response(404, "NotFound", "the server could not find " + request.path);
    if (parts.size() == 2) {
        rapidjson::StringBuffer b;
        writer w(b);
        group(w, is_external ? "external.metrics.k8s.io" : "custom.metrics.k8s.io",
              is_external ? "v1beta1" : "v1beta2");
        co_return json_response(200, b);
    }
    if (parts[2] != (is_external ? "v1beta1" : "v1beta2"))
        co_return status_response(404, "NotFound", "the server could not find " + request.path);
    if (parts.size() == 3) co_return impl_->resources(is_external);

    const std::string selector(request.query_param("labelSelector").value_or(""));
    const std::string ns(parts.size() > 4 ? parts[4] : "");
    // Names from the URL go into backend queries: only what Kubernetes allows gets that far.
    if (parts.size() > 4 && !core::is_dns1123_label(ns))
        co_return status_response(
            400, "BadRequest",
            "the namespace must be a DNS-1123 label (lowercase letters, digits "
            "and '-', at most 63)");
    if (is_custom && parts.size() > 6 && parts[6] != "*" && !core::is_dns1123_subdomain(parts[6]))
        co_return status_response(
            400, "BadRequest",
            "the object name must be a DNS-1123 subdomain (lowercase letters, "
            "digits, '-' and '.', at most 253) or *");
    if (is_external && parts.size() == 6 && parts[3] == "namespaces") {
        const std::string name(parts[5]);
        const std::string no_object;
        for (const auto& m : impl_->external)
            if (m.name == name) co_return co_await impl_->metric(m, ns, no_object, selector);
        co_return status_response(404, "NotFound",
                                  "the server could not find the metric " + name +
                                      " (not in the adapter's configuration)");
    }
    if (is_custom && parts.size() == 8 && parts[3] == "namespaces") {
        const std::string resource(parts[5]);
        const std::string object(parts[6]);
        const std::string name(parts[7]);
        for (const auto& m : impl_->custom)
            if (m.name == name && m.resource == resource)
                co_return co_await impl_->metric(m, ns, object, selector);
        co_return status_response(404, "NotFound",
                                  "the server could not find the metric " + name + " for " +
                                      resource + " (not in the adapter's configuration)");
    }
    co_return status_response(404, "NotFound", "the server could not find " + request.path);
}

} // namespace hpaplus::adapter
