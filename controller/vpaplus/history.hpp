// controller/vpaplus/history.hpp — seeding a VPAPlus's history from Prometheus (upstream's
// --storage=prometheus): cAdvisor's per-container CPU rate and working set of the workload's pods
// over the last --vertical-history-length, one point per --vertical-history-resolution, fed into
// the same histograms the metrics API samples go to.
#pragma once

#include "controller/vpaplus/vertical_state.hpp"

#include <boost/asio/awaitable.hpp>

#include <string>

namespace hpaplus::controller {

struct history_load {
    std::string error; ///< "" when Prometheus answered
    std::size_t cpu_samples = 0;
    std::size_t memory_samples = 0;
    std::size_t containers = 0;
};

/// The PromQL selector of a workload's containers: pods of `ns` named `<workload>-…` (how
/// Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs name their pods), real containers
/// only (not the pause container).
std::string history_selector(const std::string& ns, const std::string& workload);

/// Reads the history of `workload`'s containers and adds it to `m`.
/// Runs on: the backend's executor. Cancellation: none (bounded by the backend's timeout).
boost::asio::awaitable<history_load>
load_history(metrics::http_backend& backend, const std::string& ns, const std::string& workload,
             const vertical_options& options, vertical_memory& m, core::time_point now);

} // namespace hpaplus::controller
