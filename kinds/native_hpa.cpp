// kinds/native_hpa.cpp — see the header.
#include "kinds/native_hpa.hpp"

#include <rapidjson/document.h>

namespace hpaplus::kinds {
namespace {

const rapidjson::Value* member(const rapidjson::Value& v, const char* name) {
    if (!v.IsObject()) return nullptr;
    const auto it = v.FindMember(name);
    return it == v.MemberEnd() ? nullptr : &it->value;
}

std::string text(const rapidjson::Value& v, const char* name) {
    const auto* m = member(v, name);
    return m && m->IsString() ? std::string(m->GetString(), m->GetStringLength()) : std::string();
}

std::map<std::string, std::string> hpaplus_annotations(const rapidjson::Value& object) {
    std::map<std::string, std::string> ours;
    const auto* metadata = member(object, "metadata");
    const auto* annotations = metadata ? member(*metadata, "annotations") : nullptr;
    if (annotations && annotations->IsObject())
        for (const auto& m : annotations->GetObject())
            if (m.value.IsString() &&
                std::string_view(m.name.GetString()).starts_with("autoscaling.hpaplus.io/"))
                ours.emplace(m.name.GetString(), m.value.GetString());
    return ours;
}

} // namespace

hpa_annotations hpa_annotations_of(const rapidjson::Value& object) {
    return read_hpa_annotations(hpaplus_annotations(object));
}

std::string hpaplus_annotations_text(const rapidjson::Value& object) {
    std::string out;
    for (const auto& [key, value] : hpaplus_annotations(object))
        out += key + "=" + value + "\n";
    return out;
}

void apply_hpa_annotations(const hpa_annotations& a, policy::autoscaler_spec& spec) {
    if (a.sync_period_seconds) spec.sync_period_seconds = a.sync_period_seconds;
    if (a.mode) spec.mode = policy::parse_run_mode(*a.mode).value_or(policy::run_mode::automatic);
    if (a.rollout_policy)
        spec.rollout = policy::parse_rollout_policy(*a.rollout_policy)
                           .value_or(policy::rollout_policy::continue_scaling);
    if (a.pod_selection)
        spec.pods = policy::parse_pod_selection(*a.pod_selection)
                        .value_or(policy::pod_selection::label_selector);
    if (a.unready_pods)
        spec.unready =
            policy::parse_unready_pods(*a.unready_pods).value_or(policy::unready_pods::ignore);
}

bool asks_for_hpaplus(const rapidjson::Value& object) {
    const auto* metadata = member(object, "metadata");
    const auto* annotations = metadata ? member(*metadata, "annotations") : nullptr;
    return annotations && text(*annotations, controller_annotation) == "hpaplus";
}

std::vector<status_write> status_writes(const rapidjson::Value& object) {
    std::vector<status_write> out;
    const auto* metadata = member(object, "metadata");
    const auto* entries = metadata ? member(*metadata, "managedFields") : nullptr;
    if (!entries || !entries->IsArray()) return out;
    for (const auto& e : entries->GetArray()) {
        if (text(e, "subresource") != "status") continue;
        const auto time = core::parse_rfc3339(text(e, "time"));
        if (!time) continue;
        out.push_back({text(e, "manager"), *time});
    }
    return out;
}

} // namespace hpaplus::kinds
