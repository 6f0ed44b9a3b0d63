// sim/apiserver/cel_rules.hpp — a CRD schema's `x-kubernetes-validations`, as kube-apiserver
// (1.33) runs them: compiled when the CRD is written (a rule that does not compile, a bad
// `reason` or `fieldPath` refuses the CRD), evaluated on every write of a custom resource after
// the structural schema passed (sim/apiserver/schema.hpp), at each node of the object the rule's
// schema node types, with `oldSelf` bound on updates where the old object has a value at the same
// place (transition rules run only then), `messageExpression`, `reason` and `fieldPath` as
// upstream reports them, errors of a node unchanged since the old object ratcheted away
// (CRDValidationRatcheting), and the per-call and per-object cost limits.
#pragma once

#include "sim/apiserver/cel.hpp"
#include "sim/apiserver/schema.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace hpaplus::sim {

struct validation_rule {
    std::string rule;       ///< the source
    std::string message;    ///< as written (trimmed when reported)
    std::string reason;     ///< "" = FieldValueInvalid
    std::string field_path; ///< relative to the rule's node, without the leading dot
    cel::program program;
    std::optional<cel::program> message_expression;
};

/// The compiled rules of one schema, by the schema node they sit on.
struct schema_rules {
    std::unordered_map<const json*, std::vector<validation_rule>> at;
};

struct compiled_rules {
    std::shared_ptr<const schema_rules> rules; ///< null when the schema has none
    field_errors errors;                       ///< where in the CRD, and why
};

/// Compiles every rule of `schema`; `path` names the schema in the CRD
/// (`spec.versions[0].schema.openAPIV3Schema`) for the errors.
compiled_rules compile_rules(const json& schema, const std::string& path);

/// Sees each evaluation of a rule (tests compare the evaluator with another implementation).
using rule_observer =
    std::function<void(const validation_rule&, const cel::value& self, const cel::value& result)>;

/// The rules' errors for `object` (and `old_object` on an update), `schema` being the one the
/// rules were compiled from.
field_errors check_rules(const schema_rules& rules, const json& schema, const json& object,
                         const json* old_object, const rule_observer* observe = nullptr);

/// The error the real server reports instead of evaluating the rules when the schema already
/// refused the object's shape (strategy.go's hasBlockingErr).
inline constexpr const char* rules_not_checked =
    "Invalid value: \"null\": some validation rules were not checked because the object was "
    "invalid; correct the existing errors to complete validation";

} // namespace hpaplus::sim
