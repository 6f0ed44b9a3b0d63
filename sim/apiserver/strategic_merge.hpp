// sim/apiserver/strategic_merge.hpp — strategic merge patches
// (`application/strategic-merge-patch+json`) on built-in kinds, as apimachinery's strategicpatch
// applies them: lists merge by the patch merge key the kind's OpenAPI schema names
// (sim/apiserver/openapi.hpp, one source for kubectl and the server), and the directives `$patch`
// (merge, replace, delete), `$setElementOrder/<list>`,
// `$deleteFromPrimitiveList/<list>` and `$retainKeys` are honoured.
#pragma once

#include "sim/json_util.hpp"

#include <optional>
#include <string>

namespace hpaplus::sim {

/// Applies `patch` to `target` (an object). `schema` is the kind's schema (builtin_kind_schema);
/// nullptr means no patch metadata: maps merge and lists are replaced, as for an unknown type.
/// Returns an error text (target then unspecified) for a malformed directive.
std::optional<std::string> strategic_merge_patch(json& target, const json& patch,
                                                 const json* schema, json_alloc& a);

} // namespace hpaplus::sim
