// policy/replay.hpp — the decision core replayed over recorded load (`hpaplus replay`,
// docs/replay.md): a workload whose pods come and go as the autoscaler decides, one decision per
// sync period, the recorded load spread over the pods that are ready. Pure and deterministic: the
// same autoscaler and load give the same decisions.
#pragma once

#include "policy/decision.hpp"
#include "policy/types.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::policy {

/// The recorded load: one series per entry of spec.metrics (by index), one value per step.
/// Resource, ContainerResource and Pods values are the workload's total (usage summed over its
/// pods, in the metric's units: cores, bytes, ...); Object and External values are the metric.
struct recorded_load {
    core::time_point start{};
    std::chrono::seconds step{15};
    std::int32_t initial_replicas = 1;
    core::resource_list requests; ///< of each pod (one container)
    core::resource_list limits;
    std::map<std::size_t, std::vector<std::optional<double>>> series; ///< nullopt: no sample
    /// How long a new pod takes to become Ready (and so to take load).
    std::chrono::seconds readiness_delay{30};

    /// The recording's length: its longest series times the step.
    std::chrono::seconds duration() const;
};

/// What one replay of one autoscaler comes to.
struct replay_summary {
    std::string name;
    std::int32_t rescales = 0;
    std::int32_t scale_ups = 0;
    std::int32_t scale_downs = 0;
    std::int32_t max_replicas = 0;
    std::int64_t replica_seconds = 0;      ///< the cost: replicas integrated over the recording
    std::int64_t seconds_above_target = 0; ///< the risk: seconds any metric was above its target
    bool predicts = false;                 ///< it has a spec.prediction
    std::int32_t forecast_ups = 0;         ///< scale-ups the forecast's vote decided
};

/// The workload at one decision.
struct replay_decision {
    core::time_point time{};
    std::int32_t replicas = 0; ///< after the decision
    std::int32_t ready = 0;    ///< ready pods when it was taken
    std::string reason;        ///< the rescale reason, "" when nothing changed
    bool forecast = false;     ///< the forecast's vote decided this scale-up
};

struct replay_result {
    replay_summary summary;
    std::vector<replay_decision> decisions;
};

/// Called with each decision's input and outcome (to write evaluate snapshots of them).
using replay_observer =
    std::function<void(std::size_t index, const reconcile_input&, const decision&)>;

/// Replays `hpa` (spec defaulted and valid) over `load`: a decision at start and every
/// syncPeriodSeconds (default 15) after, while the recording lasts. A spec.prediction forecasts
/// from the recording itself — the named metric's series up to each decision, whatever its
/// history source — once per history step (at least the recording's step).
replay_result replay(const autoscaler& hpa, const recorded_load& load,
                     const controller_config& config, const replay_observer& observe = {});

/// The container every replayed pod has: the ContainerResource metrics' container, or "app".
std::string replay_container(const autoscaler_spec& spec);

} // namespace hpaplus::policy
