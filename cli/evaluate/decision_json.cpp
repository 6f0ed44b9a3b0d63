// cli/evaluate/decision_json.cpp — the decision record `hpaplus evaluate` prints
// (docs/evaluate.md): every stage of policy::decide and policy::finish, pretty-printed.
#include "cli/evaluate/decision_json.hpp"

#include "kinds/metric_status.hpp"
#include "kube/encode.hpp"

namespace hpaplus::cli {
namespace {

using rapidjson::Value;

Value optional_int(const std::optional<std::int32_t>& v) {
    return v ? Value(*v) : Value(rapidjson::kNullType);
}

Value optional_string(const std::optional<std::string>& v, kube::json_allocator& a) {
    return v ? kube::json_string(*v, a) : Value(rapidjson::kNullType);
}

} // namespace

std::string encode_decision(const policy::decision& dec) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("currentReplicas", dec.current_replicas, a);
    doc.AddMember("desiredReplicas", dec.desired_replicas, a);
    doc.AddMember("scaleUpdated", dec.scale_updated, a);
    doc.AddMember("error", optional_string(dec.error, a), a);
    doc.AddMember("reason",
                  dec.rescale_reason.empty() ? Value(rapidjson::kNullType)
                                             : kube::json_string(dec.rescale_reason, a),
                  a);
    if (dec.dry_run_rescale) doc.AddMember("dryRunReplicas", dec.target_replicas, a);

    Value metrics(rapidjson::kArrayType);
    for (const auto& m : dec.metrics) {
        Value v(rapidjson::kObjectType);
        v.AddMember("index", static_cast<std::uint64_t>(m.index), a);
        v.AddMember("type", Value(policy::to_string(m.type), a), a);
        v.AddMember("proposedReplicas", optional_int(m.proposal), a);
        v.AddMember(
            "current",
            m.status ? kinds::encode_metric_status(*m.status, a) : Value(rapidjson::kNullType), a);
        v.AddMember("error", optional_string(m.error, a), a);
        if (!m.fallback.empty()) v.AddMember("fallback", kube::json_string(m.fallback, a), a);
        if (!m.counted_unready.empty()) { // unreadyPods Count
            Value names(rapidjson::kArrayType);
            for (const auto& name : m.counted_unready)
                names.PushBack(kube::json_string(name, a), a);
            v.AddMember("countedUnreadyPods", names, a);
        }
        if (m.replicas_stood_in) v.AddMember("currentReplicasStoodIn", true, a);
        metrics.PushBack(v, a);
    }
    doc.AddMember("metrics", metrics, a);

    Value stages(rapidjson::kObjectType);
    stages.AddMember("recommended", optional_int(dec.stages.recommended), a);
    stages.AddMember("stabilized", optional_int(dec.stages.stabilized), a);
    stages.AddMember("limited", optional_int(dec.stages.limited), a);
    stages.AddMember("limitReason",
                     dec.stages.limit_reason.empty()
                         ? Value(rapidjson::kNullType)
                         : kube::json_string(dec.stages.limit_reason, a),
                     a);
    if (dec.stages.gated) {
        stages.AddMember("gated", *dec.stages.gated, a);
        stages.AddMember("gateReason", kube::json_string(dec.stages.gate_reason, a), a);
    }
    // podSelection OwnerReferences left these out; these count their CPU unboosted.
    for (const auto& [key, names] : {std::pair{"excludedPods", &dec.stages.excluded_pods},
                                     std::pair{"boostedPods", &dec.stages.boosted_pods},
                                     std::pair{"ignoredBoosts", &dec.stages.ignored_boosts},
                                     std::pair{"countedUnreadyPods", &dec.stages.counted_unready}}) {
        if (names->empty()) continue;
        Value list(rapidjson::kArrayType);
        for (const auto& name : *names)
            list.PushBack(kube::json_string(name, a), a);
        stages.AddMember(rapidjson::StringRef(key), list, a);
    }
    if (const auto& p = dec.stages.prediction) // spec.prediction: the forecast's vote
        stages.AddMember("prediction", kinds::encode_prediction(*p, a), a);
    doc.AddMember("stages", stages, a);
    doc.AddMember("conditions", kube::encode_conditions(dec.status.conditions, a), a);

    Value events(rapidjson::kArrayType);
    for (const auto& e : dec.events) {
        Value v(rapidjson::kObjectType);
        v.AddMember("type", kube::json_string(e.type, a), a);
        v.AddMember("reason", kube::json_string(e.reason, a), a);
        v.AddMember("message", kube::json_string(e.message, a), a);
        events.PushBack(v, a);
    }
    doc.AddMember("events", events, a);
    doc.AddMember("lastScaleTime",
                  dec.status.last_scale_time
                      ? kube::json_string(core::format_rfc3339(*dec.status.last_scale_time), a)
                      : Value(rapidjson::kNullType),
                  a);
    doc.AddMember("history", encode_history(dec.hist, a), a);

    return pretty_json(doc);
}

} // namespace hpaplus::cli
