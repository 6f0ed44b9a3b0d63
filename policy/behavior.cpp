// policy/behavior.cpp — stabilization and scale-rate limits (upstream horizontal.go,
// normalization).
#include "policy/behavior.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hpaplus::policy {
namespace {

using std::chrono::seconds;

const char* const within_range_message = "the desired count is within the acceptable range";
const char* const too_many_message =
    "the desired replica count is more than the maximum replica count";
const char* const too_few_message =
    "the desired replica count is less than the minimum replica count";
const char* const up_limit_message =
    "the desired replica count is increasing faster than the maximum scale rate";
const char* const down_limit_message =
    "the desired replica count is decreasing faster than the maximum scale rate";

// Replaces the entry at `old_index` when one is stale, else appends (upstream reuses stale slots).
void record(history& h, bool found_old, std::size_t old_index, std::int32_t desired,
            core::time_point now) {
    if (found_old) {
        h.recommendations[old_index] = {now, desired};
    } else {
        h.recommendations.push_back({now, desired});
    }
}

// getReplicasChangePerPeriod: events strictly after now - period.
std::int32_t change_in_period(const std::vector<scale_event>& events, std::int32_t period_seconds,
                              core::time_point now) {
    const core::time_point cutoff = now - seconds(period_seconds);
    std::int32_t total = 0;
    for (const auto& e : events) {
        if (e.time > cutoff) total += e.change;
    }
    return total;
}

std::int32_t to_int32(double v) {
    // Go's int32(float64) truncates toward zero; values stay far inside int32 for sane specs.
    if (v >= static_cast<double>(std::numeric_limits<std::int32_t>::max()))
        return std::numeric_limits<std::int32_t>::max();
    if (v <= static_cast<double>(std::numeric_limits<std::int32_t>::min()))
        return std::numeric_limits<std::int32_t>::min();
    return static_cast<std::int32_t>(v);
}

} // namespace

void shift_history(history& h, std::chrono::nanoseconds step) {
    for (auto& r : h.recommendations)
        r.time += step;
    for (auto& e : h.scale_up_events)
        e.time += step;
    for (auto& e : h.scale_down_events)
        e.time += step;
    for (auto& g : h.last_known_good)
        g.time += step;
}

void seed_history(history& h, std::int32_t current, core::time_point now) {
    if (!h.started && h.recommendations.empty()) h.recommendations.push_back({now, current});
    h.started = true;
}

normalization normalize_legacy(history& h, std::int32_t current, std::int32_t desired,
                               std::int32_t min_replicas, std::int32_t max_replicas,
                               const controller_config& config, core::time_point now) {
    normalization n;
    // stabilizeRecommendation: the highest recommendation not older than the window.
    const core::time_point cutoff = now - config.downscale_stabilization_window;
    std::int32_t highest = desired;
    bool found_old = false;
    std::size_t old_index = 0;
    for (std::size_t i = 0; i < h.recommendations.size(); ++i) {
        const auto& rec = h.recommendations[i];
        if (rec.time < cutoff) {
            found_old = true;
            old_index = i;
        } else {
            highest = std::max(highest, rec.replicas);
        }
    }
    record(h, found_old, old_index, desired, now);
    n.stabilized = highest;
    if (highest != desired) {
        n.stabilize_reason = "ScaleDownStabilized";
        n.stabilize_message = "recent recommendations were higher than current one, applying the "
                              "highest recent recommendation";
    } else {
        n.stabilize_reason = "ReadyForNewScale";
        n.stabilize_message = "recommended size matches current size";
    }

    // convertDesiredReplicasWithRules.
    const std::int32_t up_cap =
        to_int32(std::max(config.scale_up_limit_factor * current, config.scale_up_limit_minimum));
    std::int32_t maximum = max_replicas;
    std::string_view reason = "TooManyReplicas";
    std::string_view message = too_many_message;
    if (max_replicas > up_cap) {
        maximum = up_cap;
        reason = "ScaleUpLimit";
        message = up_limit_message;
    }
    if (n.stabilized < min_replicas) {
        n.limited = min_replicas;
        n.limit_reason = "TooFewReplicas";
        n.limit_message = too_few_message;
    } else if (n.stabilized > maximum) {
        n.limited = maximum;
        n.limit_reason = reason;
        n.limit_message = message;
    } else {
        n.limited = n.stabilized;
        n.limit_reason = "DesiredWithinRange";
        n.limit_message = within_range_message;
    }
    return n;
}

policy_bound bound_of(bool up, std::int32_t current, const history& h, const scaling_policy& p,
                      core::time_point now) {
    policy_bound b;
    b.added = change_in_period(h.scale_up_events, p.period_seconds, now);
    b.removed = change_in_period(h.scale_down_events, p.period_seconds, now);
    b.period_start = current - b.added + b.removed;
    const std::int32_t start = b.period_start;
    if (p.type == scaling_policy_type::pods) {
        b.bound = up ? start + p.value : start - p.value;
    } else if (up) {
        b.bound = to_int32(std::ceil(start * (1.0 + p.value / 100.0))); // up rounds up so a
                                                                        // small percent adds a pod
    } else {
        b.bound = to_int32(start * (1.0 - p.value / 100.0)); // down truncates toward zero
    }
    return b;
}

