// Tests of the replay engine: pods that take load only once ready, the cost and risk counted
// second by second, one decision per sync period, determinism.
#include "policy/replay.hpp"

#include "policy/defaults.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace hpaplus::policy {
namespace {

using namespace std::chrono_literals;

recorded_load cpu_load(std::vector<std::optional<double>> cores, std::int32_t replicas = 2) {
    recorded_load load;
    load.start = test::now();
    load.step = 60s;
    load.initial_replicas = replicas;
    load.requests = {{"cpu", core::quantity::from_milli(500)}};
    load.series[0] = std::move(cores);
    return load;
}

autoscaler cpu_hpa(std::int32_t min, std::int32_t max, std::int32_t target) {
    autoscaler a = test::make_hpa(min, max, target);
    apply_defaults(a.spec);
    return a;
}

TEST(Replay, ASteadyLoadInsideTheToleranceNeverScales) {
    // 0.6 cores over 2 pods of 500m = 60 % against a 60 % target.
    const auto r = replay(cpu_hpa(2, 10, 60), cpu_load({0.6, 0.6, 0.6}), controller_config{});
    EXPECT_EQ(r.summary.rescales, 0);
    EXPECT_EQ(r.summary.max_replicas, 2);
    EXPECT_EQ(r.summary.replica_seconds, 2 * 180);
    EXPECT_EQ(r.summary.seconds_above_target, 0);
    EXPECT_EQ(r.decisions.size(), 12u); // every 15 s over 3 minutes
}

TEST(Replay, ALoadAboveTargetScalesUpAndNewPodsCarryLoadOnlyOnceReady) {
    // 2 cores over 2 pods = 200 %: up to ceil(2 × 200 / 50) = 8 at once (legacy limit: 4 first).
    auto load = cpu_load(std::vector<std::optional<double>>(10, 2.0));
    const auto r = replay(cpu_hpa(1, 10, 50), load, controller_config{});
    ASSERT_FALSE(r.decisions.empty());
    EXPECT_EQ(r.decisions.front().replicas, 4); // max(2 × 2, 4)
    EXPECT_EQ(r.decisions.front().reason, "cpu resource utilization (percentage of request) above "
                                          "target");
    EXPECT_EQ(r.summary.max_replicas, 8);
    // Above target until enough pods are ready: 2 cores / 0.25 per pod = 8 ready pods.
    EXPECT_GT(r.summary.seconds_above_target, 30);
    EXPECT_LT(r.summary.seconds_above_target, 600);
    // The decision 15 s after the first still sees 2 ready pods of 4.
    EXPECT_EQ(r.decisions[1].ready, 2);
}

// metrics[].tolerance in a replay: 70 % of a 60 % target scales with the default band, and is
// within a metric's own band of 0.2.
TEST(Replay, AMetricsOwnBandKeepsWhatTheDefaultBandScales) {
    const auto load = cpu_load({0.7, 0.7, 0.7}); // 0.7 cores over 2 pods of 500m = 70 %
    EXPECT_GT(replay(cpu_hpa(2, 10, 60), load, controller_config{}).summary.rescales, 0);
    autoscaler wide = cpu_hpa(2, 10, 60);
    wide.spec.metrics[0].tolerance = metric_tolerance{core::quantity::parse("0.2").value(), {}};
    EXPECT_EQ(replay(wide, load, controller_config{}).summary.rescales, 0);
}

TEST(Replay, ALongerReadinessDelayKeepsTheWorkloadAboveTargetLonger) {
    auto fast = cpu_load(std::vector<std::optional<double>>(10, 2.0));
    auto slow = fast;
    slow.readiness_delay = 120s;
    const auto a = replay(cpu_hpa(1, 10, 50), fast, controller_config{});
    const auto b = replay(cpu_hpa(1, 10, 50), slow, controller_config{});
    EXPECT_GT(b.summary.seconds_above_target, a.summary.seconds_above_target);
}

TEST(Replay, AMissingSampleFailsThatMetricAndBlocksAScaleDown) {
    // High, then gone, then low: while the sample is missing nothing scales down.
    auto load = cpu_load({2.0, std::nullopt, std::nullopt, 0.1});
    autoscaler hpa = cpu_hpa(1, 10, 50);
    hpa.spec.behavior.emplace();
    hpa.spec.behavior->scale_down.emplace();
    hpa.spec.behavior->scale_down->stabilization_window_seconds = 0;
    apply_defaults(hpa.spec);
    std::vector<std::string> errors;
    const auto r = replay(hpa, load, controller_config{},
                          [&](std::size_t, const reconcile_input&, const decision& d) {
                              if (d.error) errors.push_back(*d.error);
                          });
    ASSERT_EQ(errors.size(), 8u); // the 8 decisions of the 2 missing minutes
    EXPECT_NE(errors.front().find("no recorded value for spec.metrics[0] at "), std::string::npos);
    EXPECT_EQ(r.summary.scale_downs, 1); // only in the last minute
}

TEST(Replay, TheSamePlayTwiceGivesTheSameDecisions) {
    auto load = cpu_load({1.0, 4.0, 4.0, 1.0, 0.5, 3.0});
    const auto a = replay(cpu_hpa(2, 20, 60), load, controller_config{});
    const auto b = replay(cpu_hpa(2, 20, 60), load, controller_config{});
    ASSERT_EQ(a.decisions.size(), b.decisions.size());
    for (std::size_t i = 0; i < a.decisions.size(); ++i) {
        EXPECT_EQ(a.decisions[i].replicas, b.decisions[i].replicas);
        EXPECT_EQ(a.decisions[i].reason, b.decisions[i].reason);
    }
    EXPECT_EQ(a.summary.replica_seconds, b.summary.replica_seconds);
}

TEST(Replay, TheSyncPeriodSetsTheDecisions) {
    autoscaler hpa = cpu_hpa(2, 10, 60);
    hpa.spec.sync_period_seconds = 60;
    const auto r = replay(hpa, cpu_load({0.6, 0.6, 0.6}), controller_config{});
    EXPECT_EQ(r.decisions.size(), 3u);
}

} // namespace
} // namespace hpaplus::policy
