// policy/behavior.hpp — what happens between the raw recommendation and the replica count written:
// stabilization windows, scale-rate policies, min/max, and the per-object history they read.
// Mirrors upstream normalizeDesiredReplicas (legacy, no spec.behavior) and
// normalizeDesiredReplicasWithBehaviors, including their condition reasons.
#pragma once

#include "policy/types.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::policy {

struct timed_recommendation {
    core::time_point time{};
    std::int32_t replicas = 0;
    friend bool operator==(const timed_recommendation&, const timed_recommendation&) = default;
};

struct scale_event {
    core::time_point time{};
    std::int32_t change = 0; ///< absolute replica change
    friend bool operator==(const scale_event&, const scale_event&) = default;
};

/// HPAPlus fallback: the last proposal a metric produced while it could be read.
struct known_good_proposal {
    std::size_t index = 0; ///< spec.metrics index
    core::time_point time{};
    std::int32_t replicas = 0;
    friend bool operator==(const known_good_proposal&, const known_good_proposal&) = default;
};

/// What the controller remembers per object between reconciles.
struct history {
    /// Whether the recommendation log exists (upstream: its map entry is not nil). It does from the
    /// first reconcile that read the scale on, and whenever it holds entries; an existing log may
    /// be empty (evaluate can say so).
    bool started = false;
    std::vector<timed_recommendation> recommendations;
    std::vector<scale_event> scale_up_events;
    std::vector<scale_event> scale_down_events;
    std::vector<known_good_proposal> last_known_good;
    /// podSelection OwnerReferences: the excluded pods last reported in an Event (names, one per
    /// line), so the Event says each set once.
    std::string excluded_pods;
    /// The pods whose start-up boost records were last reported not believed (names, one per
    /// line), so the Event says each set once.
    std::string ignored_boosts;
    /// unreadyPods Count: the unready pods last reported counted (names, one per line), so the
    /// Event says each change once.
    std::string counted_unready;
    /// spec.prediction: whether the forecast took part in the last decision (its Events say each
    /// change once).
    bool prediction_voting = false;
    friend bool operator==(const history&, const history&) = default;
};

/// The outcome of normalization, with the reasons for the AbleToScale and ScalingLimited
/// conditions.
/// The reasons and messages are fixed texts (static storage): a pass builds no string for them.
struct normalization {
    std::int32_t stabilized = 0;
    std::string_view stabilize_reason; ///< ReadyForNewScale | ScaleUpStabilized |
                                       ///< ScaleDownStabilized
    std::string_view stabilize_message;
    std::int32_t limited = 0;
    std::string_view limit_reason; ///< DesiredWithinRange | TooFewReplicas | TooManyReplicas |
                                   ///< ScaleUpLimit | ScaleDownLimit
    std::string_view limit_message;
};

/// Legacy path: max over the downscale window (both directions), then [min, max] and the
/// max(factor × current, minimum) scale-up cap. Records the recommendation in `h`.
normalization normalize_legacy(history& h, std::int32_t current, std::int32_t desired,
                               std::int32_t min_replicas, std::int32_t max_replicas,
                               const controller_config& config, core::time_point now);

/// Behavior path: current clamped into [min of up window, max of down window], then the rate
/// policies and [min, max]. `behavior` must be defaulted (see defaults.hpp). Records the
/// recommendation.
normalization normalize_with_behavior(history& h, std::int32_t current, std::int32_t desired,
                                      std::int32_t min_replicas, std::int32_t max_replicas,
                                      const behavior_spec& behavior,
                                      const controller_config& config, core::time_point now);

/// What one scaling policy allows now: from the replica count at the start of its period (the
/// current count less what was added within it, plus what was removed), `bound` replicas.
struct policy_bound {
    std::int32_t added = 0;   ///< scale-up changes within the period
    std::int32_t removed = 0; ///< scale-down changes within the period
    std::int32_t period_start = 0;
    std::int32_t bound = 0;
};
policy_bound bound_of(bool up, std::int32_t current, const history& h, const scaling_policy& p,
                      core::time_point now);

/// The upper bound the scale-up policies allow now (`calculateScaleUpLimitWithScalingRules`).
std::int32_t scale_up_limit(std::int32_t current, const history& h, const scaling_rules& rules,
                            core::time_point now);
/// The lower bound the scale-down policies allow now (`calculateScaleDownLimitWithBehaviors`).
std::int32_t scale_down_limit(std::int32_t current, const history& h, const scaling_rules& rules,
                              core::time_point now);

/// `storeScaleEvent`: after a successful rescale with spec.behavior set, remember the change,
/// reusing the last slot older than the direction's longest policy period.
void store_scale_event(history& h, const behavior_spec& behavior, std::int32_t previous,
                       std::int32_t next, core::time_point now);

/// `recordInitialRecommendation`: the first reconcile starts the log with the current count; a log
/// that exists is left alone, even when it is empty.
void seed_history(history& h, std::int32_t current, core::time_point now);

/// Moves every time `h` remembers by `step`: the controller measures windows, policy periods and
/// scale-event ages on the steady clock, as upstream's Go times carry a monotonic reading, while
/// the decision takes wall times; when the wall clock steps (NTP, a VM resumed), what was
/// remembered moves with it, so that each age stays what the steady clock says it is.
void shift_history(history& h, std::chrono::nanoseconds step);

} // namespace hpaplus::policy
