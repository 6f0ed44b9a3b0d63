// sim/apiserver/cel_rules.cpp — compiling a schema's validation rules and running them over an
// object, in apiextensions-apiserver's words.
#include "sim/apiserver/cel_rules.hpp"

#include "sim/api_error.hpp"

#include <algorithm>

namespace hpaplus::sim {
namespace {

std::string trimmed(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\n\r\f\v");
    if (first == std::string_view::npos) return "";
    return std::string(s.substr(first, s.find_last_not_of(" \t\n\r\f\v") - first + 1));
}

std::string rule_struct(const json& r) {
    const std::string reason = string_at(r, "reason");
    const json* optional = member_of(&r, "optionalOldSelf");
    return "apiextensions.ValidationRule{Rule:" + go_quoted(string_at(r, "rule")) +
           ", Message:" + go_quoted(string_at(r, "message")) +
           ", MessageExpression:" + go_quoted(string_at(r, "messageExpression")) + ", Reason:" +
           (reason.empty() ? "(*apiextensions.FieldValueErrorReason)(nil)"
                           : "(*apiextensions.FieldValueErrorReason)(" + go_quoted(reason) + ")") +
           ", FieldPath:" + go_quoted(string_at(r, "fieldPath")) + ", OptionalOldSelf:" +
           (optional && optional->IsBool()
                ? std::string("(*bool)(") + (optional->GetBool() ? "true" : "false") + ")"
                : "(*bool)(nil)") +
           "}";
}

// A fieldPath (`.spec.x`, `.items['a.b']` not supported) resolved against the node's schema.
std::optional<std::string> field_path_of(std::string_view path, const json* schema) {
    if (path.empty() || path[0] != '.') return std::nullopt;
    std::string normalized;
    std::size_t i = 1;
    while (i <= path.size()) {
        const std::size_t dot = std::min(path.find('.', i), path.size());
        const std::string name(path.substr(i, dot - i));
        if (name.empty()) return std::nullopt;
        const json* property = member_of(member_of(schema, "properties"), name.c_str());
        if (!property) return std::nullopt;
        normalized += (normalized.empty() ? "" : ".") + name;
        schema = property;
        i = dot + 1;
    }
    return normalized;
}

struct compiler {
    schema_rules rules;
    field_errors errors;

    void node(const json& schema, const std::string& path, bool root) {
        if (!schema.IsObject()) return;
        if (const json* list = member_of(&schema, "x-kubernetes-validations");
            list && list->IsArray()) {
            for (rapidjson::SizeType i = 0; i < list->Size(); ++i)
                rule((*list)[i], schema,
                     path + ".x-kubernetes-validations[" + std::to_string(i) + "]", root);
        }
        if (const json* properties = member_of(&schema, "properties");
            properties && properties->IsObject())
            for (const auto& p : properties->GetObject())
                node(p.value, path + ".properties[" + p.name.GetString() + "]", false);
        if (const json* items = member_of(&schema, "items")) node(*items, path + ".items", false);
        if (const json* extra = member_of(&schema, "additionalProperties");
            extra && extra->IsObject())
            node(*extra, path + ".additionalProperties", false);
    }

