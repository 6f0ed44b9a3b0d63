// kinds/vpaplus.cpp — VPAPlus, Pod and checkpoint decoding and encoding.
#include "kinds/vpaplus.hpp"

#include "kinds/decode.hpp"
#include "kube/encode.hpp"

#include <rapidjson/document.h>

namespace hpaplus::kinds {
namespace {

using rapidjson::Value;
using vertical::container_resources;
using vertical::cpu_text;
using vertical::memory_text;

std::optional<std::int64_t> memory_of(const core::resource_list& list) {
    const auto* q = core::find_resource(list, "memory");
    return q ? std::optional(q->value()) : std::nullopt;
}

container_resources resources_of(kube::json_decoder& d, const std::string& name,
                                 const kube::json_node& resources) {
    const auto requests = d.resources(resources["requests"]);
    const auto limits = d.resources(resources["limits"]);
    return {name, cpu_milli(requests), memory_of(requests), cpu_milli(limits), memory_of(limits)};
}

vertical::bounds decode_bounds(kube::json_decoder& d, const kube::json_node& n) {
    vertical::bounds b;
    const auto list = d.resources(n);
    b.cpu_milli = cpu_milli(list);
    b.memory_bytes = memory_of(list);
    for (const auto& [name, q] : list)
        if (name != "cpu" && name != "memory")
            d.fail(n[name], "only cpu and memory can be bounded");
    return b;
}

vertical::container_policy decode_policy(kube::json_decoder& d, const kube::json_node& n) {
    vertical::container_policy p;
    if (!d.object(n)) return p;
    d.known_fields(n, {"containerName", "mode", "minAllowed", "maxAllowed", "controlledResources",
                       "controlledValues"});
    p.container_name = d.string(n["containerName"]);
    const std::string mode = d.opt_string(n["mode"]).value_or("Auto");
    if (mode != "Auto" && mode != "Off")
        d.fail(n["mode"], "must be Auto or Off, got \"" + mode + "\"");
    p.off = mode == "Off";
    p.min_allowed = decode_bounds(d, n["minAllowed"]);
    p.max_allowed = decode_bounds(d, n["maxAllowed"]);
    if (const auto r = n["controlledResources"]; r.present()) {
        p.control_cpu = p.control_memory = false;
        for (std::size_t i = 0, size = d.array(r); i < size; ++i) {
            const std::string name = d.string(r.at(i));
            if (name == "cpu")
                p.control_cpu = true;
            else if (name == "memory")
                p.control_memory = true;
            else
                d.fail(r.at(i), "must be cpu or memory, got \"" + name + "\"");
        }
    }
    const std::string values = d.opt_string(n["controlledValues"]).value_or("RequestsAndLimits");
    if (values == "RequestsOnly")
        p.values = vertical::controlled_values::requests_only;
    else if (values != "RequestsAndLimits")
        d.fail(n["controlledValues"],
               "must be RequestsAndLimits or RequestsOnly, got \"" + values + "\"");
    if (p.min_allowed.cpu_milli && p.max_allowed.cpu_milli && *p.max_allowed.cpu_milli > 0 &&
        *p.min_allowed.cpu_milli > *p.max_allowed.cpu_milli)
        d.fail(n["minAllowed"]["cpu"], "must not be above maxAllowed.cpu");
    if (p.min_allowed.memory_bytes && p.max_allowed.memory_bytes &&
        *p.max_allowed.memory_bytes > 0 &&
        *p.min_allowed.memory_bytes > *p.max_allowed.memory_bytes)
        d.fail(n["minAllowed"]["memory"], "must not be above maxAllowed.memory");
    return p;
}

Value resource_map(const vertical::amounts& v, bool cpu, bool memory, kube::json_allocator& a) {
    Value m(rapidjson::kObjectType);
    if (cpu) m.AddMember("cpu", kube::json_string(cpu_text(v.cpu_milli), a), a);
    if (memory) m.AddMember("memory", kube::json_string(memory_text(v.memory_bytes), a), a);
    return m;
}

Value encode_histogram(const vertical::histogram_checkpoint& h, kube::json_allocator& a) {
    Value v(rapidjson::kObjectType);
    v.AddMember("referenceTimestamp", kube::json_string(core::format_rfc3339_nano(h.reference), a),
                a);
    v.AddMember("totalWeight", h.total_weight, a);
    Value weights(rapidjson::kObjectType);
    for (const auto& [bucket, w] : h.bucket_weights)
        weights.AddMember(kube::json_string(std::to_string(bucket), a), Value(w), a);
    v.AddMember("bucketWeights", weights, a);
    return v;
}

std::optional<vertical::histogram_checkpoint> decode_histogram(kube::json_decoder& d,
                                                               const kube::json_node& n) {
    vertical::histogram_checkpoint h;
    if (!d.object(n)) return std::nullopt;
    h.reference = d.opt_time(n["referenceTimestamp"]).value_or(core::time_point{});
    h.total_weight = d.opt_number(n["totalWeight"]).value_or(0);
    const auto weights = n["bucketWeights"];
    if (weights.present() && weights.value->IsObject()) {
        for (const auto& m : weights.value->GetObject()) {
            const std::string key = m.name.GetString();
            if (!m.value.IsUint() || key.empty() ||
                key.find_first_not_of("0123456789") != std::string::npos || key.size() > 6)
                return std::nullopt;
            h.bucket_weights[std::stoul(key)] = m.value.GetUint();
        }
    }
    if (!d.ok()) return std::nullopt;
    return h;
}

// spec.startupBoost: only cpu (AEP-7862 boosts no memory). `type` may be left out; when given it
// must name the one of factor, quantity and value that is set.
std::optional<vertical::cpu_startup_boost> decode_boost(kube::json_decoder& d,
                                                        const kube::json_node& n) {
    if (!d.object(n)) return std::nullopt;
    d.known_fields(n, {"cpu"});
    const auto cpu = n["cpu"];
    if (!cpu.present()) {
        d.fail(cpu, "required field is missing");
        return std::nullopt;
    }
    if (!d.object(cpu)) return std::nullopt;
    d.known_fields(cpu, {"type", "factor", "quantity", "value", "duration", "durationSeconds"});
    using kind = vertical::cpu_startup_boost::kind;
    vertical::cpu_startup_boost b;
    int set = 0;
    if (const auto f = d.opt_number(cpu["factor"])) {
        ++set;
        b.factor = *f;
        if (!(*f >= 1) || *f > 1000) d.fail(cpu["factor"], "must be at least 1 and at most 1000");
    }
    for (const auto& [key, type] :
         {std::pair{"quantity", kind::quantity}, {"value", kind::value}}) {
        const auto q = d.opt_quantity(cpu[key]);
        if (!q) continue;
        ++set;
        b.type = type;
        b.milli = q->milli_value();
        if (b.milli <= 0) d.fail(cpu[key], "must be above 0");
    }
    if (set != 1) {
        d.fail(cpu, "set exactly one of factor, quantity (added to the request) and value (the "
                    "boosted request)");
        return std::nullopt;
    }
    if (const auto t = d.opt_string(cpu["type"])) {
        const char* want = b.type == kind::factor     ? "Factor"
                           : b.type == kind::quantity ? "Quantity"
                                                      : "Value";
        if (*t != want) d.fail(cpu["type"], "is \"" + *t + "\" but the field set asks for " + want);
    }
    const auto duration = d.opt_duration(cpu["duration"]);
    const auto seconds = d.opt_int(cpu["durationSeconds"], 0, 366LL * 24 * 3600);
    if (duration && seconds) d.fail(cpu, "set duration or durationSeconds, not both");
    if (duration && duration->count() < 0) d.fail(cpu["duration"], "must not be negative");
    b.duration = duration ? *duration : std::chrono::seconds(seconds.value_or(0));
    return b;
}

} // namespace

vpaplus decode_vpaplus(kube::json_decoder& d, const kube::json_node& n) {
    vpaplus v;
    if (!d.object(n)) return v;
    kube::object_meta meta = d.meta(n);
    v.ns = std::move(meta.ns);
    v.name = std::move(meta.name);
    v.uid = std::move(meta.uid);
    v.generation = meta.generation;
    const auto spec = n["spec"];
    if (!spec.present()) {
        d.fail(spec, "required field is missing");
        return v;
    }
    if (!d.object(spec)) return v;
    d.known_fields(spec, {"targetRef", "updatePolicy", "resourcePolicy", "allowSharedResources",
                          "recommenders", "startupBoost"});
    v.target = kinds::decode_reference(d, spec["targetRef"]);
    if (const auto u = spec["updatePolicy"]; u.present() && d.object(u)) {
        d.known_fields(u, {"updateMode", "minReplicas", "evictionRequirements"});
        const std::string mode = d.opt_string(u["updateMode"]).value_or("InPlaceOrRecreate");
        if (const auto m = vertical::parse_update_mode(mode))
            v.mode = *m;
        else
            d.fail(u["updateMode"], "must be Off, Initial, Recreate, InPlaceOrRecreate or InPlace, "
                                    "got \"" +
                                        mode + "\"");
        v.min_replicas = d.opt_int32(u["minReplicas"], 1);
    }
    if (const auto r = spec["resourcePolicy"]; r.present() && d.object(r)) {
        d.known_fields(r, {"containerPolicies"});
        const auto list = r["containerPolicies"];
        for (std::size_t i = 0, size = d.array(list); i < size; ++i)
            v.policies.push_back(decode_policy(d, list.at(i)));
    }
    const auto shared = spec["allowSharedResources"];
    for (std::size_t i = 0, size = d.array(shared); i < size; ++i) {
        const std::string r = d.string(shared.at(i));
        if (r == "cpu")
            v.share_cpu = true;
        else if (r == "memory")
            v.share_memory = true;
        else
            d.fail(shared.at(i), "must be cpu or memory, got \"" + r + "\"");
    }
    if (const auto b = spec["startupBoost"]; b.present()) v.boost = decode_boost(d, b);
    return v;
}

vpaplus_status decode_vpaplus_status(const kube::json_node& n) {
    vpaplus_status s;
    kube::json_decoder d;
    if (!n.present() || !d.object(n)) return s;
    s.in_place_resizes = d.opt_int(n["inPlaceResizes"], 0, INT64_MAX).value_or(0);
    s.evictions = d.opt_int(n["evictions"], 0, INT64_MAX).value_or(0);
    s.boosted_pods = d.opt_int(n["boostedPods"], 0, INT64_MAX).value_or(0);
    kube::json_decoder cd;
    auto conditions = kinds::decode_conditions(cd, n["conditions"]);
    if (cd.ok()) s.conditions = std::move(conditions);
    return s;
}

std::vector<vertical::container_recommendation>
decode_recommendations(const kube::json_node& status,
                       const std::vector<vertical::container_policy>& policies) {
    std::vector<vertical::container_recommendation> out;
    kube::json_decoder d;
    const auto list = status["recommendation"]["containerRecommendations"];
    for (std::size_t i = 0, size = d.array(list); i < size && d.ok(); ++i) {
        const auto n = list.at(i);
        vertical::container_recommendation r;
        r.container = d.string(n["containerName"]);
        const auto read = [&](const char* key, vertical::amounts& into) {
            const auto values = d.resources(n[key]);
            into.cpu_milli = cpu_milli(values).value_or(0);
            into.memory_bytes = memory_of(values).value_or(0);
        };
        read("target", r.target);
        read("lowerBound", r.lower_bound);
        read("upperBound", r.upper_bound);
        read("uncappedTarget", r.uncapped_target);
        r.cpu = n["target"]["cpu"].present();
        r.memory = n["target"]["memory"].present();
        if (const auto* p = vertical::policy_for(policies, r.container)) r.values = p->values;
        if (d.ok() && (r.cpu || r.memory)) out.push_back(std::move(r));
    }
    if (!d.ok()) out.clear(); // a status this controller did not write: apply nothing
    return out;
}

std::string encode_vpaplus_status(const vpaplus_status& s) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("observedGeneration", s.observed_generation, a);
    Value list(rapidjson::kArrayType);
    for (const auto& r : s.recommendations) {
        Value c(rapidjson::kObjectType);
        c.AddMember("containerName", kube::json_string(r.container, a), a);
        c.AddMember("target", resource_map(r.target, r.cpu, r.memory, a), a);
        c.AddMember("lowerBound", resource_map(r.lower_bound, r.cpu, r.memory, a), a);
        c.AddMember("upperBound", resource_map(r.upper_bound, r.cpu, r.memory, a), a);
        c.AddMember("uncappedTarget", resource_map(r.uncapped_target, r.cpu, r.memory, a), a);
        list.PushBack(c, a);
    }
    Value recommendation(rapidjson::kObjectType);
    recommendation.AddMember("containerRecommendations", list, a);
    doc.AddMember("recommendation", recommendation, a);
    doc.AddMember("inPlaceResizes", s.in_place_resizes, a);
    doc.AddMember("evictions", s.evictions, a);
    doc.AddMember("boostedPods", s.boosted_pods, a);
    if (s.shared_with.empty())
        doc.AddMember("sharedWith", Value(rapidjson::kNullType), a);
    else
        doc.AddMember("sharedWith", kube::json_string(s.shared_with, a), a);
    doc.AddMember("conditions", kube::encode_conditions(s.conditions, a), a);
    return kube::to_json_text(doc);
}

