// Table tests for stabilization and scale-rate limits (upstream normalization).
#include "policy/behavior.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace hpaplus::policy {
namespace {

using test::ago;
using test::now;

struct E {
    int age;
    std::int32_t change;
};

std::vector<scale_event> events(const std::vector<E>& rows) {
    std::vector<scale_event> out;
    for (const auto& r : rows)
        out.push_back({ago(r.age), r.change});
    return out;
}

scaling_rules rules(std::vector<scaling_policy> policies, select_policy select = select_policy::max,
                    std::optional<std::int32_t> window = std::nullopt) {
    scaling_rules r;
    r.policies = std::move(policies);
    r.select = select;
    r.stabilization_window_seconds = window;
    return r;
}

const scaling_policy pods4{scaling_policy_type::pods, 4, 15};
const scaling_policy percent100{scaling_policy_type::percent, 100, 15};

// ---------------------------------------------------------------------------------------------

struct limit_case {
    const char* name;
    std::int32_t current;
    scaling_rules rules;
    std::vector<E> up;
    std::vector<E> down;
    std::int32_t expect;
};
void PrintTo(const limit_case& c, std::ostream* os) {
    *os << c.name;
}

history history_of(const limit_case& c) {
    history h;
    h.scale_up_events = events(c.up);
    h.scale_down_events = events(c.down);
    return h;
}

class ScaleUpLimit : public ::testing::TestWithParam<limit_case> {};
TEST_P(ScaleUpLimit, MatchesUpstream) {
    const auto& c = GetParam();
    EXPECT_EQ(scale_up_limit(c.current, history_of(c), c.rules, now()), c.expect);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, ScaleUpLimit,
    ::testing::Values(
        limit_case{"DefaultsTakeLargest", 3, rules({pods4, percent100}), {}, {}, 7},
        limit_case{"MinTakesSmallest", 3, rules({pods4, percent100}, select_policy::min), {}, {}, 6},
        limit_case{"Disabled", 3, rules({pods4, percent100}, select_policy::disabled), {}, {}, 3},
        limit_case{"PercentRoundsUp", 3, rules({{scaling_policy_type::percent, 50, 15}}), {}, {}, 5},
        limit_case{"PercentOfOneAddsOne", 1, rules({{scaling_policy_type::percent, 10, 15}}), {}, {}, 2},
        // +2 in the period: period start 1 → pods 5, percent 2 → 5
        limit_case{"RecentScaleUpCounts", 3, rules({pods4, percent100}), {{10, 2}}, {}, 5},
        limit_case{"EventAtPeriodEdgeNotCounted", 3, rules({pods4, percent100}), {{15, 2}}, {}, 7},
        limit_case{"EventInsidePeriodEdgeCounted", 3, rules({pods4, percent100}), {{14, 2}}, {}, 5},
        // a scale-down in the period raises the period start: 5 → pods 9, percent 10
        limit_case{"RecentScaleDownRaisesStart", 3, rules({pods4, percent100}), {}, {{5, 2}}, 10},
        // Pods over 60 s sees the +4 (start -1 → 3); Percent over 15 s does not (6)
        limit_case{"PoliciesHaveOwnPeriods", 3, rules({{scaling_policy_type::pods, 4, 60}, percent100}), {{30, 4}}, {}, 6},
        // several events in the period add up: start 10 - 3 - 2 = 5 → Pods 4 → 9, Percent → 10
        limit_case{"EventsAddUp", 10, rules({pods4, percent100}), {{3, 3}, {8, 2}}, {}, 10},
        limit_case{"PercentMinWithPods", 10, rules({pods4, {scaling_policy_type::percent, 10, 15}}, select_policy::min), {}, {}, 11},
        limit_case{"OldEventsIgnored", 3, rules({pods4, percent100}), {{100, 5}}, {{200, 1}}, 7},
        limit_case{"NoPoliciesMax", 3, rules({}), {}, {}, std::numeric_limits<std::int32_t>::min()},
        limit_case{"FromZeroPercentIsZero", 0, rules({percent100}), {}, {}, 0},
        limit_case{"FromZeroPods", 0, rules({pods4, percent100}), {}, {}, 4}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

class ScaleDownLimit : public ::testing::TestWithParam<limit_case> {};
TEST_P(ScaleDownLimit, MatchesUpstream) {
    const auto& c = GetParam();
    EXPECT_EQ(scale_down_limit(c.current, history_of(c), c.rules, now()), c.expect);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, ScaleDownLimit,
    ::testing::Values(
        limit_case{"DefaultAllowsAll", 10, rules({percent100}), {}, {}, 0},
        limit_case{"Percent50", 10, rules({{scaling_policy_type::percent, 50, 15}}), {}, {}, 5},
        // 10 × 0.67 = 6.7 truncates to 6
        limit_case{"PercentTruncates", 10, rules({{scaling_policy_type::percent, 33, 15}}), {}, {}, 6},
        limit_case{"PercentTruncatesHalf", 5, rules({{scaling_policy_type::percent, 10, 15}}), {}, {}, 4},
        limit_case{"Pods", 10, rules({{scaling_policy_type::pods, 3, 15}}), {}, {}, 7},
        limit_case{"MaxMeansLargestChange", 10, rules({{scaling_policy_type::pods, 3, 15}, {scaling_policy_type::percent, 50, 15}}), {}, {}, 5},
        limit_case{"MinMeansSmallestChange", 10, rules({{scaling_policy_type::pods, 3, 15}, {scaling_policy_type::percent, 50, 15}}, select_policy::min), {}, {}, 7},
        limit_case{"Disabled", 10, rules({percent100}, select_policy::disabled), {}, {}, 10},
        limit_case{"RecentScaleDownCounts", 10, rules({{scaling_policy_type::pods, 3, 15}}), {}, {{5, 2}}, 9},
        limit_case{"RecentScaleUpLowersStart", 10, rules({{scaling_policy_type::percent, 50, 15}}), {{5, 4}}, {}, 3},
        limit_case{"PodsMayGoNegative", 2, rules({{scaling_policy_type::pods, 5, 15}}), {}, {}, -3},
        limit_case{"PercentAndPodsOverDifferentPeriods", 10, rules({{scaling_policy_type::pods, 1, 60}, {scaling_policy_type::percent, 20, 15}}), {}, {{30, 2}}, 8},
        limit_case{"NoPoliciesMax", 10, rules({}), {}, {}, std::numeric_limits<std::int32_t>::max()}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

// ---------------------------------------------------------------------------------------------

struct R {
    int age;
    std::int32_t replicas;
};

struct behavior_case {
    const char* name;
    std::int32_t current;
    std::int32_t desired;
    std::int32_t min;
    std::int32_t max;
    std::vector<R> recommendations;
    scaling_rules up;
    scaling_rules down;
    std::int32_t expect_stabilized;
    const char* expect_stabilize_reason;
    std::int32_t expect_limited;
    const char* expect_limit_reason;
    std::vector<E> up_events = {};
    int downscale_window = 300;
};
void PrintTo(const behavior_case& c, std::ostream* os) {
    *os << c.name;
}

scaling_rules default_up(std::optional<std::int32_t> window = 0) {
    return rules({pods4, percent100}, select_policy::max, window);
}
scaling_rules default_down(std::optional<std::int32_t> window = std::nullopt) {
    return rules({percent100}, select_policy::max, window);
}

class BehaviorNormalization : public ::testing::TestWithParam<behavior_case> {};
TEST_P(BehaviorNormalization, MatchesUpstream) {
    const auto& c = GetParam();
    history h;
    for (const auto& r : c.recommendations)
        h.recommendations.push_back({ago(r.age), r.replicas});
    h.scale_up_events = events(c.up_events);
    controller_config config;
    config.downscale_stabilization_window = std::chrono::seconds(c.downscale_window);
    behavior_spec b{c.up, c.down};
    const auto n = normalize_with_behavior(h, c.current, c.desired, c.min, c.max, b, config, now());
    EXPECT_EQ(n.stabilized, c.expect_stabilized);
    EXPECT_EQ(n.stabilize_reason, c.expect_stabilize_reason);
    EXPECT_EQ(n.limited, c.expect_limited);
    EXPECT_EQ(n.limit_reason, c.expect_limit_reason);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, BehaviorNormalization,
    ::testing::Values(
        // the seeded entry (stamped now) is outside a 0 s up window but inside the down window
        behavior_case{"FirstReconcileScalesUp", 3, 5, 1, 10, {{0, 3}}, default_up(), default_down(), 5, "ReadyForNewScale", 5, "DesiredWithinRange"},
        behavior_case{"DownWindowHoldsHighest", 5, 2, 1, 10, {{60, 5}}, default_up(), default_down(), 5, "ScaleDownStabilized", 5, "DesiredWithinRange"},
        behavior_case{"DownWindowPassed", 5, 2, 1, 10, {{301, 5}}, default_up(), default_down(), 2, "ReadyForNewScale", 2, "DesiredWithinRange"},
        behavior_case{"DownWindowIsStrict", 5, 2, 1, 10, {{300, 5}}, default_up(), default_down(), 2, "ReadyForNewScale", 2, "DesiredWithinRange"},
        behavior_case{"DownWindowHighestOfSeveral", 8, 2, 1, 10, {{250, 4}, {100, 6}, {10, 3}}, default_up(), default_down(), 6, "ScaleDownStabilized", 6, "DesiredWithinRange"},
        behavior_case{"UpWindowHoldsLowest", 3, 8, 1, 10, {{30, 3}}, default_up(60), default_down(), 3, "ScaleUpStabilized", 3, "DesiredWithinRange"},
        behavior_case{"UpWindowLowestAboveCurrent", 3, 8, 1, 10, {{30, 5}, {20, 6}}, default_up(60), default_down(), 5, "ScaleUpStabilized", 5, "DesiredWithinRange"},
        behavior_case{"ScaleUpRateLimited", 2, 20, 1, 100, {}, default_up(), default_down(), 20, "ReadyForNewScale", 6, "ScaleUpLimit"},
        behavior_case{"MaxBelowRateLimit", 2, 20, 1, 5, {}, default_up(), default_down(), 20, "ReadyForNewScale", 5, "TooManyReplicas"},
        behavior_case{"ScaleDownRateLimited", 10, 1, 1, 20, {}, default_up(), rules({{scaling_policy_type::pods, 2, 60}}, select_policy::max, 0), 1, "ReadyForNewScale", 8, "ScaleDownLimit"},
        behavior_case{"MinAboveRateLimit", 10, 1, 9, 20, {}, default_up(), rules({{scaling_policy_type::pods, 5, 60}}, select_policy::max, 0), 1, "ReadyForNewScale", 9, "TooFewReplicas"},
        behavior_case{"ScaleDownDisabled", 10, 3, 1, 20, {}, default_up(), rules({percent100}, select_policy::disabled, 0), 3, "ReadyForNewScale", 10, "ScaleDownLimit"},
        behavior_case{"ScaleUpDisabled", 3, 10, 1, 20, {}, rules({pods4}, select_policy::disabled, 0), default_down(), 10, "ReadyForNewScale", 3, "ScaleUpLimit"},
        behavior_case{"NoChange", 4, 4, 1, 10, {{10, 4}}, default_up(), default_down(), 4, "ReadyForNewScale", 4, "DesiredWithinRange"},
        // an unset scaleDown window comes from the controller flag (60 s here)
        behavior_case{"DownWindowFromConfig", 7, 3, 1, 10, {{61, 7}}, default_up(), default_down(), 3, "ReadyForNewScale", 3, "DesiredWithinRange", {}, 60},
        behavior_case{"DownWindowFromConfigDefault", 7, 3, 1, 10, {{61, 7}}, default_up(), default_down(), 7, "ScaleDownStabilized", 7, "DesiredWithinRange"},
        // a recent +4 leaves no room under the Pods policy and the Percent policy: limit = current
        behavior_case{"RateLimitUsesEvents", 8, 20, 1, 100, {}, default_up(), default_down(), 20, "ReadyForNewScale", 8, "ScaleUpLimit", {{5, 4}}},
        // desired equal to current stays put whatever the windows hold
        behavior_case{"EqualStaysReady", 5, 5, 1, 10, {{10, 3}}, default_up(60), default_down(0), 5, "ReadyForNewScale", 5, "DesiredWithinRange"}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

struct legacy_case {
    const char* name;
    std::int32_t current;
    std::int32_t desired;
    std::int32_t min;
    std::int32_t max;
    std::vector<R> recommendations;
    std::int32_t expect_stabilized;
    const char* expect_stabilize_reason;
    std::int32_t expect_limited;
    const char* expect_limit_reason;
    double factor = 2.0;
};
void PrintTo(const legacy_case& c, std::ostream* os) {
    *os << c.name;
}

class LegacyNormalization : public ::testing::TestWithParam<legacy_case> {};
TEST_P(LegacyNormalization, MatchesUpstream) {
    const auto& c = GetParam();
    history h;
    for (const auto& r : c.recommendations)
        h.recommendations.push_back({ago(r.age), r.replicas});
    controller_config config;
    config.scale_up_limit_factor = c.factor;
    const auto n = normalize_legacy(h, c.current, c.desired, c.min, c.max, config, now());
    EXPECT_EQ(n.stabilized, c.expect_stabilized);
    EXPECT_EQ(n.stabilize_reason, c.expect_stabilize_reason);
    EXPECT_EQ(n.limited, c.expect_limited);
    EXPECT_EQ(n.limit_reason, c.expect_limit_reason);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, LegacyNormalization,
    ::testing::Values(
        legacy_case{"ScaleUpWithinCap", 3, 5, 1, 10, {{0, 3}}, 5, "ReadyForNewScale", 5, "DesiredWithinRange"},
        legacy_case{"ScaleUpCapTwiceCurrent", 3, 10, 1, 20, {{0, 3}}, 10, "ReadyForNewScale", 6, "ScaleUpLimit"},
        legacy_case{"MaxBelowCap", 3, 10, 1, 5, {{0, 3}}, 10, "ReadyForNewScale", 5, "TooManyReplicas"},
        legacy_case{"CapMinimumFour", 1, 10, 1, 20, {{0, 1}}, 10, "ReadyForNewScale", 4, "ScaleUpLimit"},
        legacy_case{"CapFactorFromConfig", 3, 30, 1, 100, {}, 30, "ReadyForNewScale", 24, "ScaleUpLimit", 8.0},
        legacy_case{"ScaleDownStabilized", 5, 2, 1, 10, {{100, 5}}, 5, "ScaleDownStabilized", 5, "DesiredWithinRange"},
        legacy_case{"ScaleDownAfterWindow", 5, 2, 1, 10, {{301, 5}}, 2, "ReadyForNewScale", 2, "DesiredWithinRange"},
        // an entry exactly at the cutoff is still inside the legacy window (Before is strict)
        legacy_case{"CutoffIsInside", 5, 2, 1, 10, {{300, 5}}, 5, "ScaleDownStabilized", 5, "DesiredWithinRange"},
        legacy_case{"BelowMin", 3, 0, 2, 10, {}, 0, "ReadyForNewScale", 2, "TooFewReplicas"},
        // the legacy window applies the maximum in both directions
        legacy_case{"MaxAppliesOnScaleUpToo", 5, 6, 1, 20, {{10, 8}}, 8, "ScaleDownStabilized", 8, "DesiredWithinRange"},
        legacy_case{"NoScaleDownLimit", 10, 1, 1, 20, {}, 1, "ReadyForNewScale", 1, "DesiredWithinRange"}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

// ---------------------------------------------------------------------------------------------

TEST(Recommendations, StaleSlotIsReused) {
    history h;
    h.recommendations = {{ago(900), 2}, {ago(400), 3}, {ago(10), 4}};
    controller_config config;
    normalize_legacy(h, 4, 5, 1, 10, config, now());
    // the last entry older than the window (ago 400) is overwritten; nothing is appended
    ASSERT_EQ(h.recommendations.size(), 3u);
    EXPECT_EQ(h.recommendations[0].replicas, 2);
    EXPECT_EQ(h.recommendations[1], (timed_recommendation{now(), 5}));
}

TEST(Recommendations, AppendedWhenNoneStale) {
    history h;
    h.recommendations = {{ago(10), 4}};
    behavior_spec b{default_up(), default_down()};
    normalize_with_behavior(h, 4, 5, 1, 10, b, controller_config{}, now());
    ASSERT_EQ(h.recommendations.size(), 2u);
    EXPECT_EQ(h.recommendations[1], (timed_recommendation{now(), 5}));
}

TEST(Recommendations, BehaviorReusesOnlyEntriesStaleForBothWindows) {
    history h;
    h.recommendations = {{ago(100), 4}, {ago(400), 6}};
    behavior_spec b{default_up(60), default_down(300)};
    normalize_with_behavior(h, 4, 5, 1, 10, b, controller_config{}, now());
    ASSERT_EQ(h.recommendations.size(), 2u); // ago(400) is older than both windows and replaced
    EXPECT_EQ(h.recommendations[1], (timed_recommendation{now(), 5}));
}

TEST(Recommendations, SeedOnlyOnce) {
    history h;
    seed_history(h, 3, now());
    seed_history(h, 7, now());
    ASSERT_EQ(h.recommendations.size(), 1u);
    EXPECT_EQ(h.recommendations[0].replicas, 3);
}

// Upstream recordInitialRecommendation seeds only a nil log: horizontal_test.go TestScaleDown runs
// with `recommendations: []timestampedRecommendation{}` and scales down at once.
TEST(Recommendations, AnEmptyLogThatExistsIsNotSeeded) {
    history h;
    h.started = true;
    seed_history(h, 5, now());
    EXPECT_TRUE(h.recommendations.empty());
}

// Issue 69 (2): a wall-clock step moves everything remembered by the step, so that a window read
// at the stepped time sees the ages the steady clock measured: 100 s back is still inside a 300 s
// scale-down window after a 15-minute step forward.
TEST(Recommendations, AShiftedHistoryKeepsItsAgesAcrossAClockStep) {
    history h;
    h.recommendations = {{ago(100), 6}, {ago(400), 9}};
    h.scale_up_events = {{ago(30), 2}};
    h.scale_down_events = {{ago(50), 1}};
    h.last_known_good = {{0, ago(20), 4}};
    const auto step = std::chrono::minutes(15);
    shift_history(h, step);
    const core::time_point stepped = now() + step;
    EXPECT_EQ(h.recommendations[0].time, stepped - std::chrono::seconds(100));
    EXPECT_EQ(h.recommendations[1].time, stepped - std::chrono::seconds(400));
    EXPECT_EQ(h.scale_up_events[0].time, stepped - std::chrono::seconds(30));
    EXPECT_EQ(h.scale_down_events[0].time, stepped - std::chrono::seconds(50));
    EXPECT_EQ(h.last_known_good[0].time, stepped - std::chrono::seconds(20));
    // The 6 recommended 100 s ago still holds a scale-down to 2; the 9 from 400 s ago does not.
    behavior_spec b{default_up(60), default_down(300)};
    EXPECT_EQ(normalize_with_behavior(h, 6, 2, 1, 10, b, controller_config{}, stepped).stabilized,
              6);
}

TEST(ScaleEvents, StoredPerDirectionAndReuseStaleSlots) {
    history h;
    behavior_spec b{default_up(), default_down()};
    store_scale_event(h, b, 3, 7, now());
    ASSERT_EQ(h.scale_up_events.size(), 1u);
    EXPECT_EQ(h.scale_up_events[0].change, 4);
    store_scale_event(h, b, 7, 5, now());
    ASSERT_EQ(h.scale_down_events.size(), 1u);
    EXPECT_EQ(h.scale_down_events[0].change, 2);

    // older than the longest policy period (15 s) → the slot is reused
    h.scale_up_events = {{ago(100), 1}, {ago(50), 2}, {ago(5), 3}};
    store_scale_event(h, b, 5, 6, now());
    ASSERT_EQ(h.scale_up_events.size(), 3u);
    EXPECT_EQ(h.scale_up_events[0].change, 1);
    EXPECT_EQ(h.scale_up_events[1], (scale_event{now(), 1}));
}

} // namespace
} // namespace hpaplus::policy
