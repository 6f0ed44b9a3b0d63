// controller/hpaplus/prediction_source.hpp — spec.prediction's I/O edge: the named metric's past
// (read from a metric backend as range queries, or recorded by the controller each pass) and the
// forecast a reconcile is given. The forecast is computed once per history step, not every pass;
// a Backend history is read in full once (four cycles of the longest period) and then only what
// is new since the last read.
#pragma once

#include "forecast/forecast.hpp"
#include "metrics/metric_sources.hpp"
#include "policy/decision.hpp"

#include <boost/asio/awaitable.hpp>

#include <string>
#include <vector>

namespace hpaplus::controller {

struct prediction_memory {
    /// What `samples` are the past of (source, backend, query, step, periods): a spec that
    /// changes any of them starts the history over.
    std::string history_of;
    std::vector<forecast::sample> samples; ///< in time order, one per step at most
    std::uint32_t last_count = 0;          ///< Recorded: passes averaged into the last sample
    core::time_point read_until{};         ///< Backend: the end of the last range read
    core::time_point computed_at{};        ///< when `forecast` was computed (once per step)
    bool computed = false;
    policy::prediction_input forecast;
};

/// The forecast for this pass of `hpa` (which has a spec.prediction): the one computed within the
/// last history step, else a new one — for a Backend history after reading what is new. A read
/// that fails leaves no forecast (reason HistoryUnavailable, the backend's error) until the next
/// step. Runs on: the metric sources' executor. Cancellation: none (bounded by the backend's
/// timeout per read).
boost::asio::awaitable<policy::prediction_input>
prediction_for(metrics::metric_sources& metrics, const policy::autoscaler& hpa,
               const std::string& target_name, const std::string& pod_selector,
               prediction_memory& memory, core::time_point now);

/// Recorded histories: adds this pass's value of the named metric (policy::forecast_quantity of
/// its status, over the pass's current replicas) to the step it falls in.
void record_prediction_sample(const policy::autoscaler& hpa, const policy::decision& d,
                              prediction_memory& memory, core::time_point now);

} // namespace hpaplus::controller