vertical::pod_view decode_vertical_pod(const kube::json_node& n) {
    vertical::pod_view p;
    kube::json_decoder d;
    if (!d.object(n)) return p;
    const auto meta = n["metadata"];
    p.name = d.opt_string(meta["name"]).value_or("");
    p.uid = d.opt_string(meta["uid"]).value_or("");
    p.deleting = meta["deletionTimestamp"].present();
    p.has_annotations = meta["annotations"].present();
    if (const auto text = d.opt_string_view(meta["annotations"][vertical::boost_annotation]))
        p.boost = decode_boost_record(*text);
    const auto owners = meta["ownerReferences"];
    for (std::size_t i = 0, size = d.array(owners); i < size; ++i)
        if (d.opt_bool(owners.at(i)["controller"]).value_or(false)) p.controlled = true;
    const auto containers = n["spec"]["containers"];
    for (std::size_t i = 0, size = d.array(containers); i < size; ++i) {
        const auto c = containers.at(i);
        p.desired.push_back(resources_of(d, d.opt_string(c["name"]).value_or(""), c["resources"]));
        const auto r = c["resources"];
        p.maps.push_back({r.present(), r["requests"].present(), r["limits"].present()});
    }
    const auto status = n["status"];
    p.pending = d.opt_string(status["phase"]).value_or("Pending") == "Pending";
    p.start_time = d.opt_time(status["startTime"]);
    const auto statuses = status["containerStatuses"];
    for (std::size_t i = 0, size = d.array(statuses); i < size; ++i) {
        const auto s = statuses.at(i);
        const std::string name = d.opt_string(s["name"]).value_or("");
        if (s["resources"].present()) p.applied.push_back(resources_of(d, name, s["resources"]));
        const auto terminated = s["lastState"]["terminated"];
        if (d.opt_string(terminated["reason"]).value_or("") == "OOMKilled") {
            const auto started = d.opt_time(terminated["startedAt"]);
            const auto finished = d.opt_time(terminated["finishedAt"]);
            if (started && finished) p.oom_kills.push_back({name, *started, *finished});
        }
    }
    const auto conditions = status["conditions"];
    for (std::size_t i = 0, size = d.array(conditions); i < size; ++i) {
        const auto c = conditions.at(i);
        const std::string type = d.opt_string(c["type"]).value_or("");
        if (d.opt_string(c["status"]).value_or("") != "True") continue;
        if (type == "Ready")
            p.ready_since = d.opt_time(c["lastTransitionTime"]).value_or(core::time_point{});
        if (type == "PodResizePending")
            p.resize_pending = d.opt_string(c["reason"]).value_or("Deferred");
        if (type == "PodResizeInProgress") {
            p.resize_in_progress = true;
            p.in_progress_reason = d.opt_string(c["reason"]).value_or("");
        }
    }
    // Clusters before 1.33 report status.resize instead; unknown values count as Deferred.
    if (const auto legacy = d.opt_string(status["resize"]); legacy && !legacy->empty()) {
        if (*legacy == "InProgress" || *legacy == "Proposed")
            p.resize_in_progress = true;
        else if (*legacy == "Infeasible")
            p.resize_pending = "Infeasible";
        else
            p.resize_pending = "Deferred";
    }
    return p;
}

