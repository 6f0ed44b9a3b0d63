// cli/evaluate/decision_json.cpp — the decision record `hpaplus evaluate` prints
// (docs/evaluate.md): every stage of policy::decide and policy::finish, pretty-printed.
#include "cli/evaluate/decision_json.hpp"

#include "kinds/metric_status.hpp"
#include "kube/encode.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

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

Value encode_history(const policy::history& h, kube::json_allocator& a) {
    Value out(rapidjson::kObjectType);
    Value recs(rapidjson::kArrayType);
    for (const auto& r : h.recommendations) {
        Value v(rapidjson::kObjectType);
        v.AddMember("time", kube::json_string(core::format_rfc3339_nano(r.time), a), a);
        v.AddMember("replicas", r.replicas, a);
        recs.PushBack(v, a);
    }
    out.AddMember("recommendations", recs, a);
    for (auto [key, list] : {std::pair{"scaleUpEvents", &h.scale_up_events},
                             std::pair{"scaleDownEvents", &h.scale_down_events}}) {
        Value events(rapidjson::kArrayType);
        for (const auto& e : *list) {
            Value v(rapidjson::kObjectType);
            v.AddMember("time", kube::json_string(core::format_rfc3339_nano(e.time), a), a);
            v.AddMember("replicaChange", e.change, a);
            events.PushBack(v, a);
        }
        out.AddMember(rapidjson::StringRef(key), events, a);
    }
    if (!h.last_known_good.empty()) {
        Value good(rapidjson::kArrayType);
        for (const auto& g : h.last_known_good) {
            Value v(rapidjson::kObjectType);
            v.AddMember("index", static_cast<std::uint64_t>(g.index), a);
            v.AddMember("time", kube::json_string(core::format_rfc3339_nano(g.time), a), a);
            v.AddMember("proposedReplicas", g.replicas, a);
            good.PushBack(v, a);
        }
        out.AddMember("lastKnownGood", good, a);
    }
    if (h.prediction_voting) out.AddMember("predictionVoting", true, a);
    // The sets of pods the last Events named (podSelection's excluded pods, boost records not
    // believed), one name per line.
    for (const auto& [key, lines] : {std::pair{"excludedPods", &h.excluded_pods},
                                     std::pair{"ignoredBoosts", &h.ignored_boosts}}) {
        if (lines->empty()) continue;
        Value names(rapidjson::kArrayType);
        std::string_view rest = *lines;
        for (auto end = rest.find('\n'); end != std::string_view::npos; end = rest.find('\n')) {
            names.PushBack(kube::json_string(rest.substr(0, end), a), a);
            rest.remove_prefix(end + 1);
        }
        out.AddMember(rapidjson::StringRef(key), names, a);
    }
    return out;
}

std::string pretty_json(const rapidjson::Value& v) {
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
    writer.SetIndent(' ', 2);
    v.Accept(writer);
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

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
            m.status ? kube::encode_metric_status(*m.status, a) : Value(rapidjson::kNullType), a);
        v.AddMember("error", optional_string(m.error, a), a);
        if (!m.fallback.empty()) v.AddMember("fallback", kube::json_string(m.fallback, a), a);
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
                                     std::pair{"ignoredBoosts", &dec.stages.ignored_boosts}}) {
        if (names->empty()) continue;
        Value list(rapidjson::kArrayType);
        for (const auto& name : *names)
            list.PushBack(kube::json_string(name, a), a);
        stages.AddMember(rapidjson::StringRef(key), list, a);
    }
    if (const auto& p = dec.stages.prediction) // spec.prediction: the forecast's vote
        stages.AddMember("prediction", kube::encode_prediction(*p, a), a);
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
