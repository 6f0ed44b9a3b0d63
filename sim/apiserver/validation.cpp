// sim/apiserver/validation.cpp — ValidateHorizontalPodAutoscaler, ValidateDeployment /
// ReplicaSet / StatefulSet / DaemonSet / Job (replicas, selector, restart policy),
// ValidatePriorityClass, ValidateNetworkPolicy, ValidateConfigMap and ValidateSecret (keys), with
// field.Error's formatting of the bad values.
#include "sim/apiserver/validation.hpp"

#include "sim/apiserver/cel_rules.hpp"

#include "sim/pod_state.hpp"

#include "net/base64.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>
#include <vector>

namespace hpaplus::sim {
namespace {

using causes = std::vector<std::pair<std::string, std::string>>;

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

std::string index(const std::string& path, std::size_t i) {
    return path + "[" + std::to_string(i) + "]";
}

// validateScalingRules and validateScalingPolicy of one direction of spec.behavior.
void check_scaling_rules(const json& rules, const std::string& path, causes& out) {
    if (const json* w = find_path(rules, "stabilizationWindowSeconds"); w && w->IsInt64()) {
        if (w->GetInt64() < 0)
            out.emplace_back(path + ".stabilizationWindowSeconds",
                             "Invalid value: " + std::to_string(w->GetInt64()) +
                                 ": must be greater than or equal to zero");
        if (w->GetInt64() > 3600)
            out.emplace_back(path + ".stabilizationWindowSeconds",
                             "Invalid value: " + std::to_string(w->GetInt64()) +
                                 ": must be less than or equal to 3600");
    }
    if (const std::string select = string_at(rules, "selectPolicy");
        !select.empty() && select != "Max" && select != "Min" && select != "Disabled")
        out.emplace_back(path + ".selectPolicy", "Unsupported value: " + go_quoted(select) +
                                                     ": supported values: \"Disabled\", "
                                                     "\"Max\", \"Min\"");
    const json* policies = find_path(rules, "policies");
    if (!policies || !policies->IsArray() || policies->Empty()) {
        out.emplace_back(path + ".policies", "Required value: must specify at least one Policy");
        return;
    }
    for (std::size_t i = 0; i < policies->Size(); ++i) {
        const json& p = (*policies)[static_cast<rapidjson::SizeType>(i)];
        const std::string at = index(path + ".policies", i);
        if (const std::string type = string_at(p, "type"); type != "Pods" && type != "Percent")
            out.emplace_back(at + ".type", "Unsupported value: " + go_quoted(type) +
                                               ": supported values: \"Percent\", \"Pods\"");
        const std::int64_t value = int_at(p, "value", 0), period = int_at(p, "periodSeconds", 0);
        if (value <= 0)
            out.emplace_back(at + ".value", "Invalid value: " + std::to_string(value) +
                                                ": must be greater than zero");
        if (period <= 0)
            out.emplace_back(at + ".periodSeconds", "Invalid value: " + std::to_string(period) +
                                                        ": must be greater than zero");
        if (period > 1800)
            out.emplace_back(at + ".periodSeconds", "Invalid value: " + std::to_string(period) +
                                                        ": must be less than or equal to 1800");
    }
}

// validateMetricSpec: a known source type, and its source set.
void check_metric(const json& m, const std::string& at, causes& out) {
    static const std::pair<const char*, const char*> sources[] = {
        {"ContainerResource", "containerResource"},
        {"External", "external"},
        {"Object", "object"},
        {"Pods", "pods"},
        {"Resource", "resource"}};
    const std::string type = string_at(m, "type");
    if (type.empty()) {
        out.emplace_back(at + ".type", "Required value: must specify a metric source type");
        return;
    }
    for (const auto& [name, field] : sources)
        if (type == name) {
            if (!find_path(m, field))
                out.emplace_back(at + "." + field,
                                 "Required value: must populate information for the given "
                                 "metric source");
            return;
        }
    out.emplace_back(at + ".type", "Unsupported value: " + go_quoted(type) +
                                       ": supported values: \"ContainerResource\", \"External\", "
                                       "\"Object\", \"Pods\", \"Resource\"");
}

void check_hpa_metrics_and_behavior(const json& o, causes& out) {
    if (const json* metrics = find_path(o, "spec.metrics"); metrics && metrics->IsArray())
        for (std::size_t i = 0; i < metrics->Size(); ++i)
            check_metric((*metrics)[static_cast<rapidjson::SizeType>(i)], index("spec.metrics", i),
                         out);
    for (const char* direction : {"scaleUp", "scaleDown"})
        if (const json* rules = find_path(o, std::string("spec.behavior.") + direction);
            rules && rules->IsObject())
            check_scaling_rules(*rules, std::string("spec.behavior.") + direction, out);
}

// ValidatePodSpec's containers: at least one, each named (a DNS-1123 label) once, with an image,
// and no request above its limit. `path` names the spec (`spec`, `spec.template.spec`).
void check_pod_spec(const json* spec, const std::string& path, causes& out) {
    const json* containers = spec ? member_of(spec, "containers") : nullptr;
    if (!containers || !containers->IsArray() || containers->Empty()) {
        out.emplace_back(path + ".containers", "Required value");
        return;
    }
    std::vector<std::string> names;
    for (const char* list : {"containers", "initContainers"}) {
        const json* cs = member_of(spec, list);
        if (!cs || !cs->IsArray()) continue;
        for (std::size_t i = 0; i < cs->Size(); ++i) {
            const json& c = (*cs)[static_cast<rapidjson::SizeType>(i)];
            const std::string at = index(path + "." + list, i);
            const std::string name = string_at(c, "name");
            if (name.empty())
                out.emplace_back(at + ".name", "Required value");
            else if (std::find(names.begin(), names.end(), name) != names.end())
                out.emplace_back(at + ".name", "Duplicate value: " + go_quoted(name));
            names.push_back(name);
            if (string_at(c, "image").empty()) out.emplace_back(at + ".image", "Required value");
            const json* requests = find_path(c, "resources.requests");
            if (!requests || !requests->IsObject()) continue;
            for (const auto& [k, v] : requests->GetObject()) {
                const std::string resource(k.GetString(), k.GetStringLength());
                const auto request = quantity_of(&v);
                const auto limit = quantity_of(container_resource(c, "limits", resource.c_str()));
                if (request && limit && *request > *limit)
                    out.emplace_back(at + ".resources.requests[" + resource + "]",
                                     "Invalid value: " + go_quoted(request->to_string()) +
                                         ": must be less than or equal to " + resource +
                                         " limit of " + limit->to_string());
            }
        }
    }
}

// A Deployment's strategy (ValidateDeploymentStrategy): a known type, no rollingUpdate with
// Recreate, and not both maxUnavailable and maxSurge 0.
void check_strategy(const json& o, causes& out) {
    const std::string type = string_at(o, "spec.strategy.type");
    if (!type.empty() && type != "Recreate" && type != "RollingUpdate")
        out.emplace_back("spec.strategy.type", "Unsupported value: " + go_quoted(type) +
                                                   ": supported values: \"Recreate\", "
                                                   "\"RollingUpdate\"");
    const json* rolling = find_path(o, "spec.strategy.rollingUpdate");
    if (!rolling || !rolling->IsObject()) return;
    if (type == "Recreate") {
        out.emplace_back("spec.strategy.rollingUpdate",
                         "Forbidden: may not be specified when strategy `type` is 'Recreate'");
        return;
    }
    auto zero = [&](const char* field) {
        const json* v = member_of(rolling, field);
        return v && ((v->IsInt64() && v->GetInt64() == 0) ||
                     (v->IsString() && std::string_view(v->GetString()) == "0%"));
    };
    if (zero("maxUnavailable") && zero("maxSurge")) {
        const json* v = member_of(rolling, "maxUnavailable");
        out.emplace_back(
            "spec.strategy.rollingUpdate.maxUnavailable",
            std::string("Invalid value: intstr.IntOrString{Type:") +
                (v->IsString() ? "1, IntVal:0, StrVal:\"0%\"}" : "0, IntVal:0, StrVal:\"\"}") +
                ": may not be 0 when `maxSurge` is 0");
    }
}

void check_not_negative(const json& o, const char* path, causes& out) {
    if (const json* v = find_path(o, path); v && v->IsInt64() && v->GetInt64() < 0)
        out.emplace_back(path, "Invalid value: " + std::to_string(v->GetInt64()) +
                                   ": must be greater than or equal to 0");
}

// field.NotSupported: the value and the supported ones, each quoted.
void check_one_of(const json& o, const char* path, std::initializer_list<const char*> supported,
                  causes& out, bool required = false) {
    const json* v = find_path(o, path);
    if (!v || !v->IsString()) {
        if (required) out.emplace_back(path, "Required value");
        return;
    }
    const std::string value = v->GetString();
    std::string list;
    for (const char* s : supported) {
        if (value == s) return;
        list += (list.empty() ? "" : ", ") + go_quoted(s);
    }
    out.emplace_back(path,
                     "Unsupported value: " + go_quoted(value) + ": supported values: " + list);
}

void check_workload(const resource_type& t, const json& o, causes& out) {
    check_not_negative(o, "spec.replicas", out);
    if (t.plural == "deployments") check_strategy(o, out);
    check_pod_spec(find_path(o, "spec.template.spec"), "spec.template.spec", out);
    if (t.group == "batch") { // ValidateJobSpec
        check_one_of(o, "spec.template.spec.restartPolicy", {"OnFailure", "Never"}, out);
        for (const char* p : {"spec.parallelism", "spec.completions", "spec.backoffLimit"})
            check_not_negative(o, p, out);
        check_one_of(o, "spec.completionMode", {"NonIndexed", "Indexed"}, out);
        if (string_at(o, "spec.completionMode") == "Indexed" && !find_path(o, "spec.completions"))
            out.emplace_back("spec.completions", "Required value: when completion mode is Indexed");
    } else {
        check_one_of(o, "spec.template.spec.restartPolicy", {"Always"}, out);
    }
    if (t.plural == "daemonsets")
        check_one_of(o, "spec.updateStrategy.type", {"OnDelete", "RollingUpdate"}, out, true);
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
        const std::string singular = ascii_lower(t.kind);
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

// Go's %#v of a metav1.LabelSelector, as field.Invalid prints one.
std::string go_label_selector(const json& selector) {
    const json* labels = member_of(&selector, "matchLabels");
    std::string out = "v1.LabelSelector{MatchLabels:";
    out += labels && labels->IsObject() && !labels->ObjectEmpty() ? go_string_map(*labels)
                                                                  : "map[string]string(nil)";
    out += ", MatchExpressions:";
    const json* expressions = member_of(&selector, "matchExpressions");
    if (!expressions || !expressions->IsArray() || expressions->Empty())
        return out + "[]v1.LabelSelectorRequirement(nil)}";
    out += "[]v1.LabelSelectorRequirement{";
    for (rapidjson::SizeType i = 0; i < expressions->Size(); ++i) {
        const json& e = (*expressions)[i];
        out += std::string(i ? ", " : "") +
               "v1.LabelSelectorRequirement{Key:" + go_quoted(string_at(e, "key")) +
               ", Operator:" + go_quoted(string_at(e, "operator")) + ", Values:";
        const auto values = strings_at(e, "values");
        if (values.empty()) {
            out += "[]string(nil)}";
            continue;
        }
        out += "[]string{";
        for (std::size_t j = 0; j < values.size(); ++j)
            out += (j ? ", " : "") + go_quoted(values[j]);
        out += "}}";
    }
    return out + "}}";
}

// ValidateLeaseSpec: a duration above 0 and no negative transition count.
void check_lease(const json& o, causes& out) {
    if (const json* d = find_path(o, "spec.leaseDurationSeconds");
        d && d->IsInt64() && d->GetInt64() <= 0)
        out.emplace_back("spec.leaseDurationSeconds",
                         "Invalid value: " + std::to_string(d->GetInt64()) +
                             ": must be greater than 0");
    if (const json* n = find_path(o, "spec.leaseTransitions");
        n && n->IsInt64() && n->GetInt64() < 0)
        out.emplace_back("spec.leaseTransitions",
                         "Invalid value: " + std::to_string(n->GetInt64()) +
                             ": must be greater than or equal to 0");
}

// ValidatePriorityClass: the system- prefix is the two system classes' only; a user class at most
// 1000000000.
void check_priority_class(const json& o, const json* old, causes& out) {
    const std::string name = string_at(o, "metadata.name");
    const std::int64_t value = int_at(o, "value");
    const json* global = member_of(&o, "globalDefault");
    const bool global_default = global && global->IsTrue();
    if (name.starts_with("system-")) {
        std::string why;
        const std::int64_t known = name == "system-node-critical"      ? 2000001000
                                   : name == "system-cluster-critical" ? 2000000000
                                                                       : -1;
        if (known < 0)
            why = name + " is not a known system priority class";
        else if (value != known)
            why = "value of " + name + " PriorityClass must be " + std::to_string(known);
        else if (global_default)
            why = "globalDefault of " + name + " PriorityClass must be false";
        if (!why.empty())
            out.emplace_back("metadata.name",
                             "Forbidden: priority class names with 'system-' prefix are reserved "
                             "for system use only. error: " +
                                 why);
    } else if (value > 1000000000) {
        out.emplace_back("value", "Forbidden: maximum allowed value of a user defined priority is "
                                  "1000000000");
    }
    check_one_of(o, "preemptionPolicy", {"PreemptLowerPriority", "Never"}, out);
    if (!old) return;
    if (int_at(*old, "value") != value)
        out.emplace_back("value", "Forbidden: may not be changed in an update.");
    if (const std::string before = string_at(*old, "preemptionPolicy");
        before != string_at(o, "preemptionPolicy"))
        out.emplace_back("preemptionPolicy",
                         "Invalid value: " + go_quoted(string_at(o, "preemptionPolicy")) +
                             ": field is immutable");
}

// ValidateNetworkPolicySpec: at most Ingress and Egress, each once.
void check_network_policy(const json& o, causes& out) {
    const json* types = find_path(o, "spec.policyTypes");
    if (!types || !types->IsArray()) return;
    if (types->Size() > 2) {
        out.emplace_back("spec.policyTypes", "Invalid value: " + to_string(*types) +
                                                 ": may not specify more than two policyTypes");
        return;
    }
    for (rapidjson::SizeType i = 0; i < types->Size(); ++i) {
        const std::string at = "spec.policyTypes[" + std::to_string(i) + "]";
        const json& v = (*types)[i];
        const std::string value = v.IsString() ? v.GetString() : "";
        if (value != "Ingress" && value != "Egress")
            out.emplace_back(at, "Unsupported value: " + go_quoted(value) +
                                     ": supported values: \"Ingress\", \"Egress\"");
    }
}

// A core/v1 Event without eventTime (legacyValidateEvent): its involvedObject lives in the
// Event's namespace (an object without one: only an Event in "" or "default").
void check_legacy_event(const json& o, causes& out) {
    if (find_path(o, "eventTime") && !find_path(o, "eventTime")->IsNull()) return;
    const std::string ns = string_at(o, "metadata.namespace");
    const std::string involved = string_at(o, "involvedObject.namespace");
    const bool matches = involved.empty() ? (ns.empty() || ns == "default") : ns == involved;
    if (!matches)
        out.emplace_back("involvedObject.namespace", "Invalid value: " + go_quoted(involved) +
                                                         ": does not match event.namespace");
}

void check_keys(const json& o, causes& out) {
    for (const char* map : {"data", "binaryData"}) {
        const json* data = find_path(o, map);
        if (!data || !data->IsObject()) continue;
        for (const auto& [k, v] : data->GetObject()) {
            const std::string key(k.GetString(), k.GetStringLength());
            if (std::string why = config_key_error(key); !why.empty())
                out.emplace_back(std::string(map) + "[" + key + "]",
                                 "Invalid value: " + go_quoted(key) + ": " + why);
        }
    }
}

// The decoded size of a base64 value (its validity is checked before).
std::size_t decoded_size(const json& v) {
    const auto decoded = net::base64_decode(std::string_view(v.GetString(), v.GetStringLength()));
    return decoded ? decoded->size() : 0;
}

// ValidateSecret: keys (check_keys), the 1 MiB bound, and what each well-known type requires.
void check_secret(const json& o, causes& out) {
    const json* data = find_path(o, "data");
    const auto has = [&](const char* key) {
        return data && data->IsObject() && data->HasMember(key);
    };
    std::size_t total = 0;
    if (data && data->IsObject())
        for (const auto& [k, v] : data->GetObject())
            if (v.IsString()) total += decoded_size(v);
    if (total > 1048576) out.emplace_back("data", "Too long: may not be more than 1048576 bytes");
    const std::string type = string_at(o, "type");
    const auto required = [&](const char* key) {
        out.emplace_back("data[" + std::string(key) + "]", "Required value");
    };
    if (type == "kubernetes.io/service-account-token") {
        const json* name =
            member_of(find_path(o, "metadata.annotations"), "kubernetes.io/service-account.name");
        if (!name || !name->IsString() || name->GetStringLength() == 0)
            out.emplace_back("metadata.annotations[kubernetes.io/service-account.name]",
                             "Required value");
    } else if (type == "kubernetes.io/dockercfg" || type == "kubernetes.io/dockerconfigjson") {
        const char* key = type == "kubernetes.io/dockercfg" ? ".dockercfg" : ".dockerconfigjson";
        if (!has(key)) {
            required(key);
        } else {
            const json& v = (*data)[key];
            const auto text =
                v.IsString()
                    ? net::base64_decode(std::string_view(v.GetString(), v.GetStringLength()))
                    : std::nullopt;
            json_doc parsed;
            if (!text || parsed.Parse(text->c_str()).HasParseError())
                out.emplace_back("data[" + std::string(key) + "]",
                                 "Invalid value: \"<secret contents redacted>\": the content is "
                                 "not JSON");
        }
    } else if (type == "kubernetes.io/basic-auth") {
        if (!has("username") && !has("password")) {
            required("username");
            required("password");
        }
    } else if (type == "kubernetes.io/ssh-auth") {
        if (!has("ssh-privatekey") || decoded_size((*data)["ssh-privatekey"]) == 0)
            required("ssh-privatekey");
    } else if (type == "kubernetes.io/tls") {
        if (!has("tls.crt")) required("tls.crt");
        if (!has("tls.key")) required("tls.key");
    }
}

// ValidateSecretUpdate and ValidateConfigMapUpdate: a Secret's type never changes, and once
// `immutable` is set neither it nor the data may.
void check_immutable_data(const json& o, const json& old, bool secret, causes& out) {
    if (secret && string_at(o, "type") != string_at(old, "type"))
        out.emplace_back("type", "Invalid value: " + go_quoted(string_at(o, "type")) +
                                     ": field is immutable");
    const auto is_true = [](const json& doc) {
        const json* v = find_path(doc, "immutable");
        return v && v->IsBool() && v->GetBool();
    };
    if (!is_true(old)) return;
    const std::string forbidden = "Forbidden: field is immutable when `immutable` is set";
    if (!is_true(o)) out.emplace_back("immutable", forbidden);
    for (const char* field : {"data", "binaryData"}) {
        if (secret && std::string_view(field) == "binaryData") continue;
        const json* before = find_path(old, field);
        const json* after = find_path(o, field);
        const bool empty_before =
            !before || before->IsNull() || (before->IsObject() && before->MemberCount() == 0);
        const bool empty_after =
            !after || after->IsNull() || (after->IsObject() && after->MemberCount() == 0);
        if (empty_before && empty_after) continue;
        if (empty_before != empty_after || !equal(*before, *after))
            out.emplace_back(field, forbidden);
    }
}

// A Secret's data is []byte: JSON carries it as base64, and a value that is not is the decoder's
// 400, before validation.
std::optional<api_error> secret_encoding_error(const json& o) {
    const json* data = find_path(o, "data");
    if (!data || !data->IsObject()) return std::nullopt;
    for (const auto& [k, v] : data->GetObject()) {
        if (!v.IsString()) continue;
        const std::string_view text(v.GetString(), v.GetStringLength());
        if (net::base64_decode(text)) continue;
        std::size_t at = 0;
        while (at < text.size() && (std::isalnum(static_cast<unsigned char>(text[at])) ||
                                    text[at] == '+' || text[at] == '/'))
            ++at;
        return bad_request("Secret in version \"v1\" cannot be handled as a Secret: illegal "
                           "base64 data at input byte " +
                           std::to_string(at));
    }
    return std::nullopt;
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
        out += (first ? "" : ", ") + go_quoted(k) + ":" + go_quoted(v);
        first = false;
    }
    return out + "}";
}

namespace {

// Every x-kubernetes-validations rule of every version's schema compiles (the CRD strategy
// compiles them on write).
void check_crd_rules(const json& crd, causes& found) {
    const json* versions = find_path(crd, "spec.versions");
    if (!versions || !versions->IsArray() || versions->Empty()) return;
    // Versions that share one schema are validated as the internal type holds them: once, as
    // `spec.validation`.
    const json* first = find_path((*versions)[0], "schema.openAPIV3Schema");
    bool shared = first != nullptr;
    for (const auto& v : versions->GetArray()) {
        const json* schema = find_path(v, "schema.openAPIV3Schema");
        shared = shared && schema && equal(*schema, *first);
    }
    for (rapidjson::SizeType i = 0; i < (shared ? 1 : versions->Size()); ++i) {
        const json* schema = find_path((*versions)[i], "schema.openAPIV3Schema");
        if (!schema || !schema->IsObject()) continue;
        auto compiled = compile_rules(*schema, shared ? "spec.validation.openAPIV3Schema"
                                                      : "spec.versions[" + std::to_string(i) +
                                                            "].schema.openAPIV3Schema");
        for (auto& e : compiled.errors)
            found.push_back(std::move(e));
    }
}

} // namespace

std::optional<api_error> validate_builtin(const resource_type& type, const std::string& name,
                                          const json& object, const json* old) {
    if (type.custom) return std::nullopt;
    const bool secret = type.group.empty() && type.plural == "secrets";
    if (secret)
        if (auto e = secret_encoding_error(object)) return e;
    causes found;
    if (type.group == "coordination.k8s.io" && type.plural == "leases") check_lease(object, found);
    if (type.group.empty() && type.plural == "events") check_legacy_event(object, found);
    // apps/v1 selectors are immutable (ValidateDeploymentUpdate and its siblings).
    const bool workload =
        (type.group == "apps" && (type.plural == "deployments" || type.plural == "replicasets" ||
                                  type.plural == "statefulsets" || type.plural == "daemonsets")) ||
        (type.group == "batch" && type.plural == "jobs");
    if (old && workload) {
        const json* before = find_path(*old, "spec.selector");
        const json* after = find_path(object, "spec.selector");
        if (before && after && !equal(*before, *after))
            found.emplace_back("spec.selector", "Invalid value: " + go_label_selector(*after) +
                                                    ": field is immutable");
    }
    if (type.group == "autoscaling" && type.plural == "horizontalpodautoscalers") {
        check_hpa(object, found);
        check_hpa_metrics_and_behavior(object, found);
    } else if (type.group.empty() && type.plural == "pods") {
        check_pod_spec(find_path(object, "spec"), "spec", found);
    }
    if (type.group == "apiextensions.k8s.io" && type.plural == "customresourcedefinitions")
        check_crd_rules(object, found);
    if (old && type.group == "batch") // ValidateJobSpecUpdate (completions: not Indexed here)
        if (const json* before = find_path(*old, "spec.completions"),
            *after = find_path(object, "spec.completions");
            before && after && !equal(*before, *after) &&
            string_at(object, "spec.completionMode") != "Indexed")
            found.emplace_back("spec.completions",
                               "Invalid value: " + to_string(*after) + ": field is immutable");
    if (type.group == "apps" && type.plural == "controllerrevisions")
        check_not_negative(object, "revision", found);
    if (type.group == "scheduling.k8s.io" && type.plural == "priorityclasses")
        check_priority_class(object, old, found);
    if (type.group == "networking.k8s.io" && type.plural == "networkpolicies")
        check_network_policy(object, found);
    if (workload)
        check_workload(type, object, found);
    else if (type.group.empty() && (type.plural == "configmaps" || secret)) {
        if (old) check_immutable_data(object, *old, secret, found);
        check_keys(object, found);
        if (secret) check_secret(object, found);
    }
    if (found.empty()) return std::nullopt;
    return invalid(type, name, std::move(found));
}

} // namespace hpaplus::sim