std::string encode_boost_record(const vertical::boost_record& r) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("vpaplus", kube::json_string(r.vpaplus, a), a);
    Value list(rapidjson::kArrayType);
    for (const auto& c : r.containers) {
        Value e(rapidjson::kObjectType);
        e.AddMember("name", kube::json_string(c.container, a), a);
        e.AddMember("boosted", kube::json_string(cpu_text(c.boosted_milli), a), a);
        if (c.request_milli)
            e.AddMember("request", kube::json_string(cpu_text(*c.request_milli), a), a);
        if (c.limit_milli) e.AddMember("limit", kube::json_string(cpu_text(*c.limit_milli), a), a);
        list.PushBack(e, a);
    }
    doc.AddMember("containers", list, a);
    if (r.ended) doc.AddMember("ended", true, a);
    return kube::to_json_text(doc);
}

std::string boost_annotation_patch(const vertical::boost_record& r) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    Value annotations(rapidjson::kObjectType);
    annotations.AddMember(rapidjson::StringRef(vertical::boost_annotation),
                          kube::json_string(encode_boost_record(r), a), a);
    Value metadata(rapidjson::kObjectType);
    metadata.AddMember("annotations", annotations, a);
    doc.AddMember("metadata", metadata, a);
    return kube::to_json_text(doc);
}

