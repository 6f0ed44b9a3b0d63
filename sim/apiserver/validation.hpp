// sim/apiserver/validation.hpp — the built-in kinds' validation on create and update, as their
// registry strategies run it (pkg/apis/*/validation), in upstream's words: HPAs' replica bounds,
// workloads' replicas, selectors (immutable on update), strategies and pod templates, pods'
// containers, Leases, legacy Events, ConfigMap and Secret keys, CRDs' CEL rules. What is not here
// is accepted.
#pragma once

#include "sim/api_error.hpp"
#include "sim/json_util.hpp"
#include "sim/resource_type.hpp"

#include <optional>
#include <string>

namespace hpaplus::sim {

/// 422 Invalid with every violation of `object` (the stored form, defaults applied), or nullopt;
/// `old` is the stored object on an update (immutable fields).
std::optional<api_error> validate_builtin(const resource_type& type, const std::string& name,
                                          const json& object, const json* old = nullptr);

/// Go's `%#v` of a map[string]string, as field.Invalid prints a label set:
/// `map[string]string{"app":"web", "tier":"db"}` (keys sorted).
std::string go_string_map(const json& object);

} // namespace hpaplus::sim