namespace {

// calculateScaleUpLimitWithScalingRules / calculateScaleDownLimitWithBehaviors in one: each policy
// proposes a bound from the replica count at the start of its period; selectPolicy Max means
// "the largest change" (the highest bound going up, the lowest going down).
std::int32_t rate_limit(bool up, std::int32_t current, const history& h, const scaling_rules& rules,
                        core::time_point now) {
    const select_policy select = rules.select.value_or(select_policy::max);
    if (select == select_policy::disabled) return current;
    const bool highest = (select == select_policy::max) == up;
    std::int32_t result = highest ? std::numeric_limits<std::int32_t>::min()
                                  : std::numeric_limits<std::int32_t>::max();
    static const std::vector<scaling_policy> none;
    for (const auto& p : rules.policies ? *rules.policies : none) {
        const std::int32_t proposed = bound_of(up, current, h, p, now).bound;
        result = highest ? std::max(result, proposed) : std::min(result, proposed);
    }
    return result;
}

} // namespace

std::int32_t scale_up_limit(std::int32_t current, const history& h, const scaling_rules& rules,
                            core::time_point now) {
    return rate_limit(true, current, h, rules, now);
}

std::int32_t scale_down_limit(std::int32_t current, const history& h, const scaling_rules& rules,
                              core::time_point now) {
    return rate_limit(false, current, h, rules, now);
}

normalization normalize_with_behavior(history& h, std::int32_t current, std::int32_t desired,
                                      std::int32_t min_replicas, std::int32_t max_replicas,
                                      const behavior_spec& behavior,
                                      const controller_config& config, core::time_point now) {
    static const scaling_rules no_rules{};
    const scaling_rules& up = behavior.scale_up ? *behavior.scale_up : no_rules;
    const scaling_rules& down = behavior.scale_down ? *behavior.scale_down : no_rules;
    normalization n;

    // stabilizeRecommendationWithBehaviors ("newer than the cutoff" is strict).
    const core::time_point up_cutoff = now - seconds(up.stabilization_window_seconds.value_or(0));
    const core::time_point down_cutoff =
        now - (down.stabilization_window_seconds ? seconds(*down.stabilization_window_seconds)
                                                 : config.downscale_stabilization_window);
    std::int32_t up_rec = desired;
    std::int32_t down_rec = desired;
    bool found_old = false;
    std::size_t old_index = 0;
    for (std::size_t i = 0; i < h.recommendations.size(); ++i) {
        const auto& rec = h.recommendations[i];
        if (rec.time > up_cutoff) up_rec = std::min(rec.replicas, up_rec);
        if (rec.time > down_cutoff) down_rec = std::max(rec.replicas, down_rec);
        if (rec.time < up_cutoff && rec.time < down_cutoff) {
            found_old = true;
            old_index = i;
        }
    }
    n.stabilized = std::min(std::max(current, up_rec), down_rec);
    record(h, found_old, old_index, desired, now);
    if (n.stabilized != desired) {
        if (desired >= current) {
            n.stabilize_reason = "ScaleUpStabilized";
            n.stabilize_message = "recent recommendations were lower than current one, applying "
                                  "the lowest recent recommendation";
        } else {
            n.stabilize_reason = "ScaleDownStabilized";
            n.stabilize_message = "recent recommendations were higher than current one, applying "
                                  "the highest recent recommendation";
        }
    } else {
        n.stabilize_reason = "ReadyForNewScale";
        n.stabilize_message = "recommended size matches current size";
    }

    // convertDesiredReplicasWithBehaviorRate.
    n.limited = n.stabilized;
    n.limit_reason = "DesiredWithinRange";
    n.limit_message = within_range_message;
    if (n.stabilized > current) {
        const std::int32_t limit = std::max(scale_up_limit(current, h, up, now), current);
        std::int32_t maximum = max_replicas;
        std::string_view reason = "TooManyReplicas";
        const char* message = too_many_message;
        if (maximum > limit) {
            maximum = limit;
            reason = "ScaleUpLimit";
            message = up_limit_message;
        }
        if (n.stabilized > maximum) {
            n.limited = maximum;
            n.limit_reason = reason;
            n.limit_message = message;
        }
    } else if (n.stabilized < current) {
        const std::int32_t limit = std::min(scale_down_limit(current, h, down, now), current);
        std::int32_t minimum = min_replicas;
        std::string_view reason = "TooFewReplicas";
        const char* message = too_few_message;
        if (minimum < limit) {
            minimum = limit;
            reason = "ScaleDownLimit";
            message = down_limit_message;
        }
        if (n.stabilized < minimum) {
            n.limited = minimum;
            n.limit_reason = reason;
            n.limit_message = message;
        }
    }
    return n;
}

void store_scale_event(history& h, const behavior_spec& behavior, std::int32_t previous,
                       std::int32_t next, core::time_point now) {
    const bool up = next > previous;
    const auto& rules = up ? behavior.scale_up : behavior.scale_down;
    auto& events = up ? h.scale_up_events : h.scale_down_events;
    std::int32_t longest = 0;
    if (rules && rules->policies) {
        for (const auto& p : *rules->policies)
            longest = std::max(longest, p.period_seconds);
    }
    const core::time_point cutoff = now - seconds(longest);
    const scale_event event{now, up ? next - previous : previous - next};
    // Reuse the last event older than the longest period (upstream marks these "outdated").
    for (std::size_t i = events.size(); i-- > 0;) {
        if (events[i].time < cutoff) {
            events[i] = event;
            return;
        }
    }
    events.push_back(event);
}

} // namespace hpaplus::policy
