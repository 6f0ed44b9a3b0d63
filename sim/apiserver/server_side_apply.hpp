// sim/apiserver/server_side_apply.hpp — server-side apply (`application/apply-patch+yaml`) as the
// real server's field manager does it, after structured-merge-diff: the applied configuration is
// merged into the live object (maps by key, lists whose schema names list-map keys — or a patch
// merge key — item by item, other lists and scalars replaced); the fields it sets become the
// manager's `Apply` entry in managedFields (every leaf, keyed items as `k:{...}`); a field another
// manager owns that the apply would change is a conflict (409 with one cause per field) unless
// forced, which takes the field away from its owner; a field the manager applied before and no
// longer applies is removed when no other manager owns it. Where it is simpler: sets of scalars
// are owned whole, and ownership recorded by Update writes is two levels deep
// (sim/managed_fields), so such an owner may hold a whole subtree.
#pragma once

#include "core/time.hpp"
#include "sim/api_error.hpp"
#include "sim/json_util.hpp"

#include <string>
#include <variant>

namespace hpaplus::sim {

struct apply_request {
    const json& applied;          ///< the configuration, as JSON
    const json* live = nullptr;   ///< the stored object; nullptr: the apply creates it
    const json* schema = nullptr; ///< the kind's schema (built-in or the CRD's); nullptr: none
    std::string manager;          ///< the fieldManager
    std::string api_version;      ///< the group-version the request used
    bool force = false;
    core::time_point now;
};

/// The object to store, its `metadata.managedFields` set; or the 409 of the conflicts.
std::variant<json_doc, api_error> server_side_apply(const apply_request& request);

} // namespace hpaplus::sim
