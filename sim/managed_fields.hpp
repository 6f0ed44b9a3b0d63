// sim/managed_fields.hpp — metadata.managedFields as the real API server records them: one entry
// per field manager, operation and subresource, with the time of its last write and the fields it
// owns; a write takes the fields it sets away from every other manager of the same subresource
// (an entry left owning nothing is dropped). Fields are tracked two levels deep (`f:status` /
// `f:conditions`), enough to tell who writes what; upstream tracks every leaf.
#pragma once

#include "core/time.hpp"
#include "sim/json_util.hpp"

#include <string>
#include <string_view>

namespace hpaplus::sim {

/// Who writes: the manager (the `fieldManager` parameter, else the User-Agent up to its first
/// '/') and the API version the request used.
struct write_origin {
    std::string manager;
    std::string api_version;
    /// A server-side apply: the managedFields it computed, recorded as they are.
    const json* applied_fields = nullptr;
    /// The uid a create stores the object with when the server needed it before validation (a
    /// Job's generated selector names it); empty: a new one.
    std::string uid;
};

/// The manager name the real server derives: `field_manager` when given, else the User-Agent's
/// prefix before '/', at most 128 characters.
std::string field_manager_of(std::string_view field_manager, std::string_view user_agent);

/// Records in `next.metadata.managedFields` that `origin` wrote `next` (its status when
/// `status_write`, everything else otherwise) at `now`; `previous` is the stored object's
/// managedFields (nullptr for a create).
void record_write(json_doc& next, const json* previous, const write_origin& origin,
                  bool status_write, core::time_point now);

} // namespace hpaplus::sim
