// kube/encode_status.cpp — MetricStatus, conditions and selectors as the API server serializes
// them.
#include "kube/encode.hpp"

#include "policy/metric_evaluation.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace hpaplus::kube {
namespace {

using rapidjson::Value;

Value encode_identifier(const policy::metric_identifier& id, json_allocator& a) {
    Value v(rapidjson::kObjectType);
    v.AddMember("name", json_string(id.name, a), a);
    if (id.selector) v.AddMember("selector", encode_selector(*id.selector, a), a);
    return v;
}

Value encode_value_status(const policy::metric_value_status& s, json_allocator& a) {
    Value v(rapidjson::kObjectType);
    if (s.value) v.AddMember("value", json_string(s.value->to_string(), a), a);
    if (s.average_value)
        v.AddMember("averageValue", json_string(s.average_value->to_string(), a), a);
    if (s.average_utilization) v.AddMember("averageUtilization", *s.average_utilization, a);
    return v;
}

const char* status_word(policy::condition_status s) {
    switch (s) {
    case policy::condition_status::true_:
        return "True";
    case policy::condition_status::false_:
        return "False";
    case policy::condition_status::unknown:
        return "Unknown";
    }
    return "Unknown";
}

} // namespace

Value json_string(std::string_view s, json_allocator& a) {
    return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

Value encode_selector(const core::label_selector_spec& s, json_allocator& a) {
    Value v(rapidjson::kObjectType);
    if (!s.match_labels.empty()) {
        Value labels(rapidjson::kObjectType);
        for (const auto& [k, val] : s.match_labels)
            labels.AddMember(json_string(k, a), json_string(val, a), a);
        v.AddMember("matchLabels", labels, a);
    }
    if (!s.match_expressions.empty()) {
        Value exprs(rapidjson::kArrayType);
        for (const auto& e : s.match_expressions) {
            Value ev(rapidjson::kObjectType);
            ev.AddMember("key", json_string(e.key, a), a);
            ev.AddMember("operator", json_string(e.op, a), a);
            if (!e.values.empty()) {
                Value values(rapidjson::kArrayType);
                for (const auto& val : e.values)
                    values.PushBack(json_string(val, a), a);
                ev.AddMember("values", values, a);
            }
            exprs.PushBack(ev, a);
        }
        v.AddMember("matchExpressions", exprs, a);
    }
    return v;
}

Value encode_metric_status(const policy::metric_status& s, json_allocator& a) {
    using policy::metric_source_type;
    const char* key = "resource";
    Value source(rapidjson::kObjectType);
    switch (s.type) {
    case metric_source_type::resource:
    case metric_source_type::container_resource:
        source.AddMember("name", json_string(s.resource_name, a), a);
        if (s.type == metric_source_type::container_resource) {
            key = "containerResource";
            source.AddMember("container", json_string(s.container, a), a);
        }
        break;
    case metric_source_type::object:
        key = "object";
        if (s.described_object) {
            Value obj(rapidjson::kObjectType);
            obj.AddMember("kind", json_string(s.described_object->kind, a), a);
            obj.AddMember("name", json_string(s.described_object->name, a), a);
            if (!s.described_object->api_version.empty())
                obj.AddMember("apiVersion", json_string(s.described_object->api_version, a), a);
            source.AddMember("describedObject", obj, a);
        }
        source.AddMember("metric", encode_identifier(s.metric, a), a);
        break;
    case metric_source_type::pods:
    case metric_source_type::external:
        key = s.type == metric_source_type::pods ? "pods" : "external";
        source.AddMember("metric", encode_identifier(s.metric, a), a);
        break;
    case metric_source_type::formula: // HPAPlus
        key = "formula";
        if (!s.metric.name.empty()) source.AddMember("name", json_string(s.metric.name, a), a);
        break;
    }
    source.AddMember("current", encode_value_status(s.current, a), a);
    Value v(rapidjson::kObjectType);
    v.AddMember("type", Value(policy::to_string(s.type), a), a);
    v.AddMember(rapidjson::StringRef(key), source, a);
    return v;
}

Value encode_conditions(const std::vector<policy::condition>& conditions, json_allocator& a) {
    Value list(rapidjson::kArrayType);
    for (const auto& c : conditions) {
        Value v(rapidjson::kObjectType);
        v.AddMember("type", json_string(c.type, a), a);
        v.AddMember("status", Value(status_word(c.status), a), a);
        if (c.last_transition_time)
            v.AddMember("lastTransitionTime",
                        json_string(core::format_rfc3339(*c.last_transition_time), a), a);
        v.AddMember("reason", json_string(c.reason, a), a);
        v.AddMember("message", json_string(c.message, a), a);
        list.PushBack(v, a);
    }
    return list;
}

std::string to_json_text(const rapidjson::Value& v) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    v.Accept(writer);
    return std::string(buffer.GetString(), buffer.GetSize());
}

} // namespace hpaplus::kube
