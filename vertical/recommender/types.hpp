// vertical/recommender/types.hpp — the VPAPlus vocabulary the pure code works in: update modes,
// container policies and recommendations. CPU in millicores, memory in bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::vertical {

enum class update_mode { off, initial, recreate, in_place_or_recreate, in_place };
enum class controlled_values { requests_and_limits, requests_only };

/// Upstream spelling (`InPlaceOrRecreate`); nullopt for anything else. `Auto` is read as
/// Recreate (upstream deprecated it as an alias).
std::optional<update_mode> parse_update_mode(std::string_view text);
std::string_view to_string(update_mode m);

struct amounts {
    std::int64_t cpu_milli = 0;
    std::int64_t memory_bytes = 0;
    friend bool operator==(const amounts&, const amounts&) = default;
};

/// A minAllowed/maxAllowed list: an absent (or zero) entry is no bound.
struct bounds {
    std::optional<std::int64_t> cpu_milli;
    std::optional<std::int64_t> memory_bytes;
};

struct container_policy {
    std::string container_name; ///< "*" = every container without its own entry
    bool off = false;           ///< mode Off: neither recommended nor updated
    bounds min_allowed;
    bounds max_allowed;
    bool control_cpu = true; ///< controlledResources
    bool control_memory = true;
    controlled_values values = controlled_values::requests_and_limits;
};

/// The entry for `container` (exact name first, else `*`), nullptr when there is none.
const container_policy* policy_for(const std::vector<container_policy>& policies,
                                   std::string_view container);

struct container_recommendation {
    std::string container;
    amounts target;
    amounts lower_bound;
    amounts upper_bound;
    amounts uncapped_target;
    bool cpu = true; ///< which resources are recommended (controlledResources)
    bool memory = true;
    controlled_values values = controlled_values::requests_and_limits;
};

} // namespace hpaplus::vertical
