// sim/apiserver/audit.cpp — the audit log and its EventList.
#include "sim/apiserver/audit.hpp"

#include "sim/json_util.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace hpaplus::sim {

void audit_log::record(audit_event e) {
    e.id = next_id_++;
    events_.push_back(std::move(e));
    while (events_.size() > capacity_)
        events_.pop_front();
}

std::string audit_log::event_list(std::string_view resource, std::uint64_t after) const {
    rapidjson::StringBuffer out;
    rapidjson::Writer<rapidjson::StringBuffer> w(out);
    const auto text = [&](std::string_view s) {
        w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    };
    const auto field = [&](const char* key, std::string_view value) {
        if (value.empty()) return;
        w.Key(key);
        text(value);
    };
    w.StartObject();
    field("kind", "EventList");
    field("apiVersion", "audit.k8s.io/v1");
    w.Key("metadata");
    w.StartObject();
    w.EndObject();
    w.Key("items");
    w.StartArray();
    for (const audit_event& e : events_) {
        if (e.id <= after || (!resource.empty() && e.resource != resource)) continue;
        w.StartObject();
        field("level", "Metadata");
        field("auditID", std::to_string(e.id));
        field("stage", "ResponseComplete");
        field("verb", e.verb);
        w.Key("user");
        w.StartObject();
        field("username", e.user.name);
        field("uid", e.user.uid);
        w.Key("groups");
        w.StartArray();
        for (const auto& g : e.user.groups)
            text(g);
        w.EndArray();
        if (!e.user.extra.empty()) {
            w.Key("extra");
            w.StartObject();
            for (const auto& [key, values] : e.user.extra) {
                w.Key(key.c_str(), static_cast<rapidjson::SizeType>(key.size()));
                w.StartArray();
                for (const auto& v : values)
                    text(v);
                w.EndArray();
            }
            w.EndObject();
        }
        w.EndObject();
        field("userAgent", e.user_agent);
        w.Key("objectRef");
        w.StartObject();
        field("resource", e.resource);
        field("namespace", e.ns);
        field("name", e.name);
        field("apiGroup", e.group);
        field("apiVersion", e.version);
        field("subresource", e.subresource);
        w.EndObject();
        w.Key("responseStatus");
        w.StartObject();
        w.Key("metadata");
        w.StartObject();
        w.EndObject();
        w.Key("code");
        w.Int(e.code);
        w.EndObject();
        field("requestReceivedTimestamp", core::format_rfc3339_nano(e.received));
        field("stageTimestamp", core::format_rfc3339_nano(e.completed));
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    return std::string(out.GetString(), out.GetSize());
}

} // namespace hpaplus::sim