std::optional<vertical::boost_record> decode_boost_record(std::string_view text) {
    // An annotation this controller wrote is short; anything long is someone else's.
    if (text.size() > 16 * 1024) return std::nullopt;
    rapidjson::Document doc;
    if (kube::parse_json(doc, text, "startup boost annotation")) return std::nullopt;
    kube::json_decoder d;
    const kube::json_node n{&doc, ""};
    if (!d.object(n)) return std::nullopt;
    vertical::boost_record r;
    r.vpaplus = d.opt_string(n["vpaplus"]).value_or("");
    r.ended = d.opt_bool(n["ended"]).value_or(false);
    const auto list = n["containers"];
    for (std::size_t i = 0, size = d.array(list); i < size && d.ok(); ++i) {
        const auto e = list.at(i);
        vertical::boosted_cpu c;
        c.container = d.string(e["name"]);
        const auto boosted = d.opt_quantity(e["boosted"]);
        if (!boosted) d.fail(e["boosted"], "required field is missing");
        c.boosted_milli = boosted ? boosted->milli_value() : 0;
        if (const auto q = d.opt_quantity(e["request"])) c.request_milli = q->milli_value();
        if (const auto q = d.opt_quantity(e["limit"])) c.limit_milli = q->milli_value();
        r.containers.push_back(std::move(c));
    }
    if (!d.ok()) return std::nullopt;
    return r;
}