    void rule(const json& r, const json& schema, const std::string& path, bool root) {
        validation_rule v;
        v.rule = string_at(r, "rule");
        v.message = string_at(r, "message");
        v.reason = string_at(r, "reason");
        const std::string message_expression = string_at(r, "messageExpression");
        const std::string field_path = string_at(r, "fieldPath");
        bool ok = true;
        if (trimmed(v.rule).empty()) {
            errors.emplace_back(path + ".rule", "Required value");
            return;
        }
        const cel::compiled rule = cel::compile(v.rule, &schema, cel::result_type::boolean, root);
        if (!rule.ok) {
            errors.emplace_back(path + ".rule", "Invalid value: " + rule_struct(r) +
                                                    ": compilation failed: " + rule.error);
            ok = false;
        }
        if (!message_expression.empty()) {
            const cel::compiled m =
                cel::compile(message_expression, &schema, cel::result_type::string, root);
            if (!m.ok) {
                errors.emplace_back(path + ".messageExpression",
                                    "Invalid value: " + rule_struct(r) +
                                        ": messageExpression compilation failed: " + m.error);
                ok = false;
            } else {
                v.message_expression = *m.ok;
            }
        }
        if (!v.reason.empty() && v.reason != "FieldValueInvalid" &&
            v.reason != "FieldValueForbidden" && v.reason != "FieldValueRequired" &&
            v.reason != "FieldValueDuplicate") {
            errors.emplace_back(path + ".reason",
                                "Unsupported value: " + go_quoted(v.reason) +
                                    ": supported values: \"FieldValueDuplicate\", "
                                    "\"FieldValueForbidden\", \"FieldValueInvalid\", "
                                    "\"FieldValueRequired\"");
            ok = false;
        }
        if (!field_path.empty()) {
            const auto normalized = field_path_of(field_path, &schema);
            if (!normalized) {
                errors.emplace_back(path + ".fieldPath",
                                    "Invalid value: " + go_quoted(field_path) +
                                        ": fieldPath must be a valid path: does not refer to a "
                                        "valid field");
                ok = false;
            } else {
                v.field_path = *normalized;
            }
        }
        if (!ok) return;
        v.program = *rule.ok;
        rules.at[&schema].push_back(std::move(v));
    }
};

const json* items_of(const json& schema) {
    const json* items = member_of(&schema, "items");
    return items && items->IsObject() ? items : nullptr;
}

struct checker {
    const schema_rules& rules;
    const rule_observer* observe;
    field_errors errors;
    std::uint64_t budget = cel::cost_budget;
    bool stopped = false;

    static std::string error_path(const std::string& path) { return path.empty() ? "<nil>" : path; }

    // What the rule reports when `self` breaks it (fieldErrorForReason).
    void report(const validation_rule& r, const json& schema, const std::string& path,
                const std::string& detail) {
        const std::string where = r.field_path.empty()
                                      ? error_path(path)
                                      : (path.empty() ? r.field_path : path + "." + r.field_path);
        const std::string type = "\"" + string_at(schema, "type") + "\"";
        if (r.reason == "FieldValueForbidden")
            errors.emplace_back(where, "Forbidden: " + detail);
        else if (r.reason == "FieldValueRequired")
            errors.emplace_back(where, "Required value: " + detail);
        else if (r.reason == "FieldValueDuplicate")
            errors.emplace_back(where, "Duplicate value: " + type);
        else
            errors.emplace_back(where, "Invalid value: " + type + ": " + detail);
    }

    static std::string error_string(const validation_rule& r) {
        return r.message.empty() ? trimmed(r.rule) : trimmed(r.message);
    }
    static std::string message_or_default(const validation_rule& r) {
        return r.message.empty() ? "failed rule: " + error_string(r) : trimmed(r.message);
    }

