// sim/apiserver/metrics_apis.cpp — metrics.k8s.io computed from the workload model as
// metrics-server would, and routing of the custom and external metrics APIs.
#include "sim/apiserver/server.hpp"

#include "core/text.hpp"
#include "kube/encode.hpp"
#include "sim/apiserver/custom_metrics.hpp"

#include <rapidjson/writer.h>

namespace hpaplus::sim {

namespace {

// A pod's PodMetrics as metrics-server writes it, with what its version fixes (name, namespace,
// labels, container names) rendered once: pieces cut before the creationTimestamp's value, the
// timestamp's and each container's CPU value. A list of a hundred pods then costs a few appends
// per pod, not a walk of its document — the simulated server shares the cores with the
// controller it measures.
derived_text render_pod_metrics(const stored_object& pod) {
    derived_text out;
    kube::string_output stream{out.text};
    rapidjson::Writer<kube::string_output> w(stream);
    const auto string = [&](std::string_view text) { // each one a JSON text of its own
        w.Reset(stream);
        w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
    };
    const auto cut = [&](std::string_view rest) {
        out.text += rest;
        out.cuts.push_back(static_cast<std::uint32_t>(out.text.size()));
    };
    out.text += R"({"kind":"PodMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"name":)";
    string(pod.name);
    out.text += R"(,"namespace":)";
    string(pod.namespace_);
    cut(R"(,"creationTimestamp":")");
    out.text += '"';
    if (const json* labels = find_path(pod.doc, "metadata.labels")) {
        out.text += R"(,"labels":)";
        w.Reset(stream);
        labels->Accept(w);
    }
    cut(R"(},"timestamp":")");
    out.text += R"(","window":"15s","containers":[)";
    const json* spec = find_path(pod.doc, "spec.containers");
    const auto count = spec && spec->IsArray() && spec->Size() > 0 ? spec->Size() : 1u;
    for (rapidjson::SizeType i = 0; i < count; ++i) {
        if (i > 0) out.text += R"(Ki"}},)";
        out.text += R"({"name":)";
        string(spec && spec->IsArray() && spec->Size() > i ? text_at((*spec)[i], "name") : "app");
        cut(R"(,"usage":{"cpu":")");
    }
    out.text += R"(Ki"}}]})";
    return out;
}

} // namespace

api_server::impl::pod_metrics_times::pod_metrics_times(core::time_point now)
    : created(core::rfc3339(now)), sampled(core::rfc3339(now - std::chrono::seconds(1))) {}

// metrics.k8s.io/v1beta1: PodMetrics computed from the workload model, like metrics-server.
void api_server::impl::append_pod_metrics(std::string& out, const stored_object& pod,
                                          const std::pair<std::int64_t, std::int64_t>& use,
                                          const pod_metrics_times& times) {
    if (pod.pod_metrics.text.empty()) pod.pod_metrics = render_pod_metrics(pod);
    const std::string_view text = pod.pod_metrics.text;
    const auto& cuts = pod.pod_metrics.cuts;
    out += text.substr(0, cuts[0]);
    out += times.created.view();
    out += text.substr(cuts[0], cuts[1] - cuts[0]);
    out += times.sampled.view();
    const std::size_t count = cuts.size() - 2;
    for (std::size_t i = 0; i < count; ++i) {
        // CPU in nanocores and memory in Ki, as metrics-server reports them.
        const auto n = static_cast<std::int64_t>(count);
        const std::int64_t cpu = use.first / n + (i == 0 ? use.first % n : 0);
        out += text.substr(cuts[1 + i], cuts[2 + i] - cuts[1 + i]);
        core::append_decimal(out, cpu * 1000000);
        out += R"(n","memory":")";
        core::append_decimal(out, use.second / n / 1024);
    }
    out += text.substr(cuts.back());
}

