// HPAPlus spec.unreadyPods, metrics[].tolerance and metrics[].maxSampleAgeSeconds: the grouping and
// ratio rules they change, the band and age of one metric, and what a sequence of reconciles says
// about them. Without the fields every answer is upstream's (the other tables and goldens).
#include "policy/decision.hpp"
#include "policy/metric_evaluation.hpp"
#include "policy/validation.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace hpaplus::policy {
namespace {

using test::P;
using test::S;
constexpr auto rfalse = core::condition_status::false_;
const controller_config config{};

std::vector<std::string> names(const std::vector<std::string_view>& views) {
    return {views.begin(), views.end()};
}

// ---------------------------------------------------------------------------------------------
// Pod grouping (cpu): Count keeps a pod that is not Ready once it is past both start-up windows.

TEST(UnreadyPodsGrouping, CountKeepsUnreadyPodsPastTheirStartUpWindows) {
    const auto pods = test::make_pods({
        {"ready"},
        {"never-ready", 1000, pod_phase::running, rfalse, 600, 595}, // upstream: never been ready
        {"starting", 1000, pod_phase::running, rfalse, 120, 115},    // inside cpu init (300 s)
        {"no-condition", 1000, pod_phase::running, std::nullopt, 600, 0},
        {"pending", 1000, pod_phase::pending, rfalse, 600, 595},
    });
    const auto samples = test::make_samples({{"ready", 500},
                                             {"never-ready", 900},
                                             {"starting", 900},
                                             {"no-condition", 700},
                                             {"pending", 100}});
    const auto upstream = group_pods(pods.view, samples, "cpu", config, test::now());
    EXPECT_EQ(upstream.ready_count, 1);
    EXPECT_EQ(names(upstream.unready),
              (std::vector<std::string>{"never-ready", "starting", "no-condition", "pending"}));
    EXPECT_TRUE(upstream.counted_unready.empty());

    const auto counted =
        group_pods(pods.view, samples, "cpu", config, test::now(), unready_pods::count);
    EXPECT_EQ(counted.ready_count, 3);
    EXPECT_EQ(names(counted.counted_unready),
              (std::vector<std::string>{"never-ready", "no-condition"}));
    // Pods still starting stay out, so a boot spike does not inflate the count.
    EXPECT_EQ(names(counted.unready), (std::vector<std::string>{"starting", "pending"}));
}

TEST(UnreadyPodsGrouping, PastStartUpIsTheLongerOfBothWindows) {
    controller_config long_delay = config;
    long_delay.initial_readiness_delay = std::chrono::seconds(900);
    const auto pods = test::make_pods({{"p", 1000, pod_phase::running, rfalse, 600, 595}});
    EXPECT_TRUE(past_start_up(*pods.view[0], config, test::now()));
    EXPECT_FALSE(past_start_up(*pods.view[0], long_delay, test::now()));
    const auto no_start = test::make_pods({{"p", 1000, pod_phase::running, rfalse, -1, 595}});
    EXPECT_FALSE(past_start_up(*no_start.view[0], config, test::now()));
}

// CPU with Count: the unready pods count at what they measure, in both directions (a scale-down
// never counts one as busier than it measures).
TEST(UnreadyPodsUtilization, CountsUnreadyPodsAtTheirMeasuredValue) {
    const auto pods = test::make_pods({{"a"},
                                       {"b"},
                                       {"c", 1000, pod_phase::running, rfalse, 600, 595},
                                       {"d", 1000, pod_phase::running, rfalse, 600, 595}});
    calculator_context ctx{4, {0.1, 0.1}, &pods.view, &config, test::now()};
    const auto busy = test::make_samples({{"a", 500}, {"b", 500}, {"c", 1000}, {"d", 1000}});
    // Upstream: the ready pods are at the 50 % target; the unready ones are left out.
    auto r = resource_utilization_replicas(ctx, busy, 50, "cpu", "", usage_basis::requests);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->replicas, 4);
    ctx.unready = unready_pods::count;
    // Count: (500 + 500 + 1000 + 1000) / 4000 = 75 %, ratio 1.5, ceil(1.5 × 4) = 6.
    r = resource_utilization_replicas(ctx, busy, 50, "cpu", "", usage_basis::requests);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->replicas, 6);
    EXPECT_EQ(r->utilization, 75);
    EXPECT_EQ(names(r->counted_unready), (std::vector<std::string>{"c", "d"}));
    // Idle unready pods pull a scale-down down by what they measure: 200 / 4000 = 5 %,
    // ratio 0.1, ceil(0.1 × 4) = 1.
    const auto idle = test::make_samples({{"a", 100}, {"b", 100}, {"c", 0}, {"d", 0}});
    r = resource_utilization_replicas(ctx, idle, 50, "cpu", "", usage_basis::requests);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->replicas, 1);
}