std::string encode_checkpoint_status(const vertical::aggregate_checkpoint& c,
                                     core::time_point now) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("version", "v3", a);
    doc.AddMember("lastUpdateTime", kube::json_string(core::format_rfc3339(now), a), a);
    if (c.first_sample)
        doc.AddMember("firstSampleStart",
                      kube::json_string(core::format_rfc3339_nano(*c.first_sample), a), a);
    if (c.last_sample)
        doc.AddMember("lastSampleStart",
                      kube::json_string(core::format_rfc3339_nano(*c.last_sample), a), a);
    doc.AddMember("totalSamplesCount", Value(static_cast<std::uint64_t>(c.total_samples)), a);
    doc.AddMember("cpuHistogram", encode_histogram(c.cpu, a), a);
    doc.AddMember("memoryHistogram", encode_histogram(c.memory, a), a);
    return kube::to_json_text(doc);
}

std::optional<vertical::aggregate_checkpoint> decode_checkpoint_status(const kube::json_node& n) {
    kube::json_decoder d;
    if (!n.present() || !d.object(n) || d.opt_string(n["version"]).value_or("") != "v3")
        return std::nullopt;
    vertical::aggregate_checkpoint c;
    const auto cpu = decode_histogram(d, n["cpuHistogram"]);
    const auto memory = decode_histogram(d, n["memoryHistogram"]);
    if (!cpu || !memory) return std::nullopt;
    c.cpu = *cpu;
    c.memory = *memory;
    c.first_sample = d.opt_time(n["firstSampleStart"]);
    c.last_sample = d.opt_time(n["lastSampleStart"]);
    c.total_samples =
        static_cast<std::uint64_t>(d.opt_int(n["totalSamplesCount"], 0, INT64_MAX).value_or(0));
    if (!d.ok()) return std::nullopt;
    return c;
}

} // namespace hpaplus::kinds
