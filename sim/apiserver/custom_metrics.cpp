// sim/apiserver/custom_metrics.cpp — the custom and external metrics APIs of the simulated cluster.
#include "sim/apiserver/custom_metrics.hpp"

#include "core/quantity.hpp"
#include "core/time.hpp"
#include "sim/api_error.hpp"
#include "sim/pod_state.hpp"

#include <chrono>
#include <set>

namespace hpaplus::sim {
namespace {

std::string now_text() {
    return core::format_rfc3339(
        std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now()));
}

metrics_answer not_found_metric(const std::string& what) {
    return {404, status_json(api_error{404, "NotFound", what, {}, {}, {}, {}, std::nullopt})};
}

// One MetricValue (v1beta2).
std::string metric_value(const std::string& kind, const std::string& ns, const std::string& name,
                         const std::string& api_version, const std::string& metric,
                         const std::string& value) {
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    json described(rapidjson::kObjectType);
    described.AddMember("kind", json(kind.c_str(), a), a);
    described.AddMember("namespace", json(ns.c_str(), a), a);
    described.AddMember("name", json(name.c_str(), a), a);
    described.AddMember("apiVersion", json(api_version.c_str(), a), a);
    doc.AddMember("describedObject", described, a);
    json m(rapidjson::kObjectType);
    m.AddMember("name", json(metric.c_str(), a), a);
    m.AddMember("selector", json(rapidjson::kNullType), a);
    doc.AddMember("metric", m, a);
    doc.AddMember("timestamp", json(now_text().c_str(), a), a);
    doc.AddMember("windowSeconds", 60, a);
    doc.AddMember("value", json(value.c_str(), a), a);
    return to_string(doc);
}

std::string value_list(const std::vector<std::string>& items) {
    std::string body =
        R"({"kind":"MetricValueList","apiVersion":"custom.metrics.k8s.io/v1beta2","metadata":{},"items":[)";
    for (std::size_t i = 0; i < items.size(); ++i)
        body += (i ? "," : "") + items[i];
    return body + "]}";
}

// The value of a Pods metric for one pod: its own annotation, or its share of its workload's
// total.
std::optional<std::string> pod_metric(object_store& store, const stored_object& pod,
                                      const std::string& metric) {
    if (std::string own = annotation(pod.doc, "sim.hpaplus.io/metric." + metric); !own.empty())
        return own;
    const object_ptr workload = workload_of(store, pod);
    collection* pods = store.find("", "v1", "pods");
    if (!workload || !pods || !pod_ready(pod)) return std::nullopt;
    const auto total =
        core::quantity::parse(annotation(workload->doc, "sim.hpaplus.io/pods-metric." + metric));
    if (!total) return std::nullopt;
    std::int64_t ready = 0;
    for (const auto& [pk, p] : namespace_range(*pods, pod.namespace_))
        if (pod_ready(*p) && workload_of(store, *p) == workload) ++ready;
    return core::quantity::from_milli(total->milli_value() / std::max<std::int64_t>(1, ready))
        .to_string();
}

} // namespace

std::vector<std::pair<std::string, double>> pod_custom_metrics(object_store& store,
                                                               const stored_object& pod) {
    std::set<std::string> names;
    auto collect = [&](const json& obj, const std::string& prefix) {
        const json* annotations = find_path(obj, "metadata.annotations");
        if (!annotations || !annotations->IsObject()) return;
        for (const auto& m : annotations->GetObject()) {
            const std::string key = m.name.GetString();
            if (key.rfind(prefix, 0) == 0) names.insert(key.substr(prefix.size()));
        }
    };
    collect(pod.doc, "sim.hpaplus.io/metric.");
    if (const object_ptr workload = workload_of(store, pod))
        collect(workload->doc, "sim.hpaplus.io/pods-metric.");
    std::vector<std::pair<std::string, double>> out;
    for (const auto& name : names) {
        const auto value = pod_metric(store, pod, name);
        const auto q = value ? core::quantity::parse(*value)
                             : boost::system::result<core::quantity>(core::quantity_errc::empty);
        if (q) out.emplace_back(name, q->as_double());
    }
    return out;
}

