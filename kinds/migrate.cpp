// kinds/migrate.cpp — see the header.
#include "kinds/migrate.hpp"

#include "kinds/api_group.hpp"
#include "kinds/hpa_annotations.hpp"
#include "kube/encode.hpp"

#include <map>

namespace hpaplus::kinds {
namespace {

using json = rapidjson::Value;

std::string text_of(const json& object, const char* key) {
    const auto it = object.FindMember(key);
    return it != object.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

// autoscaling/v1 → v2, as the API server converts: targetCPUUtilizationPercentage is a CPU
// Utilization metric; no target means the default (80 %), which HPAPlus defaults alike.
json v1_spec_as_v2(const json& spec, kube::json_allocator& a) {
    json out(rapidjson::kObjectType);
    for (const char* key : {"scaleTargetRef", "minReplicas", "maxReplicas"})
        if (const auto it = spec.FindMember(key); it != spec.MemberEnd())
            out.AddMember(json(key, a), json(it->value, a), a);
    if (const auto it = spec.FindMember("targetCPUUtilizationPercentage");
        it != spec.MemberEnd() && it->value.IsInt()) {
        json target(rapidjson::kObjectType);
        target.AddMember("type", "Utilization", a);
        target.AddMember("averageUtilization", it->value.GetInt(), a);
        json resource(rapidjson::kObjectType);
        resource.AddMember("name", "cpu", a);
        resource.AddMember("target", target, a);
        json metric(rapidjson::kObjectType);
        metric.AddMember("type", "Resource", a);
        metric.AddMember("resource", resource, a);
        json metrics(rapidjson::kArrayType);
        metrics.PushBack(metric, a);
        out.AddMember("metrics", metrics, a);
    }
    return out;
}

} // namespace

core::outcome<migrated_object> migrate_hpa(const json& hpa) {
    if (!hpa.IsObject()) return std::string("not a JSON object");
    const std::string kind = text_of(hpa, "kind");
    const std::string api_version = text_of(hpa, "apiVersion");
    if (kind != "HorizontalPodAutoscaler")
        return "a " + (kind.empty() ? std::string("document without kind") : kind) +
               ", not a HorizontalPodAutoscaler";
    const bool v1 = api_version == "autoscaling/v1";
    if (!v1 && api_version != "autoscaling/v2" && api_version != "autoscaling/v2beta2")
        return "apiVersion " + api_version +
               " is not autoscaling/v2, autoscaling/v2beta2 or autoscaling/v1";
    const auto metadata = hpa.FindMember("metadata");
    const auto spec = hpa.FindMember("spec");
    if (metadata == hpa.MemberEnd() || !metadata->value.IsObject() || spec == hpa.MemberEnd() ||
        !spec->value.IsObject())
        return std::string("metadata and spec must be objects");

    migrated_object out;
    auto& doc = out.object;
    doc.SetObject();
    auto& a = doc.GetAllocator();
    doc.AddMember("apiVersion", rapidjson::StringRef(group_version), a);
    doc.AddMember("kind", "HPAPlus", a);

    // Metadata the user wrote; what the API server sets belongs to the old object.
    json meta(rapidjson::kObjectType);
    std::map<std::string, std::string> hpaplus_annotations;
    for (const auto& m : metadata->value.GetObject()) {
        const std::string key = m.name.GetString();
        if (key == "annotations" && m.value.IsObject()) {
            json kept(rapidjson::kObjectType);
            for (const auto& an : m.value.GetObject()) {
                const std::string name = an.name.GetString();
                const std::string value = an.value.IsString() ? an.value.GetString() : "";
                if (name.rfind("autoscaling.hpaplus.io/", 0) == 0)
                    hpaplus_annotations[name] = value;
                else if (name != "kubectl.kubernetes.io/last-applied-configuration")
                    kept.AddMember(json(an.name, a), json(an.value, a), a);
            }
            if (kept.MemberCount() > 0) meta.AddMember("annotations", kept, a);
        } else if (key == "name" || key == "namespace" || key == "generateName" ||
                   key == "labels" || key == "ownerReferences" || key == "finalizers") {
            meta.AddMember(json(m.name, a), json(m.value, a), a);
        }
    }
    doc.AddMember("metadata", meta, a);

    json new_spec = v1 ? v1_spec_as_v2(spec->value, a) : json(spec->value, a);
    const hpa_annotations extras = read_hpa_annotations(hpaplus_annotations);
    if (extras.sync_period_seconds)
        new_spec.AddMember("syncPeriodSeconds", *extras.sync_period_seconds, a);
    if (extras.mode) new_spec.AddMember("mode", kube::json_string(*extras.mode, a), a);
    if (extras.rollout_policy)
        new_spec.AddMember("rolloutPolicy", kube::json_string(*extras.rollout_policy, a), a);
    if (extras.pod_selection)
        new_spec.AddMember("podSelection", kube::json_string(*extras.pod_selection, a), a);
    if (extras.unready_pods)
        new_spec.AddMember("unreadyPods", kube::json_string(*extras.unready_pods, a), a);
    doc.AddMember("spec", new_spec, a);
    out.warnings = extras.problems;
    return out;
}

} // namespace hpaplus::kinds
