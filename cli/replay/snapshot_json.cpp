// cli/replay/snapshot_json.cpp — reconcile inputs written back as the Kubernetes objects and
// metric lists `hpaplus evaluate` reads.
#include "cli/replay/snapshot_json.hpp"

#include "cli/evaluate/decision_json.hpp"
#include "core/duration.hpp"
#include "net/json_parse.hpp"
#include "policy/replay.hpp"

#include <algorithm>

namespace hpaplus::cli {
namespace {

using kube::json_allocator;
using kube::json_string;
using rapidjson::Value;

Value time_value(core::time_point t, json_allocator& a) {
    return json_string(core::format_rfc3339_nano(t), a);
}

Value quantity_value(std::int64_t milli, json_allocator& a) {
    return json_string(core::quantity::from_milli(milli).to_string(), a);
}

Value labels_value(const core::label_map& labels, json_allocator& a) {
    Value v(rapidjson::kObjectType);
    for (const auto& [key, value] : labels)
        v.AddMember(json_string(key, a), json_string(value, a), a);
    return v;
}

Value resources_value(const policy::resource_list& list, json_allocator& a) {
    Value v(rapidjson::kObjectType);
    for (const auto& [name, q] : list)
        v.AddMember(json_string(name, a), json_string(q.to_string(), a), a);
    return v;
}

Value metadata(const std::string& name, const std::string& ns, const core::label_map& labels,
               json_allocator& a) {
    Value m(rapidjson::kObjectType);
    m.AddMember("name", json_string(name, a), a);
    m.AddMember("namespace", json_string(ns, a), a);
    m.AddMember("labels", labels_value(labels, a), a);
    return m;
}

Value pod_value(const policy::pod_info& p, json_allocator& a) {
    Value pod(rapidjson::kObjectType);
    pod.AddMember("metadata", metadata(p.name, p.namespace_(), p.labels, a), a);
    Value containers(rapidjson::kArrayType);
    for (const auto& c : p.containers()) {
        Value container(rapidjson::kObjectType);
        container.AddMember("name", json_string(c.name, a), a);
        Value resources(rapidjson::kObjectType);
        resources.AddMember("requests", resources_value(c.requests, a), a);
        resources.AddMember("limits", resources_value(c.limits, a), a);
        container.AddMember("resources", resources, a);
        containers.PushBack(container, a);
    }
    Value spec(rapidjson::kObjectType);
    spec.AddMember("containers", containers, a);
    pod.AddMember("spec", spec, a);
    Value status(rapidjson::kObjectType);
    status.AddMember("phase", "Running", a);
    if (p.start_time) status.AddMember("startTime", time_value(*p.start_time, a), a);
    if (p.ready) {
        Value ready(rapidjson::kObjectType);
        ready.AddMember("type", "Ready", a);
        const bool is_ready = *p.ready == policy::condition_status::true_;
        ready.AddMember("status", rapidjson::StringRef(is_ready ? "True" : "False"), a);
        if (p.ready_transition_time)
            ready.AddMember("lastTransitionTime", time_value(*p.ready_transition_time, a), a);
        Value conditions(rapidjson::kArrayType);
        conditions.PushBack(ready, a);
        status.AddMember("conditions", conditions, a);
    }
    pod.AddMember("status", status, a);
    return pod;
}

std::string window_text(std::chrono::nanoseconds window) {
    return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(window).count()) + "s";
}

// The metric list that gives reading `r` of metric `m` to evaluate.
Value metric_items(const policy::metric_spec& m, const policy::metric_reading& r,
                   const policy::reconcile_input& in, json_allocator& a) {
    Value items(rapidjson::kArrayType);
    auto item = [&](std::int64_t milli) {
        Value v(rapidjson::kObjectType);
        v.AddMember("metricName", json_string(m.metric.name, a), a);
        v.AddMember("timestamp", time_value(in.now, a), a);
        v.AddMember("value", quantity_value(milli, a), a);
        return v;
    };
    if (m.type == policy::metric_source_type::external) {
        for (std::int64_t milli : r.external_values) {
            Value v = item(milli);
            // The item must pass the metric's own selector, as the metrics server picked it.
            core::label_map labels;
            if (const auto& selector = m.metric.selector) {
                // Of equal keys from_views keeps the first: the last expression wins, then the
                // expressions over matchLabels.
                std::vector<core::label_map::value_type> entries;
                const auto& expressions = selector->match_expressions;
                for (auto e = expressions.rbegin(); e != expressions.rend(); ++e)
                    if ((e->op == "In" && !e->values.empty()) || e->op == "Exists")
                        entries.emplace_back(e->key, e->values.empty() ? std::string_view("x")
                                                                       : e->values.front());
                entries.insert(entries.end(), selector->match_labels.begin(),
                               selector->match_labels.end());
                labels = core::label_map::from_views(entries);
            }
            v.AddMember("metricLabels", labels_value(labels, a), a);
            items.PushBack(v, a);
        }
    } else if (m.type == policy::metric_source_type::object) {
        Value v = item(r.object_value);
        Value described(rapidjson::kObjectType);
        described.AddMember("kind", json_string(m.described_object.kind, a), a);
        described.AddMember("name", json_string(m.described_object.name, a), a);
        described.AddMember("namespace", json_string(in.hpa.namespace_, a), a);
        v.AddMember("describedObject", described, a);
        items.PushBack(v, a);
    } else {
        for (const auto& s : r.samples) {
            Value v = item(s.milli);
            Value described(rapidjson::kObjectType);
            described.AddMember("kind", "Pod", a);
            described.AddMember("name", json_string(s.pod, a), a);
            described.AddMember("namespace", json_string(in.hpa.namespace_, a), a);
            v.AddMember("describedObject", described, a);
            v.AddMember("windowSeconds",
                        std::chrono::duration_cast<std::chrono::seconds>(s.window).count(), a);
            v["timestamp"] = time_value(s.timestamp, a);
            items.PushBack(v, a);
        }
    }
    return items;
}

// One PodMetrics per pod, its one container holding every Resource metric's value (replayed
// pods have a single container).
struct pod_usage {
    std::string pod;
    core::time_point timestamp{};
    std::chrono::nanoseconds window{0};
    std::vector<std::pair<std::string, std::int64_t>> usage;
};

void add_resource_samples(const policy::metric_spec& m, const policy::metric_reading& r,
                          std::vector<pod_usage>& pods) {
    for (const auto& s : r.samples) {
        auto it = std::find_if(pods.begin(), pods.end(), [&](auto& p) { return p.pod == s.pod; });
        if (it == pods.end())
            it = pods.insert(pods.end(), {std::string(s.pod), s.timestamp, s.window, {}});
        const bool known = std::any_of(it->usage.begin(), it->usage.end(),
                                       [&](auto& u) { return u.first == m.resource_name; });
        if (!known) it->usage.emplace_back(m.resource_name, s.milli);
    }
}

Value pod_metrics_list(const std::vector<pod_usage>& pods, const policy::reconcile_input& in,
                       json_allocator& a) {
    Value list(rapidjson::kArrayType);
    const std::string container = policy::replay_container(in.hpa.spec);
    for (const pod_usage& p : pods) {
        Value item(rapidjson::kObjectType);
        item.AddMember("metadata", metadata(p.pod, in.hpa.namespace_, {{"app", "replay"}}, a), a);
        item.AddMember("timestamp", time_value(p.timestamp, a), a);
        item.AddMember("window", json_string(window_text(p.window), a), a);
        Value usage(rapidjson::kObjectType);
        for (const auto& [resource, milli] : p.usage)
            usage.AddMember(json_string(resource, a), quantity_value(milli, a), a);
        Value c(rapidjson::kObjectType);
        c.AddMember("name", json_string(container, a), a);
        c.AddMember("usage", usage, a);
        Value containers(rapidjson::kArrayType);
        containers.PushBack(c, a);
        item.AddMember("containers", containers, a);
        list.PushBack(item, a);
    }
    return list;
}

Value config_value(const policy::controller_config& c, json_allocator& a) {
    Value v(rapidjson::kObjectType);
    v.AddMember("tolerance", c.tolerance, a);
    v.AddMember("downscaleStabilizationWindowSeconds",
                static_cast<std::int64_t>(c.downscale_stabilization_window.count()), a);
    v.AddMember("cpuInitializationPeriodSeconds",
                static_cast<std::int64_t>(c.cpu_initialization_period.count()), a);
    v.AddMember("initialReadinessDelaySeconds",
                static_cast<std::int64_t>(c.initial_readiness_delay.count()), a);
    v.AddMember("scaleUpLimitFactor", c.scale_up_limit_factor, a);
    v.AddMember("scaleUpLimitMinimum", c.scale_up_limit_minimum, a);
    Value gates(rapidjson::kObjectType);
    gates.AddMember("HPAScaleToZero", c.scale_to_zero, a);
    v.AddMember("featureGates", gates, a);
    return v;
}

Value status_value(const policy::autoscaler_status& s, json_allocator& a) {
    Value v(rapidjson::kObjectType);
    if (s.last_scale_time) v.AddMember("lastScaleTime", time_value(*s.last_scale_time, a), a);
    v.AddMember("currentReplicas", s.current_replicas, a);
    v.AddMember("desiredReplicas", s.desired_replicas, a);
    v.AddMember("conditions", kube::encode_conditions(s.conditions, a), a);
    return v;
}

} // namespace

