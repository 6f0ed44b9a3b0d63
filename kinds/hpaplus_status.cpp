// kinds/hpaplus_status.cpp — the HPAPlus status documents a reconcile writes.
#include "kinds/hpaplus_status.hpp"

#include "core/kubernetes.hpp"
#include "kinds/metric_status.hpp"
#include "kube/encode.hpp"
#include "policy/metric_evaluation.hpp"

#include <rapidjson/document.h>

#include <memory>

namespace hpaplus::kube {
namespace {

using rapidjson::Value;

std::string target_text(const policy::metric_target& t) {
    if (t.type == policy::metric_target_type::utilization && t.average_utilization)
        return std::to_string(*t.average_utilization) + "%";
    if (t.type == policy::metric_target_type::value && t.value) return t.value->to_string();
    if (t.average_value) return t.average_value->to_string();
    return "<unset>";
}

std::string current_text(const policy::metric_target& t,
                         const std::optional<policy::metric_status>& s) {
    if (!s) return "<unknown>";
    const auto& c = s->current;
    if (t.type == policy::metric_target_type::utilization && c.average_utilization)
        return std::to_string(*c.average_utilization) + "%";
    if (t.type == policy::metric_target_type::value && c.value) return c.value->to_string();
    if (c.average_value) return c.average_value->to_string();
    if (c.value) return c.value->to_string();
    return "<unknown>";
}

std::string metric_label(const policy::metric_spec& m) {
    switch (m.type) {
    case policy::metric_source_type::resource:
        return m.resource_name;
    case policy::metric_source_type::container_resource:
        return m.container + "/" + m.resource_name;
    case policy::metric_source_type::formula:
        return m.name.empty() ? "formula" : m.name;
    default:
        return m.metric.name;
    }
}

} // namespace

std::string targets_summary(const policy::autoscaler_spec& spec, const policy::decision& d) {
    std::string out;
    for (std::size_t i = 0; i < spec.metrics.size(); ++i) {
        const auto& m = spec.metrics[i];
        std::optional<policy::metric_status> status;
        if (i < d.metrics.size()) status = d.metrics[i].status;
        if (!out.empty()) out += ", ";
        out +=
            metric_label(m) + ": " + current_text(m.target, status) + "/" + target_text(m.target);
    }
    return out;
}

std::string decision_summary(const policy::decision& d) {
    std::string out = std::to_string(d.current_replicas);
    out += d.rescale ? " -> " + std::to_string(d.target_replicas) : " (unchanged)";
    if (d.dry_run_rescale) out += " dry-run";
    const auto& s = d.stages;
    auto stage = [&](const char* name, const std::optional<std::int32_t>& v) {
        return v ? std::string(name) + " " + std::to_string(*v) : std::string();
    };
    std::string stages;
    for (auto part : {stage("recommended", s.recommended), stage("stabilized", s.stabilized),
                      stage("limited", s.limited), stage("gated", s.gated)}) {
        if (part.empty()) continue;
        stages += (stages.empty() ? "" : ", ") + part;
    }
    if (!stages.empty()) out += ": " + stages;
    if (!s.limit_reason.empty()) out += " (" + s.limit_reason + ")";
    if (!s.gate_reason.empty()) out += " [" + s.gate_reason + "]";
    if (d.error) out += "; error: " + *d.error;
    return out;
}

namespace {

/// The pool this thread builds statuses in: it starts in a buffer of its own, so a steady pass
/// allocates nothing for its status; what a large status adds is given back at the next build.
json_allocator& status_pool() {
    constexpr std::size_t buffer_size = 16 * 1024;
    thread_local std::unique_ptr<char[]> buffer(new char[buffer_size]);
    thread_local json_allocator pool(buffer.get(), buffer_size);
    pool.Clear();
    return pool;
}

Value status_value(const policy::autoscaler& hpa, const policy::decision& d, status_form form,
                   json_allocator& a) {
    const bool hpaplus = form == status_form::hpaplus;
    Value doc(rapidjson::kObjectType);
    doc.AddMember("observedGeneration", hpa.generation, a);
    if (d.status.last_scale_time)
        doc.AddMember("lastScaleTime",
                      kube::json_string(core::format_rfc3339(*d.status.last_scale_time), a), a);
    doc.AddMember("currentReplicas", d.status.current_replicas, a);
    doc.AddMember("desiredReplicas", d.status.desired_replicas, a);
    Value metrics(rapidjson::kArrayType);
    for (const auto& m : d.metrics) {
        if (!m.status) continue;
        Value v = kube::encode_metric_status(*m.status, a);
        if (m.proposal && hpaplus) v.AddMember("proposedReplicas", *m.proposal, a);
        metrics.PushBack(v, a);
    }
    doc.AddMember("currentMetrics", metrics, a);
    doc.AddMember("conditions", kube::encode_conditions(d.status.conditions, a), a);
    if (!hpaplus) return doc;
    const auto& ref = hpa.spec.scale_target_ref;
    doc.AddMember("reference", kube::json_string(ref.kind + "/" + ref.name, a), a);
    doc.AddMember("targets", kube::json_string(targets_summary(hpa.spec, d), a), a);
    doc.AddMember("lastDecision", kube::json_string(decision_summary(d), a), a);
    Value floor; // null removes a floor that is no longer in force (merge patch)
    if (d.floor) {
        floor.SetObject();
        floor.AddMember("replicas", d.floor->replicas, a);
        floor.AddMember("cronHPA", kube::json_string(d.floor->cronhpa, a), a);
        floor.AddMember("job", kube::json_string(d.floor->job, a), a);
        floor.AddMember("since", kube::json_string(core::format_rfc3339(d.floor->since), a), a);
    }
    doc.AddMember("cronFloor", floor, a);
    Value prediction; // null: no forecast this pass (PredictionReady says why)
    if (const auto& p = d.stages.prediction; p && hpa.spec.prediction) {
        prediction = kube::encode_prediction(*p, a);
        prediction.AddMember("metric", kube::json_string(hpa.spec.prediction->metric, a), a);
    }
    doc.AddMember("prediction", prediction, a);
    return doc;
}

} // namespace

std::string encode_status(const policy::autoscaler& hpa, const policy::decision& d,
                          status_form form) {
    return kube::to_json_text(status_value(hpa, d, form, status_pool()));
}

std::uint64_t status_digest(const policy::autoscaler& hpa, const policy::decision& d,
                            status_form form) {
    return kube::json_digest(status_value(hpa, d, form, status_pool()));
}

std::string encode_blocked_status(const policy::autoscaler_status& current, std::int64_t generation,
                                  const std::string& reason, const std::string& message,
                                  core::time_point now, status_form form) {
    auto conditions = current.conditions;
    core::set_condition(conditions, "ScalingActive", core::condition_status::false_, reason,
                        message, now);
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("observedGeneration", generation, a);
    if (current.last_scale_time)
        doc.AddMember("lastScaleTime",
                      kube::json_string(core::format_rfc3339(*current.last_scale_time), a), a);
    doc.AddMember("currentReplicas", current.current_replicas, a);
    doc.AddMember("desiredReplicas", current.desired_replicas, a);
    doc.AddMember("conditions", kube::encode_conditions(conditions, a), a);
    if (form == status_form::hpaplus)
        doc.AddMember("lastDecision", kube::json_string(reason + ": " + message, a), a);
    return kube::to_json_text(doc);
}

} // namespace hpaplus::kube
