// policy/conditions.hpp — status conditions kept the way upstream keeps them: insertion order,
// updated in place, lastTransitionTime changed only when the status flips.
#pragma once

#include "policy/types.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::policy {

/// `setCondition`: adds or updates the condition of `type`.
void set_condition(std::vector<condition>& conditions, std::string_view type,
                   condition_status status, std::string reason, std::string message,
                   time_point now);

/// `removeCondition`.
void remove_condition(std::vector<condition>& conditions, std::string_view type);

/// The condition of `type`, or nullptr.
const condition* find_condition(const std::vector<condition>& conditions, std::string_view type);

} // namespace hpaplus::policy
