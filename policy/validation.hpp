// policy/validation.hpp — spec validation as the API server does it for autoscaling/v2, plus the
// HPAPlus fields. Errors name the field (`spec.metrics[0].resource.target.averageUtilization`).
#pragma once

#include "policy/types.hpp"

#include <string>
#include <vector>

namespace hpaplus::policy {

struct field_error {
    std::string field;   ///< path from the object root
    std::string message; ///< what is wrong, upstream wording where there is one
};

/// Validates a defaulted spec. Scale to zero (minReplicas 0) is allowed with an Object or External
/// metric.
std::vector<field_error> validate(const autoscaler_spec& spec);

} // namespace hpaplus::policy
