// sim/apiserver/schema.hpp — what the real API server does with a custom resource's structural
// schema (openAPIV3Schema) on every write: prune unknown fields (unless
// x-kubernetes-preserve-unknown-fields) and nulls of non-nullable fields, apply `default`s, and
// reject values that break `type`, `required`, `enum`, `minimum`/`maximum`,
// `minLength`/`maxLength`, `minItems`/`maxItems` or `x-kubernetes-int-or-string`, with the
// server's wording. Not evaluated: `pattern` and `format`; the CEL rules are
// sim/apiserver/cel_rules.hpp's.
#pragma once

#include "sim/json_util.hpp"

#include <string>
#include <utility>
#include <vector>

namespace hpaplus::sim {

/// (field path, message) pairs for an Invalid (422) Status; empty when the object is valid.
using field_errors = std::vector<std::pair<std::string, std::string>>;

/// Prunes, defaults and validates `object` in place against `schema` (the openAPIV3Schema). The
/// paths of the unknown fields it pruned go to `unknown_fields` when given (`spec.replicaz`), for
/// `fieldValidation=Strict`. `blocks_rules` is set when an error is one of those that keep the CEL
/// rules from being evaluated (type, required, enum, maxLength, maxItems).
field_errors apply_schema(const json& schema, json& object, json_alloc& a,
                          std::vector<std::string>* unknown_fields = nullptr,
                          bool* blocks_rules = nullptr);

} // namespace hpaplus::sim