// ---------------------------------------------------------------------------------------------
// Object / External Value: ratio × the pods that count.

struct ratio_case {
    const char* name;
    std::vector<P> pods;
    unready_pods mode;
    std::int32_t expect;
    std::vector<std::string> counted = {};
    bool stood_in = false;
};
void PrintTo(const ratio_case& c, std::ostream* os) {
    *os << c.name;
}
class UnreadyPodsRatio : public ::testing::TestWithParam<ratio_case> {};

TEST_P(UnreadyPodsRatio, TimesThePodsThatCount) {
    const auto& c = GetParam();
    const auto pods = test::make_pods(c.pods);
    calculator_context ctx{4, {0.1, 0.1}, &pods.view, &config, test::now()};
    ctx.unready = c.mode;
    const auto r = usage_ratio_replicas(ctx, 4.0); // a queue 4× its target
    ASSERT_TRUE(r) << r.error().text;
    EXPECT_EQ(r->replicas, c.expect);
    EXPECT_EQ(names(r->counted_unready), c.counted);
    EXPECT_EQ(r->replicas_stood_in, c.stood_in);
}

const P unready{"u", 1000, pod_phase::running, rfalse, 600, 120};
P named(P p, const char* name) {
    p.name = name;
    return p;
}
P deleting(P p) {
    p.deleting = true;
    return p;
}
const P starting{"s", 1000, pod_phase::running, rfalse, 60, 60};

