// policy/defaults.hpp — the defaults the API server applies to an autoscaling/v2 HPA (and so to an
// HPAPlus): minReplicas 1, a CPU 80 % metric when none is given, and the behavior defaults.
#pragma once

#include "policy/types.hpp"

namespace hpaplus::policy {

/// Fills what the API server would fill (`SetDefaults_HorizontalPodAutoscaler`). Idempotent.
void apply_defaults(autoscaler_spec& spec);

/// True when the spec uses any HPAPlus-only field (then it is not a plain HPA).
bool uses_hpaplus_fields(const autoscaler_spec& spec);

} // namespace hpaplus::policy
