// policy/prediction.hpp — PURE: how a forecast of one named metric (spec.prediction) votes in the
// decision: as one more metric with that metric's target, so it can only raise the replica count
// (the decision takes the highest proposal), never hold it below what the current load needs.
#pragma once

#include "forecast/forecast.hpp"
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

/// The proposal for `forecast` of `m`. For a per-pod target (Utilization percent, AverageValue)
/// the forecast is of the workload's total — the average times the pods it is averaged over — and
/// asks for ceil(forecast / target) pods; for a Value target it is of the value and asks for
/// ceil(current × forecast / target), as an Object metric's Value target is computed. Within the
/// tolerance (the ratio to what `current` pods give), `current` (taken as at least 1).
prediction_vote vote_of(const metric_spec& m, double forecast, std::int32_t current,
                        const tolerances& tolerance);

/// What a forecast of `m` is made from, read from its status in a pass over `pods` pods: the
/// total for a per-pod target (average × pods), the value for a Value target; nullopt when the
/// status has no such value.
std::optional<double> forecast_quantity(const metric_spec& m, const metric_status& status,
                                        std::int32_t pods);

/// What the decision is given of a forecast: its value (when it is a number), period and next
/// peak, or why there is none (the forecast's reason, a condition reason).
prediction_input prediction_of(const forecast::forecast_result& r);

} // namespace hpaplus::policy