// clang-format off
INSTANTIATE_TEST_SUITE_P(Table, UnreadyPodsRatio, ::testing::Values(
    // Upstream (Ignore): ceil(4 × 0 Ready pods) = 0, a scale-down in a readiness collapse.
    ratio_case{"IgnoreCountsOnlyReadyPods", {named(unready, "a"), named(unready, "b"), named(unready, "c"), named(unready, "d")}, unready_pods::ignore, 0},
    ratio_case{"CountAddsUnreadyPodsPastStartUp", {named(unready, "a"), named(unready, "b"), named(unready, "c"), named(unready, "d")}, unready_pods::count, 16, {"a", "b", "c", "d"}},
    ratio_case{"CountWithSomeReady", {P{"a"}, named(unready, "b")}, unready_pods::count, 8, {"b"}},
    ratio_case{"CountLeavesStartingAndDeletingPodsOut", {P{"a"}, named(starting, "b"), deleting(named(unready, "c"))}, unready_pods::count, 4},
    // No pod counts: the current replicas (4) stand in, ceil(4 × 4) = 16.
    ratio_case{"CountWithEveryPodStartingUsesTheReplicas", {named(starting, "a"), named(starting, "b")}, unready_pods::count, 16, {}, true},
    ratio_case{"IgnoreWithEveryPodStarting", {named(starting, "a"), named(starting, "b")}, unready_pods::ignore, 0}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

// ---------------------------------------------------------------------------------------------
// A metric's own band

metric_spec cpu_metric(std::int32_t target) {
    metric_spec m;
    m.resource_name = "cpu";
    m.target.average_utilization = target;
    return m;
}

TEST(MetricTolerance, EachSideItSetsReplacesTheObjectsSide) {
    const tolerances object_band{0.1, 0.15};
    metric_spec m = cpu_metric(60);
    EXPECT_EQ(tolerances_for(m, object_band).scale_up, 0.15);
    m.tolerance = metric_tolerance{core::quantity::parse("0.2").value(), std::nullopt};
    const auto band = tolerances_for(m, object_band);
    EXPECT_EQ(band.scale_up, 0.2);
    EXPECT_EQ(band.scale_down, 0.1);
    m.tolerance->scale_down = core::quantity::parse("0").value();
    EXPECT_EQ(tolerances_for(m, object_band).scale_down, 0.0);
}

// 70 % of a 60 % target (ratio 1.1667): out of the default band (scale up to ceil(1.1667 × 3) =
// 4), inside the metric's own 0.2 (keep 3). Several metrics: each proposes with its own band,
// the highest proposal wins.
TEST(MetricTolerance, EachMetricProposesWithItsOwnBandAndTheHighestWins) {
    const auto pods = test::make_pods({{"a"}, {"b"}, {"c"}});
    reconcile_input in;
    in.hpa = test::make_hpa(1, 10, 60);
    in.scale = scale_snapshot{3, 3, "app=web"};
    in.pods = pods.view;
    in.now = test::now();
    metric_reading r;
    r.samples = test::make_samples({{"a", 700}, {"b", 700}, {"c", 700}});
    in.readings = {r};
    EXPECT_EQ(decide(in).desired_replicas, 4);
    in.hpa.spec.metrics[0].tolerance =
        metric_tolerance{core::quantity::parse("0.2").value(), std::nullopt};
    EXPECT_EQ(decide(in).desired_replicas, 3);
    // A second metric at the same ratio with the object's band still asks for 4.
    in.hpa.spec.metrics.push_back(cpu_metric(60));
    in.readings.push_back(r);
    const decision d = decide(in);
    EXPECT_EQ(d.desired_replicas, 4);
    ASSERT_EQ(d.metrics.size(), 2U);
    EXPECT_EQ(d.metrics[0].proposal, 3);
    EXPECT_EQ(d.metrics[1].proposal, 4);
}

// ---------------------------------------------------------------------------------------------
// A sample's age

TEST(MaxSampleAge, NamesTheAgeOfTheOldestSample) {
    metric_spec m;
    m.type = metric_source_type::external;
    metric_reading r;
    r.external_values = {100};
    policy::note_sample_time(r, test::ago(30));
    policy::note_sample_time(r, test::ago(598));
    policy::note_sample_time(r, core::time_point{}); // no time: ignored
    EXPECT_EQ(r.sample_time, test::ago(598));
    EXPECT_FALSE(stale_sample(m, r, test::now())); // no limit set
    m.max_sample_age = std::chrono::seconds(120);
    EXPECT_EQ(stale_sample(m, r, test::now()),
              "sample from 9m58s ago, older than maxSampleAgeSeconds 120");
    m.max_sample_age = std::chrono::seconds(598);
    EXPECT_FALSE(stale_sample(m, r, test::now())); // exactly the limit is fresh enough
    metric_reading unknown;
    unknown.external_values = {100};
    EXPECT_FALSE(stale_sample(m, unknown, test::now()));
}

TEST(MaxSampleAge, PodSamplesAreDatedByTheirOwnTimestamps) {
    metric_spec m = cpu_metric(50);
    m.max_sample_age = std::chrono::seconds(60);
    metric_reading r;
    r.samples = test::make_samples({{"a", 500, 15}, {"b", 500, 61}});
    EXPECT_EQ(oldest_sample(r), test::ago(61));
    EXPECT_EQ(stale_sample(m, r, test::now()),
              "sample from 1m1s ago, older than maxSampleAgeSeconds 60");
    const auto pods = test::make_pods({{"a"}, {"b"}});
    const metric_context ctx{"default", 2, 2, {}, &pods.view, &config, test::now()};
    const metric_outcome o = evaluate_metric(m, r, ctx);
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.failure_reason, "FailedGetResourceMetric");
    EXPECT_EQ(o.failure_detail, "failed to get cpu utilization: unable to get metrics for resource "
                                "cpu: sample from 1m1s ago, older than maxSampleAgeSeconds 60");
}

// ---------------------------------------------------------------------------------------------
// Over a sequence of reconciles: the UnreadyPodsCounted Event says each change once.

TEST(UnreadyPodsReconciles, SayEachChangeOnce) {
    auto pods = test::make_pods({{"a", 1000, pod_phase::running, rfalse, 600, 120},
                                 {"b", 1000, pod_phase::running, rfalse, 600, 120}});
    reconcile_input in;
    in.hpa = test::make_hpa(1, 20, 50);
    in.hpa.spec.unready = unready_pods::count;
    in.hpa.spec.metrics = {metric_spec{}};
    auto& m = in.hpa.spec.metrics[0];
    m.type = metric_source_type::external;
    m.metric.name = "queue";
    m.target.type = metric_target_type::value;
    m.target.value = core::quantity::from_milli(100000);
    in.scale = scale_snapshot{2, 2, "app=web"};
    in.pods = pods.view;
    in.now = test::now();
    metric_reading queue;
    queue.external_values = {400000};
    in.readings = {queue};

    auto counted_events = [](const decision& d) {
        std::vector<std::string> out;
        for (const auto& e : d.events)
            if (e.reason == "UnreadyPodsCounted") out.push_back(e.message);
        return out;
    };
    decision d = decide(in);
    EXPECT_EQ(d.metrics.at(0).proposal, 8);
    EXPECT_EQ(counted_events(d),
              std::vector<std::string>{"2 unready pods counted (readiness collapse): a b"});
    EXPECT_EQ(d.stages.counted_unready, (std::vector<std::string>{"a", "b"}));

    in.hist = d.hist; // the same pods next pass: nothing new to say
    d = decide(in);
    EXPECT_TRUE(counted_events(d).empty());

    in.hist = d.hist; // a metric that fails says nothing about the pods either
    in.readings[0].error = "down";
    d = decide(in);
    EXPECT_TRUE(counted_events(d).empty());
    in.readings[0].error.reset();

    in.hist = d.hist; // ready again
    pods = test::make_pods({{"a"}, {"b"}});
    in.pods = pods.view;
    d = decide(in);
    EXPECT_EQ(counted_events(d), std::vector<std::string>{
                                     "every pod that counts is ready again; no unready pod counted"});
    in.hist = d.hist;
    d = decide(in);
    EXPECT_TRUE(counted_events(d).empty());

    // Counting again, then the field is set back to Ignore: that is said once too.
    pods = test::make_pods({{"a", 1000, pod_phase::running, rfalse, 600, 120}});
    in.pods = pods.view;
    in.hist = d.hist;
    d = decide(in);
    EXPECT_EQ(counted_events(d).size(), 1U);
    in.hist = d.hist;
    in.hpa.spec.unready = unready_pods::ignore;
    d = decide(in);
    EXPECT_EQ(counted_events(d),
              std::vector<std::string>{"unreadyPods is no longer Count; no unready pod counted"});
    in.hist = d.hist;
    EXPECT_TRUE(counted_events(decide(in)).empty());
}

// ---------------------------------------------------------------------------------------------
// Validation

TEST(ReadinessAndBandsValidation, RefusesWhatTheDecisionCannotUse) {
    autoscaler_spec spec = test::make_hpa(1, 10).spec;
    spec.metrics[0].tolerance = metric_tolerance{std::nullopt, core::quantity::parse("-0.1").value()};
    spec.metrics[0].max_sample_age = std::chrono::seconds(0);
    auto errors = validate(spec);
    ASSERT_EQ(errors.size(), 2U);
    EXPECT_EQ(errors[0].field, "spec.metrics[0].tolerance.scaleDown");
    EXPECT_EQ(errors[0].message, "must be greater than or equal to 0");
    EXPECT_EQ(errors[1].field, "spec.metrics[0].maxSampleAgeSeconds");

    spec = test::make_hpa(1, 10).spec;
    spec.metrics[0].name = "cpu";
    spec.metrics[0].tolerance = metric_tolerance{core::quantity::parse("0.2").value(), {}};
    metric_spec formula;
    formula.type = metric_source_type::formula;
    formula.formula = "cpu * 2";
    formula.target.type = metric_target_type::value;
    formula.target.value = core::quantity::from_milli(1000);
    formula.max_sample_age = std::chrono::seconds(60);
    spec.metrics.push_back(formula);
    errors = validate(spec);
    ASSERT_EQ(errors.size(), 2U);
    EXPECT_EQ(errors[0].field, "spec.metrics[0].tolerance");
    EXPECT_EQ(errors[1].field, "spec.metrics[1].maxSampleAgeSeconds");
}

} // namespace
} // namespace hpaplus::policy
