// sim/managed_fields.cpp — metadata.managedFields bookkeeping.
#include "sim/managed_fields.hpp"

#include <vector>

namespace hpaplus::sim {
namespace {

// {"f:a":{"f:b":{}}, ...} for the members of `part` (two levels; "." marks a set object itself).
json field_set(const json& part, int depth, json_alloc& a) {
    json out(rapidjson::kObjectType);
    if (!part.IsObject()) return out;
    if (depth < 2) out.AddMember(".", json(rapidjson::kObjectType), a);
    for (const auto& m : part.GetObject()) {
        const std::string key = std::string("f:") + m.name.GetString();
        out.AddMember(json(key.c_str(), a),
                      depth > 0 && m.value.IsObject() ? field_set(m.value, depth - 1, a)
                                                      : json(rapidjson::kObjectType),
                      a);
    }
    return out;
}

// The fields a write owns: `f:status` for a status write; spec, labels and annotations (and any
// other top-level content) for a write of the object.
json written_fields(const json& obj, bool status_write, json_alloc& a) {
    json out(rapidjson::kObjectType);
    if (status_write) {
        if (const json* status = find_path(obj, "status"))
            out.AddMember("f:status", field_set(*status, 1, a), a);
        return out;
    }
    json metadata(rapidjson::kObjectType);
    for (const char* key : {"labels", "annotations"})
        if (const json* v = find_path(obj, std::string("metadata.") + key); v && v->IsObject())
            metadata.AddMember(json((std::string("f:") + key).c_str(), a), field_set(*v, 0, a), a);
    if (metadata.MemberCount() > 0) out.AddMember("f:metadata", metadata, a);
    for (const auto& m : obj.GetObject()) {
        const std::string_view name = m.name.GetString();
        if (name == "apiVersion" || name == "kind" || name == "metadata" || name == "status")
            continue;
        out.AddMember(json((std::string("f:") + m.name.GetString()).c_str(), a),
                      field_set(m.value, 1, a), a);
    }
    return out;
}

// Removes from `owned` every field `taken` names (recursively); true when nothing is left.
bool remove_fields(json& owned, const json& taken) {
    if (!owned.IsObject() || !taken.IsObject()) return false;
    std::vector<std::string> drop;
    for (auto& m : owned.GetObject()) {
        const std::string_view name = m.name.GetString();
        if (name == ".") continue;
        const auto t = taken.FindMember(m.name);
        if (t == taken.MemberEnd()) continue;
        const bool leaf = m.value.ObjectEmpty() || t->value.ObjectEmpty();
        if (leaf || remove_fields(m.value, t->value)) drop.emplace_back(name);
    }
    for (const auto& name : drop)
        owned.RemoveMember(name.c_str());
    for (const auto& m : owned.GetObject())
        if (std::string_view(m.name.GetString()) != ".") return false;
    return true;
}

std::string_view text_of(const json& entry, const char* key) {
    const auto it = entry.FindMember(key);
    return it != entry.MemberEnd() && it->value.IsString()
               ? std::string_view(it->value.GetString(), it->value.GetStringLength())
               : std::string_view();
}

} // namespace

std::string field_manager_of(std::string_view field_manager, std::string_view user_agent) {
    std::string_view name = field_manager;
    if (name.empty()) name = user_agent.substr(0, user_agent.find('/'));
    return std::string(name.substr(0, 128));
}

void record_write(json_doc& next, const json* previous, const write_origin& origin,
                  bool status_write, core::time_point now) {
    auto& a = next.GetAllocator();
    if (origin.applied_fields) {
        set_path(next, "metadata.managedFields", json(*origin.applied_fields, a), a);
        return;
    }
    const std::string_view subresource = status_write ? "status" : "";
    json fields = written_fields(next, status_write, a);
    json entries(rapidjson::kArrayType);
    if (previous && previous->IsArray()) {
        for (const auto& e : previous->GetArray()) {
            if (!e.IsObject()) continue;
            const bool same_subresource = text_of(e, "subresource") == subresource;
            if (same_subresource && text_of(e, "manager") == origin.manager &&
                text_of(e, "operation") == "Update")
                continue; // replaced below
            json copy(e, a);
            if (same_subresource) {
                if (auto f = copy.FindMember("fieldsV1");
                    f != copy.MemberEnd() && remove_fields(f->value, fields))
                    continue; // this manager owns nothing any more
            }
            entries.PushBack(copy, a);
        }
    }
    json entry(rapidjson::kObjectType);
    entry.AddMember("manager", json(origin.manager.c_str(), a), a);
    entry.AddMember("operation", "Update", a);
    entry.AddMember("apiVersion", json(origin.api_version.c_str(), a), a);
    entry.AddMember("time", json(core::format_rfc3339(now).c_str(), a), a);
    entry.AddMember("fieldsType", "FieldsV1", a);
    entry.AddMember("fieldsV1", fields, a);
    if (status_write) entry.AddMember("subresource", "status", a);
    entries.PushBack(entry, a);
    set_path(next, "metadata.managedFields", std::move(entries), a);
}

} // namespace hpaplus::sim
