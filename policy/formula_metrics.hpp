// policy/formula_metrics.hpp — HPAPlus `Formula` metrics in one reconcile: the current value of
// each named input, each Formula's value, and its proposal as an External metric with the
// Formula's target (docs/formula.md).
#pragma once

#include "policy/metric_evaluation.hpp"
#include "policy/types.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hpaplus::policy {

/// Per entry of spec.metrics: true when a Formula reads it. Such an entry is an input only: it
/// does not vote on its own.
std::vector<bool> formula_inputs(const autoscaler_spec& spec);

/// What Formulas decide in one reconcile, per entry of spec.metrics.
struct formula_results {
    std::vector<bool> input_only;
    /// Set for inputs (ok + status with the current value, or the error) and for Formula metrics
    /// (their full outcome, proposal included).
    std::vector<std::optional<metric_outcome>> outcomes;
};

/// Evaluates every Formula of `spec` (validated) on `readings` (one per metric; a Formula's own
/// reading is unused).
formula_results evaluate_formulas(const autoscaler_spec& spec,
                                  const std::vector<const metric_reading*>& readings,
                                  const metric_context& ctx);

/// The current value of a metric read as a Formula input, in its units (cores, bytes, requests/s):
/// Resource, ContainerResource and Pods the average over the pods that reported, Object the
/// object's value, External the sum of the selected series.
core::outcome<double> input_value(const metric_spec& spec, const metric_reading& reading);

} // namespace hpaplus::policy