metrics_answer custom_metrics(object_store& store, const std::vector<std::string>& parts,
                              const core::label_selector& selector) {
    // namespaces/NS/RESOURCE/NAME/METRIC  (NAME may be * for pods)
    if (parts.size() != 5 || parts[0] != "namespaces")
        return not_found_metric("the server could not find the requested resource");
    const std::string& ns = parts[1];
    const std::string& resource = parts[2];
    const std::string& name = parts[3];
    const std::string& metric = parts[4];
    if (resource == "pods") {
        collection* pods = store.find("", "v1", "pods");
        std::vector<std::string> items;
        for (const auto& [k, p] : pods->objects) {
            if (p->namespace_ != ns || (name != "*" && p->name != name) ||
                !selector.matches(p->labels))
                continue;
            if (auto v = pod_metric(store, *p, metric))
                items.push_back(metric_value("Pod", ns, p->name, "/v1", metric, *v));
        }
        if (items.empty() && name != "*")
            return not_found_metric("the server could not find the metric " + metric +
                                    " for pods " + name);
        return {200, value_list(items)};
    }
    for (collection* c : store.collections()) {
        const std::string qualified = c->type.qualified_plural();
        if (c->type.plural != resource && qualified != resource) continue;
        const object_ptr o = store.get(*c, ns, name);
        if (!o) break;
        const std::string v = annotation(o->doc, "sim.hpaplus.io/metric." + metric);
        if (v.empty()) break;
        return {200, value_list({metric_value(c->type.kind, ns, name, c->type.group_version(),
                                              metric, v)})};
    }
    return not_found_metric("the server could not find the metric " + metric + " for " + resource +
                            " " + name);
}

metrics_answer external_metrics(object_store& store, const std::vector<std::string>& parts,
                                const core::label_selector& selector) {
    // namespaces/NS/METRIC
    if (parts.size() != 3 || parts[0] != "namespaces")
        return not_found_metric("the server could not find the requested resource");
    const std::string& ns = parts[1];
    const std::string& metric = parts[2];
    collection* configmaps = store.find("", "v1", "configmaps");
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("kind", "ExternalMetricValueList", a);
    doc.AddMember("apiVersion", "external.metrics.k8s.io/v1beta1", a);
    doc.AddMember("metadata", json(rapidjson::kObjectType), a);
    json items(rapidjson::kArrayType);
    bool known = false;
    for (const auto& [k, cm] : configmaps->objects) {
        const auto marker = cm->labels.find("sim.hpaplus.io/external-metric");
        if (cm->namespace_ != ns || marker == cm->labels.end() || marker->second != metric)
            continue;
        known = true;
        core::label_map series = cm->labels;
        series.erase("sim.hpaplus.io/external-metric");
        if (!selector.matches(series)) continue;
        const std::string value = string_at(cm->doc, "data.value");
        if (!core::quantity::parse(value)) continue; // a garbage value is no sample
        json item(rapidjson::kObjectType);
        item.AddMember("metricName", json(metric.c_str(), a), a);
        json labels(rapidjson::kObjectType);
        for (const auto& [lk, lv] : series)
            labels.AddMember(json(lk.data(), static_cast<rapidjson::SizeType>(lk.size()), a),
                             json(lv.data(), static_cast<rapidjson::SizeType>(lv.size()), a), a);
        item.AddMember("metricLabels", labels, a);
        // data.timestamp: when the value was sampled (a stale source), else now.
        const std::string sampled = string_at(cm->doc, "data.timestamp");
        item.AddMember("timestamp",
                       json((core::parse_rfc3339(sampled) ? sampled : now_text()).c_str(), a), a);
        item.AddMember("window", 60,
                       a); // external metrics say `window`, custom metrics `windowSeconds`
        item.AddMember("value", json(value.c_str(), a), a);
        items.PushBack(item, a);
    }
    if (!known) return not_found_metric("the server could not find the metric " + metric);
    doc.AddMember("items", items, a);
    return {200, to_string(doc)};
}

} // namespace hpaplus::sim
