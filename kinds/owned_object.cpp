// kinds/owned_object.cpp — a new object of ours owned by another.
#include "kinds/owned_object.hpp"

#include "kinds/api_group.hpp"
#include "kube/encode.hpp"

#include <rapidjson/document.h>

namespace hpaplus::kinds {

std::string owned_object(std::string_view kind, std::string_view name, const owner_of& owner,
                         const std::vector<std::pair<std::string_view, std::string_view>>& spec) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    const auto text = [&](std::string_view s) { return kube::json_string(s, a); };
    rapidjson::Value reference(rapidjson::kObjectType);
    reference.AddMember("apiVersion", rapidjson::StringRef(group_version), a);
    reference.AddMember("kind", text(owner.kind), a);
    reference.AddMember("name", text(owner.name), a);
    reference.AddMember("uid", text(owner.uid), a);
    rapidjson::Value owners(rapidjson::kArrayType);
    owners.PushBack(reference, a);
    rapidjson::Value metadata(rapidjson::kObjectType);
    metadata.AddMember("name", text(name), a);
    metadata.AddMember("ownerReferences", owners, a);
    rapidjson::Value fields(rapidjson::kObjectType);
    for (const auto& [key, value] : spec)
        fields.AddMember(text(key), text(value), a);
    doc.AddMember("apiVersion", rapidjson::StringRef(group_version), a);
    doc.AddMember("kind", text(kind), a);
    doc.AddMember("metadata", metadata, a);
    doc.AddMember("spec", fields, a);
    return kube::to_json_text(doc);
}

} // namespace hpaplus::kinds
