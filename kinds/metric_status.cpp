// kinds/metric_status.cpp — an autoscaling/v2 MetricStatus as the API server serializes it.
#include "kinds/metric_status.hpp"

#include "core/duration.hpp"
#include "policy/metric_evaluation.hpp"

namespace hpaplus::kinds {
namespace {

using rapidjson::Value;

Value encode_identifier(const policy::metric_identifier& id, kube::json_allocator& a) {
    Value v(rapidjson::kObjectType);
    v.AddMember("name", kube::json_string(id.name, a), a);
    if (id.selector) v.AddMember("selector", kube::encode_selector(*id.selector, a), a);
    return v;
}

Value encode_value_status(const policy::metric_value_status& s, kube::json_allocator& a) {
    Value v(rapidjson::kObjectType);
    if (s.value) v.AddMember("value", kube::json_string(s.value->to_string(), a), a);
    if (s.average_value)
        v.AddMember("averageValue", kube::json_string(s.average_value->to_string(), a), a);
    if (s.average_utilization) v.AddMember("averageUtilization", *s.average_utilization, a);
    return v;
}

} // namespace

Value encode_metric_status(const policy::metric_status& s, kube::json_allocator& a) {
    using policy::metric_source_type;
    const char* key = "resource";
    Value source(rapidjson::kObjectType);
    switch (s.type) {
    case metric_source_type::resource:
    case metric_source_type::container_resource:
        source.AddMember("name", kube::json_string(s.resource_name, a), a);
        if (s.type == metric_source_type::container_resource) {
            key = "containerResource";
            source.AddMember("container", kube::json_string(s.container, a), a);
        }
        break;
    case metric_source_type::object:
        key = "object";
        if (s.described_object) {
            Value obj(rapidjson::kObjectType);
            obj.AddMember("kind", kube::json_string(s.described_object->kind, a), a);
            obj.AddMember("name", kube::json_string(s.described_object->name, a), a);
            if (!s.described_object->api_version.empty())
                obj.AddMember("apiVersion", kube::json_string(s.described_object->api_version, a),
                              a);
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
        if (!s.metric.name.empty())
            source.AddMember("name", kube::json_string(s.metric.name, a), a);
        break;
    }
    source.AddMember("current", encode_value_status(s.current, a), a);
    Value v(rapidjson::kObjectType);
    v.AddMember("type", Value(policy::to_string(s.type), a), a);
    v.AddMember(rapidjson::StringRef(key), source, a);
    return v;
}

Value encode_prediction(const policy::decision_stages::prediction_stage& p,
                        kube::json_allocator& a) {
    Value out(rapidjson::kObjectType);
    out.AddMember("value", p.value, a);
    out.AddMember("replicas", p.replicas, a);
    out.AddMember("voting", p.voting, a);
    if (p.period)
        out.AddMember("period", kube::json_string(core::format_go_duration(*p.period), a), a);
    if (p.next_peak)
        out.AddMember("nextPeak", kube::json_string(core::rfc3339(*p.next_peak).view(), a), a);
    return out;
}

} // namespace hpaplus::kinds