    void evaluate(const json& schema, const json& v, const json* old, bool ratchet,
                  const std::string& path) {
        const auto found = rules.at.find(&schema);
        if (found == rules.at.end()) return;
        const cel::value self = cel::value_of(v, &schema);
        const std::optional<cel::value> old_self =
            old ? std::optional<cel::value>(cel::value_of(*old, &schema)) : std::nullopt;
        const std::string type = "\"" + string_at(schema, "type") + "\"";
        for (const validation_rule& r : found->second) {
            if (r.program.uses_old_self && !old_self)
                continue; // transition rules need an old value
            if (budget == 0) {
                errors.emplace_back(error_path(path),
                                    "Invalid value: " + type +
                                        ": validation failed due to running out of cost budget, "
                                        "no further validation rules will be run");
                stopped = true;
                return;
            }
            const auto result = cel::evaluate(r.program, self, old_self ? &*old_self : nullptr,
                                              std::min(budget, cel::per_call_limit));
            budget -= std::min(budget, result.cost);
            if (observe) (*observe)(r, self, result.result);
            const cel::value& out = result.result;
            if (out.is_error()) {
                if (out.s == cel::cost_exceeded) {
                    errors.emplace_back(error_path(path),
                                        "Invalid value: " + type + ": '" + out.s +
                                            "': no further validation rules will be run due to "
                                            "call cost exceeds limit for rule: " +
                                            error_string(r));
                    stopped = true;
                    return;
                }
                if (out.s.rfind("no such overload", 0) == 0)
                    errors.emplace_back(error_path(path),
                                        "Invalid value: " + type + ": '" + out.s +
                                            "': call arguments did not match a supported "
                                            "operator, function or macro signature for rule: " +
                                            error_string(r));
                else
                    errors.emplace_back(error_path(path),
                                        "Invalid value: " + type + ": " + out.s +
                                            " evaluating rule: " + error_string(r));
                continue;
            }
            if (out.k == cel::value::kind::boolean && out.b) continue;
            // A node unchanged since the old object keeps its old errors (ratcheting): upstream
            // answers them with a warning.
            if (!r.program.uses_old_self && ratchet) continue;
            std::string detail = message_or_default(r);
            if (r.message_expression) {
                const auto m =
                    cel::evaluate(*r.message_expression, self, old_self ? &*old_self : nullptr,
                                  std::min(budget, cel::per_call_limit));
                budget -= std::min(budget, m.cost);
                if (m.result.k == cel::value::kind::string) {
                    const std::string text = trimmed(m.result.s);
                    if (!text.empty() && text.find('\n') == std::string::npos &&
                        text.size() <= 5 * 1024)
                        detail = text;
                }
            }
            report(r, schema, path, detail);
        }
    }

    // `ratchet`: the nearest node correlated with the old object is unchanged.
    void walk(const json& schema, const json& v, const json* old, bool ratchet,
              const std::string& path, bool root) {
        if (stopped || !schema.IsObject() || v.IsNull()) return;
        if (old) ratchet = equal(*old, v);
        evaluate(schema, v, old, ratchet, path);
        const std::string prefix = path.empty() ? "" : path + ".";
        if (v.IsObject()) {
            const json* properties = member_of(&schema, "properties");
            const json* extra = member_of(&schema, "additionalProperties");
            for (const auto& m : v.GetObject()) {
                const std::string_view name(m.name.GetString(), m.name.GetStringLength());
                if (root && name == "metadata") continue;
                const json* child = member_of(properties, m.name.GetString());
                const bool is_property = child != nullptr;
                if (!child && extra && extra->IsObject()) child = extra;
                if (!child) continue;
                const json* old_child = old ? member_of(old, m.name.GetString()) : nullptr;
                walk(*child, m.value, old_child, ratchet,
                     is_property ? prefix + std::string(name)
                                 : path + "[" + std::string(name) + "]",
                     false);
            }
        } else if (v.IsArray()) {
            const json* items = items_of(schema);
            if (!items) return;
            const bool keyed = string_at(schema, "x-kubernetes-list-type") == "map";
            const std::vector<std::string> keys = strings_at(schema, "x-kubernetes-list-map-keys");
            for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
                const json* old_item = nullptr;
                if (keyed && old && old->IsArray() && v[i].IsObject())
                    for (const auto& candidate : old->GetArray()) {
                        const bool same =
                            std::all_of(keys.begin(), keys.end(), [&](const std::string& k) {
                                const json* a = member_of(&v[i], k.c_str());
                                const json* b = member_of(&candidate, k.c_str());
                                return (!a && !b) || (a && b && equal(*a, *b));
                            });
                        if (same) {
                            old_item = &candidate;
                            break;
                        }
                    }
                walk(*items, v[i], old_item, ratchet, path + "[" + std::to_string(i) + "]", false);
            }
        }
    }
};

} // namespace

compiled_rules compile_rules(const json& schema, const std::string& path) {
    compiler c;
    c.node(schema, path, true);
    compiled_rules out;
    out.errors = std::move(c.errors);
    if (!c.rules.at.empty()) out.rules = std::make_shared<const schema_rules>(std::move(c.rules));
    return out;
}

field_errors check_rules(const schema_rules& rules, const json& schema, const json& object,
                         const json* old_object, const rule_observer* observe) {
    checker c{rules, observe, {}};
    c.walk(schema, object, old_object, false, "", true);
    return std::move(c.errors);
}

} // namespace hpaplus::sim
