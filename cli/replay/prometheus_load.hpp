// cli/replay/prometheus_load.hpp — `hpaplus replay --prometheus`: the recorded load read from a
// Prometheus with range queries, one per metric of the autoscaler (docs/replay.md lists them).
#pragma once

#include "core/outcome.hpp"
#include "policy/replay.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace hpaplus::cli {

struct prometheus_range {
    std::string url;
    core::time_point from{};
    core::time_point to{};
    std::chrono::seconds step{15};
    /// The range of rate() and of `{{window}}`; 0 = four steps, at least a minute.
    std::chrono::seconds rate_window{0};
};

/// The PromQL query whose sum over series is spec.metrics[index]'s recorded value, or an error
/// saying why the metric cannot be read from Prometheus. Names and label values are escaped as
/// PromQL strings.
core::outcome<std::string> replay_query(const policy::autoscaler& hpa, std::size_t index,
                                        std::chrono::seconds rate_window);

/// Reads every metric's series (Formulas need none) into `load` (start and step set from `range`).
/// Errors name the metric and the query. Runs its own event loop; returns when every query is
/// answered or failed.
core::outcome<void> load_from_prometheus(const policy::autoscaler& hpa,
                                         const prometheus_range& range,
                                         policy::recorded_load& load);

} // namespace hpaplus::cli
