// sim/pod_state.cpp — readings of pod state.
#include "sim/pod_state.hpp"

namespace hpaplus::sim {

bool pod_ready(const stored_object& pod) {
    const json* conditions = find_path(pod.doc, "status.conditions");
    if (!conditions || !conditions->IsArray()) return false;
    for (const auto& c : conditions->GetArray())
        if (string_at(c, "type") == "Ready") return string_at(c, "status") == "True";
    return false;
}

std::string deployment_owner_uid(const stored_object& pod) {
    const json* owners = find_path(pod.doc, "metadata.ownerReferences");
    if (!owners || !owners->IsArray()) return {};
    for (const auto& o : owners->GetArray())
        if (string_at(o, "kind") == "Deployment") return string_at(o, "uid");
    return {};
}

std::string annotation(const json& obj, const std::string& key) {
    const json* annotations = find_path(obj, "metadata.annotations");
    if (!annotations || !annotations->IsObject()) return {};
    const auto it = annotations->FindMember(key.c_str());
    return it != annotations->MemberEnd() && it->value.IsString() ? it->value.GetString()
                                                                  : std::string();
}

} // namespace hpaplus::sim
