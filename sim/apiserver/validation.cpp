// sim/apiserver/validation.cpp — ValidateHorizontalPodAutoscaler, ValidateDeployment /
// ReplicaSet / StatefulSet (replicas, selector), ValidateConfigMap and ValidateSecret (keys), with
// field.Error's formatting of the bad values.
#include "sim/apiserver/validation.hpp"

#include <map>
#include <utility>
#include <vector>

namespace hpaplus::sim {
namespace {

using causes = std::vector<std::pair<std::string, std::string>>;

std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

void check_hpa(const json& o, causes& out) {
    // The HPAScaleToZero feature gate is off by default: minReplicas is at least 1.
    const json* min = find_path(o, "spec.minReplicas");
    const std::int64_t max = int_at(o, "spec.maxReplicas", 0);
    if (min && min->IsInt64() && min->GetInt64() < 1)
        out.emplace_back("spec.minReplicas", "Invalid value: " + std::to_string(min->GetInt64()) +
                                                 ": must be greater than or equal to 1");
    if (max < 1)
        out.emplace_back("spec.maxReplicas",
                         "Invalid value: " + std::to_string(max) + ": must be greater than 0");
    if (min && min->IsInt64() && max < min->GetInt64())
        out.emplace_back("spec.maxReplicas",
                         "Invalid value: " + std::to_string(max) +
                             ": must be greater than or equal to `minReplicas`");
}

void check_workload(const resource_type& t, const json& o, causes& out) {
    if (const json* r = find_path(o, "spec.replicas"); r && r->IsInt64() && r->GetInt64() < 0)
        out.emplace_back("spec.replicas", "Invalid value: " + std::to_string(r->GetInt64()) +
                                              ": must be greater than or equal to 0");
    const json* selector = find_path(o, "spec.selector");
    if (!selector || selector->IsNull()) {
        out.emplace_back("spec.selector", "Required value");
        return;
    }
    const json* labels = find_path(*selector, "matchLabels");
    const json* expressions = find_path(*selector, "matchExpressions");
    const bool empty = (!labels || !labels->IsObject() || labels->ObjectEmpty()) &&
                       (!expressions || !expressions->IsArray() || expressions->Empty());
    if (empty) {
        std::string singular = t.kind;
        for (auto& c : singular)
            c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        out.emplace_back("spec.selector",
                         "Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
                         "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is "
                         "invalid for " +
                             singular);
        return;
    }
    auto parsed = label_selector_of(selector);
    const json* template_labels = find_path(o, "spec.template.metadata.labels");
    const core::label_map have = template_labels ? labels_of(*template_labels) : core::label_map{};
    if (parsed && !parsed->matches(have))
        out.emplace_back("spec.template.metadata.labels",
                         "Invalid value: " +
                             (template_labels ? go_string_map(*template_labels)
                                              : std::string("map[string]string(nil)")) +
                             ": `selector` does not match template `labels`");
}

// IsConfigMapKey: what a key of a ConfigMap's or Secret's data may be.
std::string config_key_error(const std::string& key) {
    if (key.size() > 253) return "must be no more than 253 characters";
    if (key.empty() || key.find_first_not_of("-._abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW"
                                             "XYZ0123456789") != std::string::npos)
        return "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
               "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
               "'[-._a-zA-Z0-9]+')";
    if (key == ".") return "must not be '.'";
    if (key == "..") return "must not be '..'";
    if (key.rfind("..", 0) == 0) return "must not start with '..'";
    return "";
}

void check_keys(const json& o, causes& out) {
    for (const char* map : {"data", "binaryData"}) {
        const json* data = find_path(o, map);
        if (!data || !data->IsObject()) continue;
        for (const auto& [k, v] : data->GetObject()) {
            const std::string key(k.GetString(), k.GetStringLength());
            if (std::string why = config_key_error(key); !why.empty())
                out.emplace_back(std::string(map) + "[" + key + "]",
                                 "Invalid value: " + quoted(key) + ": " + why);
        }
    }
}

} // namespace

std::string go_string_map(const json& object) {
    std::map<std::string, std::string> sorted;
    if (object.IsObject())
        for (const auto& [k, v] : object.GetObject())
            if (v.IsString()) sorted.emplace(k.GetString(), v.GetString());
    std::string out = "map[string]string{";
    bool first = true;
    for (const auto& [k, v] : sorted) {
        out += (first ? "" : ", ") + quoted(k) + ":" + quoted(v);
        first = false;
    }
    return out + "}";
}

std::optional<api_error> validate_builtin(const resource_type& type, const std::string& name,
                                          const json& object) {
    if (type.custom) return std::nullopt;
    causes found;
    if (type.group == "autoscaling" && type.plural == "horizontalpodautoscalers")
        check_hpa(object, found);
    else if (type.group == "apps" &&
             (type.plural == "deployments" || type.plural == "replicasets" ||
              type.plural == "statefulsets"))
        check_workload(type, object, found);
    else if (type.group.empty() && (type.plural == "configmaps" || type.plural == "secrets"))
        check_keys(object, found);
    if (found.empty()) return std::nullopt;
    return invalid(type, name, std::move(found));
}

} // namespace hpaplus::sim
