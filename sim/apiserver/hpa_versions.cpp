// sim/apiserver/hpa_versions.cpp — HorizontalPodAutoscaler versions, defaults and TARGETS.
#include "sim/apiserver/hpa_versions.hpp"

#include "net/json_parse.hpp"

#include <optional>
#include <vector>

namespace hpaplus::sim {
namespace {

constexpr const char* metrics_annotation = "autoscaling.alpha.kubernetes.io/metrics";
constexpr const char* current_metrics_annotation =
    "autoscaling.alpha.kubernetes.io/current-metrics";
constexpr const char* conditions_annotation = "autoscaling.alpha.kubernetes.io/conditions";
constexpr const char* behavior_annotation = "autoscaling.alpha.kubernetes.io/behavior";

bool is_cpu_utilization(const json& metric, const char* value_key) {
    return string_at(metric, "type") == "Resource" && string_at(metric, "resource.name") == "cpu" &&
           find_path(metric, std::string("resource.") + value_key + ".averageUtilization") &&
           (std::string_view(value_key) == "current" ||
            string_at(metric, "resource.target.type") == "Utilization");
}

// Moves `value` (JSON text) into annotation `key`.
void annotate(json_doc& obj, const char* key, const json& value) {
    auto& a = obj.GetAllocator();
    if (!find_path(obj, "metadata.annotations"))
        set_path(obj, "metadata.annotations", json(rapidjson::kObjectType), a);
    json* annotations = const_cast<json*>(find_path(obj, "metadata.annotations"));
    const std::string text = to_string(value);
    annotations->RemoveMember(key);
    annotations->AddMember(json(key, a), json(text.c_str(), a), a);
}

// Takes annotation `key` out of `obj` and parses it (a null value when absent or not JSON).
json take_annotation(json_doc& obj, const char* key) {
    json* annotations = const_cast<json*>(find_path(obj, "metadata.annotations"));
    if (!annotations || !annotations->IsObject()) return json();
    const auto it = annotations->FindMember(key);
    if (it == annotations->MemberEnd()) return json();
    json_doc parsed;
    const bool readable =
        it->value.IsString() &&
        net::parse_json(parsed, {it->value.GetString(), it->value.GetStringLength()}).empty();
    annotations->RemoveMember(key);
    if (annotations->ObjectEmpty()) erase_path(obj, "metadata.annotations");
    if (!readable) return json();
    return json(parsed, obj.GetAllocator());
}

json cpu_metric(const char* section, std::int64_t percent, json_alloc& a) {
    json inner(rapidjson::kObjectType);
    if (std::string_view(section) == "target") inner.AddMember("type", "Utilization", a);
    inner.AddMember("averageUtilization", json(percent), a);
    json resource(rapidjson::kObjectType);
    resource.AddMember("name", "cpu", a);
    resource.AddMember(json(section, a), inner, a);
    json m(rapidjson::kObjectType);
    m.AddMember("type", "Resource", a);
    m.AddMember("resource", resource, a);
    return m;
}

void v1_to_v2(json_doc& obj) {
    auto& a = obj.GetAllocator();
    json metrics(rapidjson::kArrayType);
    if (json others = take_annotation(obj, metrics_annotation); others.IsArray())
        for (auto& m : others.GetArray())
            metrics.PushBack(json(m, a), a);
    if (const json* cpu = find_path(obj, "spec.targetCPUUtilizationPercentage");
        cpu && cpu->IsInt64())
        metrics.PushBack(cpu_metric("target", cpu->GetInt64(), a), a);
    if (json* spec = const_cast<json*>(find_path(obj, "spec")); spec && spec->IsObject()) {
        spec->RemoveMember("targetCPUUtilizationPercentage");
        if (!metrics.Empty()) spec->AddMember("metrics", metrics, a);
        if (json behavior = take_annotation(obj, behavior_annotation); behavior.IsObject())
            spec->AddMember("behavior", behavior, a);
    }
    json current(rapidjson::kArrayType);
    if (json others = take_annotation(obj, current_metrics_annotation); others.IsArray())
        for (auto& m : others.GetArray())
            current.PushBack(json(m, a), a);
    json conditions = take_annotation(obj, conditions_annotation);
    if (json* status = const_cast<json*>(find_path(obj, "status")); status && status->IsObject()) {
        if (const json* cpu = find_path(*status, "currentCPUUtilizationPercentage");
            cpu && cpu->IsInt64())
            current.PushBack(cpu_metric("current", cpu->GetInt64(), a), a);
        status->RemoveMember("currentCPUUtilizationPercentage");
        if (!current.Empty()) status->AddMember("currentMetrics", current, a);
        if (conditions.IsArray()) status->AddMember("conditions", conditions, a);
    }
}

void v2_to_v1(json_doc& obj) {
    auto& a = obj.GetAllocator();
    if (json* spec = const_cast<json*>(find_path(obj, "spec")); spec && spec->IsObject()) {
        json others(rapidjson::kArrayType);
        std::optional<std::int64_t> cpu;
        if (const json* metrics = find_path(*spec, "metrics"); metrics && metrics->IsArray())
            for (const auto& m : metrics->GetArray()) {
                if (!cpu && is_cpu_utilization(m, "target"))
                    cpu = find_path(m, "resource.target.averageUtilization")->GetInt64();
                else
                    others.PushBack(json(m, a), a);
            }
        if (!others.Empty()) annotate(obj, metrics_annotation, others);
        if (const json* behavior = find_path(*spec, "behavior"))
            annotate(obj, behavior_annotation, *behavior);
        spec = const_cast<json*>(find_path(obj, "spec")); // annotate may have moved members
        spec->RemoveMember("metrics");
        spec->RemoveMember("behavior");
        if (cpu) spec->AddMember("targetCPUUtilizationPercentage", json(*cpu), a);
    }
    if (json* status = const_cast<json*>(find_path(obj, "status")); status && status->IsObject()) {
        json others(rapidjson::kArrayType);
        std::optional<std::int64_t> cpu;
        if (const json* current = find_path(*status, "currentMetrics");
            current && current->IsArray())
            for (const auto& m : current->GetArray()) {
                if (!cpu && is_cpu_utilization(m, "current"))
                    cpu = find_path(m, "resource.current.averageUtilization")->GetInt64();
                else
                    others.PushBack(json(m, a), a);
            }
        if (!others.Empty()) annotate(obj, current_metrics_annotation, others);
        if (const json* conditions = find_path(*status, "conditions"))
            annotate(obj, conditions_annotation, *conditions);
        status = const_cast<json*>(find_path(obj, "status"));
        status->RemoveMember("currentMetrics");
        status->RemoveMember("conditions");
        if (cpu) status->AddMember("currentCPUUtilizationPercentage", json(*cpu), a);
        // v1's replica counts are not omitempty (v2's currentReplicas is): both always there.
        for (const char* count : {"currentReplicas", "desiredReplicas"})
            if (!status->HasMember(count)) status->AddMember(rapidjson::StringRef(count), 0, a);
    }
}

json policy(const char* type, int value, int period, json_alloc& a) {
    json p(rapidjson::kObjectType);
    p.AddMember("type", json(type, a), a);
    p.AddMember("value", value, a);
    p.AddMember("periodSeconds", period, a);
    return p;
}

// Upstream's GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: unset parts take the defaults.
void default_rules(json& behavior, const char* direction, json_alloc& a) {
    const bool up = std::string_view(direction) == "scaleUp";
    if (!behavior.HasMember(direction))
        behavior.AddMember(json(direction, a), json(rapidjson::kObjectType), a);
    json& rules = behavior[direction];
    if (!rules.IsObject()) return;
    if (!rules.HasMember("stabilizationWindowSeconds"))
        rules.AddMember("stabilizationWindowSeconds", up ? 0 : 300, a);
    if (!rules.HasMember("selectPolicy")) rules.AddMember("selectPolicy", "Max", a);
    if (!rules.HasMember("policies")) {
        json policies(rapidjson::kArrayType);
        if (up) {
            policies.PushBack(policy("Pods", 4, 15, a), a);
            policies.PushBack(policy("Percent", 100, 15, a), a);
        } else {
            policies.PushBack(policy("Percent", 100, 15, a), a);
        }
        rules.AddMember("policies", policies, a);
    }
}

std::string quantity_text(const json* v) {
    if (!v) return "<unknown>";
    if (v->IsString()) return v->GetString();
    return to_string(*v);
}

// `current/target` of a Value or AverageValue target, as upstream's formatHPAMetrics (a Pods
// metric is always an average and says nothing of it).
std::string value_pair(const json& spec, const json* status, const char* section) {
    const std::string s(section);
    const bool average = find_path(spec, s + ".target.averageValue") != nullptr;
    const bool say_average = average && s != "pods";
    const char* field = average ? "averageValue" : "value";
    const json* current = status ? find_path(*status, s + ".current." + field) : nullptr;
    return (current ? quantity_text(current) : "<unknown>") + "/" +
           quantity_text(find_path(spec, s + ".target." + field)) + (say_average ? " (avg)" : "");
}

std::string resource_pair(const json& spec, const json* status, const char* section) {
    const std::string s(section);
    const std::string name = string_at(spec, s + ".name");
    if (const json* average = find_path(spec, s + ".target.averageValue")) {
        const json* current = status ? find_path(*status, s + ".current.averageValue") : nullptr;
        return name + ": " + (current ? quantity_text(current) : "<unknown>") + "/" +
               quantity_text(average);
    }
    std::string current = "<unknown>";
    if (const json* u = status ? find_path(*status, s + ".current.averageUtilization") : nullptr;
        u && u->IsInt64())
        current = std::to_string(u->GetInt64()) + "%";
    std::string target = "<auto>";
    if (const json* u = find_path(spec, s + ".target.averageUtilization"); u && u->IsInt64())
        target = std::to_string(u->GetInt64()) + "%";
    return name + ": " + current + "/" + target;
}

} // namespace

bool is_hpa(const resource_type& t) {
    return t.group == "autoscaling" && t.plural == "horizontalpodautoscalers";
}

void hpa_to_v2(json_doc& obj, std::string_view version) {
    if (!obj.IsObject()) return;
    if (version == "v1") v1_to_v2(obj);
    if (obj.HasMember("apiVersion"))
        obj["apiVersion"].SetString("autoscaling/v2", obj.GetAllocator());
}

json_doc hpa_from_v2(const json& obj, std::string_view version) {
    json_doc out = clone(obj);
    if (!out.IsObject()) return out;
    if (version == "v1") v2_to_v1(out);
    const std::string api_version = "autoscaling/" + std::string(version);
    if (out.HasMember("apiVersion"))
        out["apiVersion"].SetString(api_version.c_str(), out.GetAllocator());
    return out;
}

void drop_empty_status_lists(json_doc& obj) {
    // currentMetrics and conditions are omitempty: an empty list does not survive the decoding
    // and encoding every write goes through upstream.
    json* status = const_cast<json*>(find_path(obj, "status"));
    if (!status || !status->IsObject()) return;
    for (const char* list : {"currentMetrics", "conditions"})
        if (const json* v = member_of(status, list); v && v->IsArray() && v->Empty())
            status->RemoveMember(list);
}

void default_hpa(json_doc& obj) {
    drop_empty_status_lists(obj);
    auto& a = obj.GetAllocator();
    json* spec = const_cast<json*>(find_path(obj, "spec"));
    if (!spec || !spec->IsObject()) return;
    if (!spec->HasMember("minReplicas")) spec->AddMember("minReplicas", 1, a);
    const json* metrics = find_path(*spec, "metrics");
    if (!metrics || !metrics->IsArray() || metrics->Empty()) {
        spec->RemoveMember("metrics");
        json list(rapidjson::kArrayType);
        list.PushBack(cpu_metric("target", 80, a), a);
        spec->AddMember("metrics", list, a);
    }
    if (auto b = spec->FindMember("behavior"); b != spec->MemberEnd() && b->value.IsObject()) {
        default_rules(b->value, "scaleUp", a);
        default_rules(b->value, "scaleDown", a);
    }
}

std::string hpa_targets(const json& obj) {
    const json* specs = find_path(obj, "spec.metrics");
    if (!specs || !specs->IsArray() || specs->Empty()) return "<none>";
    const json* statuses = find_path(obj, "status.currentMetrics");
    std::vector<std::string> list;
    const rapidjson::SizeType count = specs->Size();
    for (rapidjson::SizeType i = 0; i < count && list.size() < 2; ++i) {
        const json& spec = (*specs)[i];
        const json* status =
            statuses && statuses->IsArray() && statuses->Size() > i ? &(*statuses)[i] : nullptr;
        const std::string type = string_at(spec, "type");
        const auto has = [&](const char* section) {
            return status && find_path(*status, section) != nullptr ? status : nullptr;
        };
        if (type == "External")
            list.push_back(value_pair(spec, has("external"), "external"));
        else if (type == "Pods")
            list.push_back(value_pair(spec, has("pods"), "pods"));
        else if (type == "Object")
            list.push_back(value_pair(spec, has("object"), "object"));
        else if (type == "Resource")
            list.push_back(resource_pair(spec, has("resource"), "resource"));
        else if (type == "ContainerResource")
            list.push_back(resource_pair(spec, has("containerResource"), "containerResource"));
        else
            list.push_back("<unknown type>");
    }
    std::string out;
    for (const auto& s : list)
        out += (out.empty() ? "" : ", ") + s;
    if (count > 2) out += " + " + std::to_string(count - 2) + " more...";
    return out;
}

} // namespace hpaplus::sim