http_response api_server::impl::resource_metrics(const http_request& r, const target& t) {
    if (r.method != "GET")
        return error_response(api_error{405,
                                        "MethodNotAllowed",
                                        "only get and list are supported",
                                        {},
                                        "metrics.k8s.io",
                                        t.plural,
                                        {},
                                        std::nullopt});
    collection* pods = store.find("", "v1", "pods");
    if (t.plural == "nodes") {
        std::int64_t cpu = 0, mem = 0;
        for (const auto& [k, p] : pods->objects)
            if (auto u = usage(*p)) cpu += u->first, mem += u->second;
        const std::string node =
            R"({"kind":"NodeMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"name":"sim-node-1"},"timestamp":")" +
            core::format_rfc3339(now_time()) + R"(","window":"15s","usage":{"cpu":")" +
            std::to_string(cpu * 1000000) + R"(n","memory":")" + std::to_string(mem / 1024) +
            R"(Ki"}})";
        if (!t.name.empty())
            return t.name == "sim-node-1"
                       ? ok(node)
                       : error_response(
                             api_error{404,
                                       "NotFound",
                                       "nodemetrics.metrics.k8s.io \"" + t.name + "\" not found",
                                       t.name,
                                       "metrics.k8s.io",
                                       "nodes",
                                       {},
                                       std::nullopt});
        return ok(
            R"({"kind":"NodeMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[)" +
            node + "]}");
    }
    if (t.plural != "pods") return error_response(not_found_path(r.path));
    api_error error;
    auto f = make_filter(r, t, error);
    if (!f) return error_response(error);
    if (!t.name.empty()) {
        const object_ptr pod = store.get(*pods, t.ns, t.name);
        const auto u = pod ? usage(*pod) : std::nullopt;
        if (!u)
            return error_response(
                api_error{404,
                          "NotFound",
                          "podmetrics.metrics.k8s.io \"" + t.ns + "/" + t.name + "\" not found",
                          t.name,
                          "metrics.k8s.io",
                          "pods",
                          {},
                          std::nullopt});
        std::string body;
        append_pod_metrics(body, *pod, *u, pod_metrics_times(now_time()));
        return ok(std::move(body));
    }
    std::string body =
        R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[)";
    bool first = true;
    const pod_metrics_times times(now_time());
    for (const auto& [k, p] : namespace_range(*pods, f->ns)) {
        if (!f->matches(*p)) continue;
        const auto u = usage(*p);
        if (!u) continue;
        if (!first) body += ',';
        append_pod_metrics(body, *p, *u, times);
        first = false;
    }
    body += "]}";
    return ok(std::move(body));
}

http_response api_server::impl::metrics_apis(const http_request& r,
                                             const std::vector<std::string>& parts) {
    if (r.method != "GET")
        return error_response(api_error{
            405, "MethodNotAllowed", "only get is supported", {}, {}, {}, {}, std::nullopt});
    core::label_selector selector;
    if (auto ls = r.query_param("labelSelector")) {
        auto parsed = core::parse_label_selector(*ls);
        if (!parsed)
            return error_response(
                bad_request("unable to parse requirement: " + parsed.error().text));
        selector = std::move(*parsed);
    }
    const std::vector<std::string> rest(parts.begin() + 3, parts.end());
    const auto answer = parts[1] == "custom.metrics.k8s.io"
                            ? custom_metrics(store, rest, selector)
                            : external_metrics(store, rest, selector);
    return ok(answer.body, answer.status);
}

void api_server::serve_resource_metrics(usage_function usage) {
    impl_->usage = std::move(usage);
    // Read-only kinds computed on request; the custom and external ones are listed for discovery
    // (their requests are answered by metrics_apis above).
    const auto read_only = [](std::string group, std::string version, std::string plural,
                              std::string kind, bool namespaced) {
        resource_type t; // (members set one by one: designated initialisers still warn)
        t.group = std::move(group);
        t.version = std::move(version);
        t.plural = std::move(plural);
        t.kind = kind;
        t.list_kind = kind == "PodMetrics" || kind == "NodeMetrics" ? kind + "List" : kind;
        t.namespaced = namespaced;
        t.read_only = true;
        return t;
    };
    impl_->store.add_type(read_only("metrics.k8s.io", "v1beta1", "pods", "PodMetrics", true));
    impl_->store.add_type(read_only("metrics.k8s.io", "v1beta1", "nodes", "NodeMetrics", false));
    impl_->store.add_type(
        read_only("custom.metrics.k8s.io", "v1beta2", "pods/*", "MetricValueList", true));
    impl_->store.add_type(
        read_only("external.metrics.k8s.io", "v1beta1", "*", "ExternalMetricValueList", true));
}

} // namespace hpaplus::sim
