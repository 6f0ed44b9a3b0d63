// policy/prediction.hpp — PURE: how a forecast of one named metric (spec.prediction) votes in the
// decision: as one more metric with that metric's target, so it can only raise the replica count
// (the decision takes the highest proposal), never hold it below what the current load needs.
#pragma once

#include "policy/replica_calculator.hpp"
#include "policy/types.hpp"

#include <optional>
#include <string>

namespace hpaplus::policy {

/// The metric of `spec.metrics` named `name`; nullptr when none is.
const metric_spec* named_metric(const autoscaler_spec& spec, std::string_view name);

/// What the forecast asks for and whether it takes part.
struct prediction_vote {
    double value = 0; ///< the forecast, in the metric's own unit (percent for Utilization)
    double ratio = 0; ///< value / target
    std::int32_t replicas = 0;
    bool voting = false; ///< mode Auto (Preview computes it, never votes)
    std::string metric;  ///< how the decision names it: "<metric name> (forecast)"
};

/// The proposal for `forecast` of `m` (whose target is a Utilization percent, an AverageValue or
/// a Value): `current` while value/target is within the tolerance, else ceil(ratio × current), as
/// an Object metric's Value target is computed (`current` taken as at least 1).
prediction_vote vote_of(const metric_spec& m, double forecast, std::int32_t current,
                        const tolerances& tolerance);

} // namespace hpaplus::policy
