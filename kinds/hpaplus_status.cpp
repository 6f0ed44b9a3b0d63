// kinds/hpaplus_status.cpp — the HPAPlus status documents a reconcile writes.
#include "kinds/hpaplus_status.hpp"

#include "core/kubernetes.hpp"
#include "core/text.hpp"
#include "kinds/metric_status.hpp"
#include "kube/encode.hpp"
#include "policy/metric_evaluation.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <memory>
#include <utility>

namespace hpaplus::kinds {
namespace {

using rapidjson::Value;

void append_percent(std::string& out, std::int32_t v) {
    core::append_decimal(out, v);
    out += '%';
}

void append_target(std::string& out, const policy::metric_target& t) {
    if (t.type == policy::metric_target_type::utilization && t.average_utilization)
        append_percent(out, *t.average_utilization);
    else if (t.type == policy::metric_target_type::value && t.value)
        out += t.value->to_string();
    else if (t.average_value)
        out += t.average_value->to_string();
    else
        out += "<unset>";
}

void append_current(std::string& out, const policy::metric_target& t,
                    const policy::metric_status* s) {
    if (!s) {
        out += "<unknown>";
        return;
    }
    const auto& c = s->current;
    if (t.type == policy::metric_target_type::utilization && c.average_utilization)
        append_percent(out, *c.average_utilization);
    else if (t.type == policy::metric_target_type::value && c.value)
        out += c.value->to_string();
    else if (c.average_value)
        out += c.average_value->to_string();
    else if (c.value)
        out += c.value->to_string();
    else
        out += "<unknown>";
}

void append_label(std::string& out, const policy::metric_spec& m) {
    switch (m.type) {
    case policy::metric_source_type::resource:
        out += m.resource_name;
        break;
    case policy::metric_source_type::container_resource:
        out += m.container;
        out += '/';
        out += m.resource_name;
        break;
    case policy::metric_source_type::formula:
        out += m.name.empty() ? std::string_view("formula") : std::string_view(m.name);
        break;
    default:
        out += m.metric.name;
    }
}

// The summaries are appended to `out`: a status built each pass writes them into a buffer the
// thread reuses.
void append_targets_summary(std::string& out, const policy::autoscaler_spec& spec,
                            const policy::decision& d) {
    for (std::size_t i = 0; i < spec.metrics.size(); ++i) {
        const auto& m = spec.metrics[i];
        const policy::metric_status* status = nullptr;
        if (i < d.metrics.size() && d.metrics[i].status) status = &*d.metrics[i].status;
        if (i > 0) out += ", ";
        append_label(out, m);
        out += ": ";
        append_current(out, m.target, status);
        out += '/';
        append_target(out, m.target);
    }
}

void append_decision_summary(std::string& out, const policy::decision& d) {
    core::append_decimal(out, d.current_replicas);
    if (d.rescale) {
        out += " -> ";
        core::append_decimal(out, d.target_replicas);
    } else {
        out += " (unchanged)";
    }
    if (d.dry_run_rescale) out += " dry-run";
    const auto& s = d.stages;
    bool first = true;
    for (const auto& [name, v] :
         {std::pair{"recommended", s.recommended}, std::pair{"stabilized", s.stabilized},
          std::pair{"limited", s.limited}, std::pair{"gated", s.gated}}) {
        if (!v) continue;
        out += first ? ": " : ", ";
        first = false;
        out += name;
        out += ' ';
        core::append_decimal(out, *v);
    }
    if (!s.limit_reason.empty()) {
        out += " (";
        out += s.limit_reason;
        out += ')';
    }
    if (!s.gate_reason.empty()) {
        out += " [";
        out += s.gate_reason;
        out += ']';
    }
    // unreadyPods Count: what a readiness collapse made it count.
    if (!s.counted_unready.empty()) {
        out += "; ";
        core::append_decimal(out, static_cast<std::int64_t>(s.counted_unready.size()));
        out += " unready counted";
    }
    if (std::any_of(d.metrics.begin(), d.metrics.end(),
                    [](const policy::metric_record& m) { return m.replicas_stood_in; }))
        out += "; replicas stood in for ready pods";
    if (d.error) {
        out += "; error: ";
        out += *d.error;
    }
}

} // namespace

std::string targets_summary(const policy::autoscaler_spec& spec, const policy::decision& d) {
    std::string out;
    append_targets_summary(out, spec, d);
    return out;
}

std::string decision_summary(const policy::decision& d) {
    std::string out;
    append_decision_summary(out, d);
    return out;
}

namespace {} // namespace

struct status_scratch::parts {
    static constexpr std::size_t buffer_size = 16 * 1024;
    std::unique_ptr<char[]> buffer{new char[buffer_size]};
    kube::json_allocator pool{buffer.get(), buffer_size};
    std::string text;   ///< the summaries, one after the other
    std::string output; ///< what kube::to_json_text writes into before the copy it returns

