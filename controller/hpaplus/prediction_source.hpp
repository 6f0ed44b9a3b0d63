// controller/hpaplus/prediction_source.hpp — spec.prediction's I/O edge: the named metric's past
// (read from a metric backend as range queries, or recorded by the controller each pass) and the
// forecast a reconcile is given. The forecast is computed once per history step, not every pass;
// a Backend history is read in full once (four cycles of the longest period) and then only what
// is new since the last read.
#pragma once

#include "controller/hpaplus/forecast_runner.hpp"

#include "controller/checkpoints.hpp"
#include "forecast/forecast.hpp"
#include "kube/api_client.hpp"
#include "metrics/metric_sources.hpp"
#include "policy/decision.hpp"

#include <boost/asio/awaitable.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::controller {

struct prediction_memory {
    /// The spec `samples` are the past of: one whose source, backend, query, step or periods
    /// differ starts the history over.
    std::optional<policy::prediction_spec> history_of;
    std::vector<forecast::sample> samples; ///< in time order, one per step at most
    std::uint32_t last_count = 0;          ///< Recorded: passes averaged into the last sample
    core::time_point read_until{};         ///< Backend: the end of the last range read
    core::time_point computed_at{};        ///< when `forecast` was computed (once per step)
    bool computed = false;
    policy::prediction_input forecast;
    // Recorded: its HPAPlusCheckpoint.
    bool checkpoint_read = false;
    /// Whether it exists; `foreign` when the one read is not this HPAPlus's (another owner, or
    /// samples ahead of now): the next write deletes it and creates its own.
    checkpoint_state checkpoint;
    std::uint32_t untrusted_checkpoints = 0; ///< checkpoints found not believed (reported)
    core::time_point checkpoint_written{};
};

/// Where a Recorded history is kept: the HPAPlus's HPAPlusCheckpoint (same namespace and name).
struct prediction_checkpoint_env {
    kube::api_client& client;
    std::string_view uid;       ///< the HPAPlus's (the checkpoint's owner)
    std::string_view fence_key; ///< the HPAPlus's namespace/name (the write fence's)
    std::chrono::milliseconds interval;
};

/// The forecast for this pass of `hpa` (which has a spec.prediction): the one computed within the
/// last history step, else a new one (on `forecasts`' thread) — for a Backend history after reading
/// what is new. A read that fails leaves no forecast (reason HistoryUnavailable, the backend's
/// error) until the next step. Runs on: the metric sources' executor. Cancellation: none (bounded
/// by the backend's timeout per read). A Recorded history is first read back from its checkpoint (a
/// missing or unreadable one starts it afresh, said in the log).
boost::asio::awaitable<policy::prediction_input>
prediction_for(metrics::metric_sources& metrics, forecast_runner& forecasts,
               prediction_checkpoint_env& checkpoint, const policy::autoscaler& hpa,
               const std::string& target_name, const std::string& pod_selector,
               prediction_memory& memory, core::time_point now);

/// Recorded histories: adds this pass's value of the named metric (policy::forecast_quantity of
/// its status: a per-pod target's average times `ready_pods`, the pods such an average is taken
/// over) to the step it falls in, and writes the history to its checkpoint once per
/// `checkpoint.interval` (a failed write is logged and tried again next pass). Runs on: the
/// client's executor. Cancellation: none (bounded by request timeouts).
boost::asio::awaitable<void>
record_prediction_sample(prediction_checkpoint_env& checkpoint, const policy::autoscaler& hpa,
                         const policy::decision& d, std::int32_t ready_pods,
                         prediction_memory& memory, core::time_point now);

} // namespace hpaplus::controller
