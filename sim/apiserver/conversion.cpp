// sim/apiserver/conversion.cpp — HPA and Event versions served by conversion.
#include "sim/apiserver/conversion.hpp"

#include "sim/api_error.hpp"
#include "sim/apiserver/hpa_versions.hpp"

#include <array>
#include <utility>

namespace hpaplus::sim {
namespace {

bool is_core_event(const resource_type& t) {
    return t.group.empty() && t.plural == "events";
}

bool is_events_v1(std::string_view group, std::string_view version) {
    return group == "events.k8s.io" && version == "v1";
}

// core/v1 Event field -> events.k8s.io/v1 field (the rest keep their names).
constexpr std::array<std::pair<const char*, const char*>, 7> event_renames{{
    {"involvedObject", "regarding"},
    {"message", "note"},
    {"reportingComponent", "reportingController"},
    {"source", "deprecatedSource"},
    {"firstTimestamp", "deprecatedFirstTimestamp"},
    {"lastTimestamp", "deprecatedLastTimestamp"},
    {"count", "deprecatedCount"},
}};

void rename_members(json& obj, bool to_events_v1, json_alloc& a) {
    for (const auto& [core, events] : event_renames) {
        const char* from = to_events_v1 ? core : events;
        const char* to = to_events_v1 ? events : core;
        const auto it = obj.FindMember(from);
        if (it == obj.MemberEnd()) continue;
        json value(std::move(it->value));
        obj.RemoveMember(from);
        obj.RemoveMember(to);
        obj.AddMember(json(to, a), std::move(value), a);
    }
}

void set_api_version(json_doc& obj, std::string_view group, std::string_view version) {
    const std::string gv =
        group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
    auto& a = obj.GetAllocator();
    obj.RemoveMember("apiVersion");
    obj.AddMember("apiVersion", json(gv.c_str(), a), a);
}

} // namespace

json_doc converted_from_stored(const resource_type& stored, std::string_view group,
                               std::string_view version, const json& obj) {
    if (is_hpa(stored)) return hpa_from_v2(obj, version);
    json_doc out = clone(obj);
    if (!out.IsObject()) return out;
    if (is_core_event(stored) && is_events_v1(group, version))
        rename_members(out, true, out.GetAllocator());
    set_api_version(out, group, version);
    return out;
}

void convert_to_stored(const resource_type& stored, std::string_view group,
                       std::string_view version, json_doc& obj) {
    if (is_hpa(stored)) return hpa_to_v2(obj, version);
    if (!obj.IsObject()) return;
    if (is_core_event(stored) && is_events_v1(group, version))
        rename_members(obj, false, obj.GetAllocator());
    set_api_version(obj, stored.group, stored.version);
}

std::optional<api_error> validate_served_create(const resource_type& stored, std::string_view group,
                                                std::string_view version, const json& obj) {
    if (!is_core_event(stored) || !is_events_v1(group, version)) return std::nullopt;
    // As upstream's ValidateEventCreate does for events.k8s.io/v1.
    std::vector<std::pair<std::string, std::string>> causes;
    const auto required = [&](const char* field) {
        if (string_at(obj, field).empty()) causes.emplace_back(field, "Required value");
    };
    required("eventTime");
    const std::string type = string_at(obj, "type");
    if (type != "Normal" && type != "Warning")
        causes.emplace_back("type", "Invalid value: \"" + type + "\": has invalid value: " + type);
    required("reportingController");
    required("reportingInstance");
    required("action");
    required("reason");
    if (string_at(obj, "note").size() > 1024)
        causes.emplace_back("note", "Too long: may not be more than 1024 bytes");
    if (causes.empty()) return std::nullopt;
    return invalid(stored, string_at(obj, "metadata.name"), std::move(causes));
}

} // namespace hpaplus::sim