    kube::json_allocator& cleared_pool() {
        pool.Clear();
        return pool;
    }
};

status_scratch::status_scratch() : parts_(std::make_unique<parts>()) {}
status_scratch::~status_scratch() = default;

namespace {

Value status_value(const policy::autoscaler& hpa, const policy::decision& d, status_form form,
                   status_scratch::parts& scratch) {
    kube::json_allocator& a = scratch.cleared_pool();
    const bool hpaplus = form == status_form::hpaplus;
    Value doc(rapidjson::kObjectType);
    doc.AddMember("observedGeneration", hpa.generation, a);
    if (d.status.last_scale_time)
        doc.AddMember("lastScaleTime",
                      kube::json_string(core::rfc3339(*d.status.last_scale_time).view(), a), a);
    doc.AddMember("currentReplicas", d.status.current_replicas, a);
    doc.AddMember("desiredReplicas", d.status.desired_replicas, a);
    Value metrics(rapidjson::kArrayType);
    for (const auto& m : d.metrics) {
        if (!m.status) continue;
        Value v = kinds::encode_metric_status(*m.status, a);
        if (m.proposal && hpaplus) v.AddMember("proposedReplicas", *m.proposal, a);
        metrics.PushBack(v, a);
    }
    doc.AddMember("currentMetrics", metrics, a);
    doc.AddMember("conditions", kube::encode_conditions(d.status.conditions, a), a);
    if (!hpaplus) return doc;
    const auto& ref = hpa.spec.scale_target_ref;
    std::string& text = scratch.text;
    text.assign(ref.kind).append("/").append(ref.name);
    doc.AddMember("reference", kube::json_string(text, a), a);
    text.clear();
    append_targets_summary(text, hpa.spec, d);
    doc.AddMember("targets", kube::json_string(text, a), a);
    text.clear();
    append_decision_summary(text, d);
    doc.AddMember("lastDecision", kube::json_string(text, a), a);
    Value floor; // null removes a floor that is no longer in force (merge patch)
    if (d.floor) {
        floor.SetObject();
        floor.AddMember("replicas", d.floor->replicas, a);
        floor.AddMember("cronHPA", kube::json_string(d.floor->cronhpa, a), a);
        floor.AddMember("job", kube::json_string(d.floor->job, a), a);
        floor.AddMember("since", kube::json_string(core::rfc3339(d.floor->since).view(), a), a);
    }
    doc.AddMember("cronFloor", floor, a);
    Value prediction; // null: no forecast this pass (PredictionReady says why)
    if (const auto& p = d.stages.prediction; p && hpa.spec.prediction) {
        prediction = kinds::encode_prediction(*p, a);
        prediction.AddMember("metric", kube::json_string(hpa.spec.prediction->metric, a), a);
    }
    doc.AddMember("prediction", prediction, a);
    return doc;
}

} // namespace

std::string encode_status(const policy::autoscaler& hpa, const policy::decision& d,
                          status_form form, status_scratch& scratch) {
    return kube::to_json_text(status_value(hpa, d, form, scratch.get()), scratch.get().output);
}

std::string encode_status(const policy::autoscaler& hpa, const policy::decision& d,
                          status_form form) {
    status_scratch scratch;
    return encode_status(hpa, d, form, scratch);
}

std::uint64_t status_digest(const policy::autoscaler& hpa, const policy::decision& d,
                            status_form form, status_scratch& scratch) {
    return kube::json_digest(status_value(hpa, d, form, scratch.get()));
}

std::uint64_t status_digest(const policy::autoscaler& hpa, const policy::decision& d,
                            status_form form) {
    status_scratch scratch;
    return status_digest(hpa, d, form, scratch);
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
                      kube::json_string(core::rfc3339(*current.last_scale_time).view(), a), a);
    doc.AddMember("currentReplicas", current.current_replicas, a);
    doc.AddMember("desiredReplicas", current.desired_replicas, a);
    doc.AddMember("conditions", kube::encode_conditions(conditions, a), a);
    if (form == status_form::hpaplus)
        doc.AddMember("lastDecision", kube::json_string(reason + ": " + message, a), a);
    return kube::to_json_text(doc);
}

} // namespace hpaplus::kinds