std::string encode_snapshot(const policy::reconcile_input& in, const std::string& hpa_json) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("now", time_value(in.now, a), a);
    doc.AddMember("config", config_value(in.config, a), a);

    rapidjson::Document hpa;
    net::parse_json(hpa, hpa_json);
    Value hpa_value(hpa, a);
    if (hpa_value.IsObject()) {
        hpa_value.RemoveMember("status");
        hpa_value.AddMember("status", status_value(in.hpa.status, a), a);
    }
    doc.AddMember("hpa", hpa_value, a);

    if (in.scale) {
        Value scale(rapidjson::kObjectType);
        Value spec(rapidjson::kObjectType);
        spec.AddMember("replicas", in.scale->spec_replicas, a);
        Value status(rapidjson::kObjectType);
        status.AddMember("replicas", in.scale->status_replicas, a);
        status.AddMember("selector", json_string(in.scale->selector, a), a);
        scale.AddMember("spec", spec, a);
        scale.AddMember("status", status, a);
        doc.AddMember("scale", scale, a);
    }
    Value pods(rapidjson::kArrayType);
    for (const policy::pod_info* p : in.pods)
        pods.PushBack(pod_value(*p, a), a);
    doc.AddMember("pods", pods, a);

    std::vector<pod_usage> pod_usages;
    Value custom(rapidjson::kObjectType);
    Value external(rapidjson::kObjectType);
    Value failures(rapidjson::kArrayType);
    const auto& metrics = in.hpa.spec.metrics;
    for (std::size_t i = 0; i < metrics.size() && i < in.readings.size(); ++i) {
        const auto& m = metrics[i];
        const auto& r = in.readings[i];
        if (m.type == policy::metric_source_type::formula) continue;
        if (r.error) {
            failures.PushBack(json_string(std::to_string(i), a), a);
            continue;
        }
        const std::string key = "#" + std::to_string(i);
        switch (m.type) {
        case policy::metric_source_type::resource:
        case policy::metric_source_type::container_resource:
            add_resource_samples(m, r, pod_usages);
            break;
        case policy::metric_source_type::pods:
        case policy::metric_source_type::object:
            custom.AddMember(json_string(key, a), metric_items(m, r, in, a), a);
            break;
        case policy::metric_source_type::external:
            external.AddMember(json_string(key, a), metric_items(m, r, in, a), a);
            break;
        case policy::metric_source_type::formula:
            break;
        }
    }
    doc.AddMember("podMetrics", pod_metrics_list(pod_usages, in, a), a);
    doc.AddMember("customMetrics", custom, a);
    doc.AddMember("externalMetrics", external, a);
    if (!failures.Empty()) doc.AddMember("failures", failures, a);
    if (in.hist.started) doc.AddMember("history", encode_history(in.hist, a), a);
    if (in.hpa.spec.prediction) { // the forecast replay computed from the recording
        const policy::prediction_input& p = in.prediction;
        Value forecast(rapidjson::kObjectType);
        if (p.value) forecast.AddMember("value", *p.value, a);
        if (!p.why.empty()) forecast.AddMember("reason", json_string(p.why, a), a);
        if (!p.message.empty()) forecast.AddMember("message", json_string(p.message, a), a);
        if (p.period)
            forecast.AddMember("period", json_string(core::format_go_duration(*p.period), a), a);
        if (p.next_peak)
            forecast.AddMember("nextPeak", json_string(core::format_rfc3339(*p.next_peak), a), a);
        doc.AddMember("forecast", forecast, a);
    }

    return pretty_json(doc);
}

} // namespace hpaplus::cli
