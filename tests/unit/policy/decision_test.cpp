// Tests of one whole reconcile (decide + finish): the upstream flow, its conditions, events and
// error texts, and the HPAPlus stages (fallback, rollout gate, modes).
#include "policy/decision.hpp"

#include "core/kubernetes.hpp"
#include "policy/defaults.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace hpaplus::policy {
namespace {

using test::ago;
using test::now;

metric_reading samples(std::vector<test::S> rows) {
    metric_reading r;
    r.samples = test::make_samples(rows);
    return r;
}

metric_reading failure(std::string text) {
    metric_reading r;
    r.error = std::move(text);
    return r;
}

metric_reading external(std::vector<std::int64_t> values) {
    metric_reading r;
    r.external_values = std::move(values);
    if (r.external_values.empty()) r.error = "no metrics returned from external metrics API";
    return r;
}

metric_spec external_metric(std::int64_t target_milli) {
    metric_spec m;
    m.type = metric_source_type::external;
    m.metric.name = "qps";
    m.target.type = metric_target_type::value;
    m.target.value = core::quantity::from_milli(target_milli);
    return m;
}

struct Reconcile : ::testing::Test {
    test::pod_set pods = test::make_pods({{"a"}, {"b"}, {"c"}});
    reconcile_input in;

    Reconcile() {
        in.hpa = test::make_hpa(1, 10, 50);
        in.scale = scale_snapshot{3, 3, "app=web"};
        in.pods = pods.view;
        in.now = now();
        in.readings = {samples({{"a", 500}, {"b", 500}, {"c", 500}})};
    }

    decision run(std::optional<std::string> write_error = std::nullopt) {
        decision d = decide(in);
        finish(d, in, write_error);
        return d;
    }

    static const core::condition& cond(const decision& d, std::string_view type) {
        const core::condition* c = core::find_condition(d.status.conditions, type);
        EXPECT_NE(c, nullptr) << "no core::condition " << type;
        static const core::condition none{};
        return c ? *c : none;
    }
};

TEST_F(Reconcile, ScaleReadFailureSetsConditionAndEvent) {
    in.scale.reset();
    in.scale_error = "deployments.apps \"web\" not found";
    in.hpa.status.current_replicas = 4;
    in.hpa.status.desired_replicas = 5;
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_EQ(d.current_replicas, 4);
    EXPECT_EQ(d.desired_replicas, 5);
    EXPECT_EQ(cond(d, "AbleToScale").reason, "FailedGetScale");
    EXPECT_EQ(cond(d, "AbleToScale").message, "the HPA controller was unable to get the target's "
                                              "current scale: deployments.apps \"web\" not found");
    ASSERT_EQ(d.events.size(), 1u);
    EXPECT_EQ(d.events[0].reason, "FailedGetScale");
    EXPECT_EQ(d.error, "failed to query scale subresource for Deployment/default/web: "
                       "deployments.apps \"web\" not found");
    EXPECT_TRUE(d.hist.recommendations.empty()); // not seeded before a scale was read
}

TEST_F(Reconcile, ScaleUpSucceeds) {
    in.readings = {samples({{"a", 800}, {"b", 800}, {"c", 800}})}; // 80 % of 50 % → 1.6 × 3 → 5
    const decision d = run();
    EXPECT_TRUE(d.scale_updated);
    EXPECT_EQ(d.target_replicas, 5);
    EXPECT_EQ(d.desired_replicas, 5);
    EXPECT_EQ(d.rescale_reason, "cpu resource utilization (percentage of request) above target");
    ASSERT_EQ(d.events.size(), 1u);
    EXPECT_EQ(d.events[0].type, "Normal");
    EXPECT_EQ(d.events[0].message,
              "New size: 5; reason: cpu resource utilization (percentage of request) above target");
    std::vector<std::string> types;
    for (const auto& c : d.status.conditions)
        types.push_back(c.type);
    // No ScaledToZero: kube-controller-manager writes it only with its HPAScaleToZero gate on.
    EXPECT_EQ(types, (std::vector<std::string>{"AbleToScale", "ScalingActive", "ScalingLimited"}));
    EXPECT_EQ(cond(d, "AbleToScale").reason, "SucceededRescale");
    EXPECT_EQ(d.status.last_scale_time, now());
    ASSERT_EQ(d.hist.recommendations.size(), 2u); // the seed (3) and this recommendation (5)
    EXPECT_EQ(d.hist.recommendations[0].replicas, 3);
    EXPECT_EQ(d.hist.recommendations[1].replicas, 5);
    EXPECT_TRUE(d.hist.scale_up_events.empty()); // events are kept only with spec.behavior
}

TEST_F(Reconcile, ScaleEventsKeptWithBehavior) {
    in.hpa.spec.behavior.emplace();
    apply_defaults(in.hpa.spec);
    in.readings = {samples({{"a", 800}, {"b", 800}, {"c", 800}})};
    const decision d = run();
    ASSERT_EQ(d.hist.scale_up_events.size(), 1u);
    EXPECT_EQ(d.hist.scale_up_events[0], (scale_event{now(), 2}));
}

TEST_F(Reconcile, ScaleWriteFailureKeepsDesired) {
    in.hpa.status.desired_replicas = 3;
    in.readings = {samples({{"a", 800}, {"b", 800}, {"c", 800}})};
    const decision d = run("Operation cannot be fulfilled");
    EXPECT_FALSE(d.scale_updated);
    EXPECT_EQ(d.desired_replicas, 3);
    EXPECT_EQ(cond(d, "AbleToScale").status, core::condition_status::false_);
    EXPECT_EQ(cond(d, "AbleToScale").reason, "FailedUpdateScale");
    ASSERT_EQ(d.events.size(), 1u);
    EXPECT_EQ(d.events[0].reason, "FailedRescale");
    EXPECT_EQ(d.events[0].message,
              "New size: 5; reason: cpu resource utilization (percentage of request) above target; "
              "error: Operation cannot be fulfilled");
    EXPECT_EQ(d.error, "failed to rescale Deployment/default/web: Operation cannot be fulfilled");
    EXPECT_FALSE(d.status.last_scale_time);
}

TEST_F(Reconcile, ZeroReplicasDisablesScaling) {
    in.scale = scale_snapshot{0, 0, "app=web"};
    EXPECT_FALSE(needs_metrics(in.hpa, in.scale, std::nullopt, in.config));
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_EQ(d.desired_replicas, 0);
    EXPECT_EQ(cond(d, "ScalingActive").reason, "ScalingDisabled");
    EXPECT_TRUE(d.events.empty());
}

TEST_F(Reconcile, AboveMaxGoesToMaxWithoutMetrics) {
    in.scale = scale_snapshot{12, 12, "app=web"};
    in.readings.clear();
    EXPECT_FALSE(needs_metrics(in.hpa, in.scale, std::nullopt, in.config));
    const decision d = run();
    EXPECT_EQ(d.target_replicas, 10);
    EXPECT_EQ(d.rescale_reason, "Current number of replicas above Spec.MaxReplicas");
    EXPECT_TRUE(d.metrics.empty());
    EXPECT_EQ(core::find_condition(d.status.conditions, "ScalingActive"), nullptr);
}

TEST_F(Reconcile, BelowMinGoesToMin) {
    in.hpa.spec.min_replicas = 4;
    const decision d = run();
    EXPECT_EQ(d.target_replicas, 4);
    EXPECT_EQ(d.rescale_reason, "Current number of replicas below Spec.MinReplicas");
}

TEST_F(Reconcile, FailedMetricBlocksScaleDown) {
    in.hpa.spec.metrics.push_back(external_metric(1000));
    in.hist.recommendations = {{ago(400), 3}};
    in.readings = {samples({{"a", 100}, {"b", 100}, {"c", 100}}), external({})};
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    ASSERT_EQ(d.events.size(), 2u);
    EXPECT_EQ(d.events[0].reason, "FailedGetExternalMetric");
    EXPECT_EQ(d.events[0].message, "unable to get external metric default/qps/nil: no metrics "
                                   "returned from external metrics API");
    EXPECT_EQ(d.events[1].reason, "FailedComputeMetricsReplicas");
    EXPECT_EQ(d.events[1].message,
              "invalid metrics (1 invalid out of 2), first error is: failed to get qps external "
              "metric value: failed to get "
              "external metric qps: unable to get external metric default/qps/nil: no metrics "
              "returned from external metrics API");
    EXPECT_EQ(cond(d, "ScalingActive").reason, "FailedGetExternalMetric");
    EXPECT_EQ(cond(d, "ScalingActive").message,
              "the HPA was unable to compute the replica count: unable to get external metric "
              "default/qps/nil: no metrics "
              "returned from external metrics API");
    EXPECT_EQ(d.metrics[0].proposal, 1);
    EXPECT_FALSE(d.metrics[1].proposal);
}

TEST_F(Reconcile, FailedMetricDoesNotBlockScaleUp) {
    in.hpa.spec.metrics.push_back(external_metric(1000));
    in.readings = {samples({{"a", 800}, {"b", 800}, {"c", 800}}), failure("boom")};
    const decision d = run();
    EXPECT_TRUE(d.scale_updated);
    EXPECT_EQ(d.target_replicas, 5);
    EXPECT_EQ(cond(d, "ScalingActive").reason, "ValidMetricFound");
    ASSERT_TRUE(d.error);
    EXPECT_EQ(d.error->rfind("invalid metrics (1 invalid out of 2)", 0), 0u);
}

TEST_F(Reconcile, MissingSelector) {
    in.scale->selector = "";
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_EQ(cond(d, "ScalingActive").reason, "InvalidSelector");
    EXPECT_EQ(cond(d, "ScalingActive").message, "the HPA target's scale is missing a selector");
    ASSERT_EQ(d.events.size(), 2u);
    EXPECT_EQ(d.events[0].reason, "SelectorRequired");
    EXPECT_EQ(d.events[1].reason, "FailedComputeMetricsReplicas");
    EXPECT_EQ(d.error, "failed to compute desired number of replicas based on listed metrics for "
                       "Deployment/default/web: "
                       "selector is required");
}

TEST_F(Reconcile, UnparsableSelector) {
    in.scale->selector = "app in (web";
    const decision d = run();
    EXPECT_EQ(cond(d, "ScalingActive").reason, "InvalidSelector");
    EXPECT_EQ(d.events[0].reason, "InvalidSelector");
    EXPECT_EQ(
        cond(d, "ScalingActive")
            .message.rfind(
                "couldn't convert selector into a corresponding internal selector object: ", 0),
        0u);
}

// Upstream validateAndParseSelector / hpasControllingPodsUnderSelector: another autoscaler whose
// selector picks one of these pods makes both stop, with the same message for each.
TEST_F(Reconcile, AmbiguousSelectorStopsScaling) {
    in.peers = {{"zeta", core::parse_label_selector("app=web").value()},
                {"alpha", core::parse_label_selector("app in (web, api)").value()}};
    in.readings = {samples({{"a", 900}, {"b", 900}, {"c", 900}})};
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    const std::string msg = "pods by selector app=web are controlled by multiple HPAs: "
                            "[default/alpha default/web default/zeta]";
    EXPECT_EQ(cond(d, "ScalingActive").status, core::condition_status::false_);
    EXPECT_EQ(cond(d, "ScalingActive").reason, "AmbiguousSelector");
    EXPECT_EQ(cond(d, "ScalingActive").message, msg);
    ASSERT_EQ(d.events.size(), 2u);
    EXPECT_EQ(d.events[0].reason, "AmbiguousSelector");
    EXPECT_EQ(d.events[0].message, msg);
    EXPECT_EQ(d.events[1].reason, "FailedComputeMetricsReplicas");
}

// Upstream horizontal_test.go TestMultipleHPAs: autoscalers with selectors of their own do not
// disturb each other.
TEST_F(Reconcile, PeersThatPickOtherPodsAreNoAmbiguity) {
    in.peers = {{"api", core::parse_label_selector("app=api").value()},
                {"web", core::parse_label_selector("app=web").value()}}; // itself, by name
    in.readings = {samples({{"a", 900}, {"b", 900}, {"c", 900}})};
    const decision d = run();
    EXPECT_TRUE(d.rescale);
    EXPECT_EQ(cond(d, "ScalingActive").reason, "ValidMetricFound");
}

TEST_F(Reconcile, ScalesToZeroAndSaysSo) {
    in.config.scale_to_zero = true; // the HPAScaleToZero gate
    in.hpa.spec.min_replicas = 0;
    in.hpa.spec.metrics = {external_metric(1000)};
    in.readings = {external({0})};
    in.hist.recommendations = {{ago(400), 3}};
    const decision d = run();
    EXPECT_EQ(d.target_replicas, 0);
    EXPECT_EQ(d.rescale_reason, "All metrics below target");
    EXPECT_EQ(cond(d, "ScaledToZero").status, core::condition_status::true_);
    EXPECT_EQ(cond(d, "ScaledToZero").reason, "ScaledToZero");
}

TEST_F(Reconcile, ScalesFromZeroWhenItScaledToZero) {
    in.config.scale_to_zero = true; // the HPAScaleToZero gate
    in.hpa.spec.min_replicas = 0;
    in.hpa.spec.metrics = {external_metric(1000)};
    in.hpa.status.conditions = {
        {"ScaledToZero", core::condition_status::true_, "ScaledToZero", "", ago(600)}};
    in.scale = scale_snapshot{0, 0, "app=web"};
    in.readings = {external({2000})};
    EXPECT_TRUE(needs_metrics(in.hpa, in.scale, std::nullopt, in.config));
    const decision d = run();
    EXPECT_EQ(d.target_replicas, 2); // ceil(2000/1000) from zero, no tolerance, no pods
    EXPECT_EQ(cond(d, "ScaledToZero").reason, "NotScaledToZero");
}

// Upstream horizontal.go (master, KEP-2021) shouldComputeMetricsForZeroReplicas: at zero replicas
// with ScaledToZero=True and minReplicas raised, the metrics are evaluated and normalization
// raises the result to minReplicas — not the "below Spec.MinReplicas" shortcut.
TEST_F(Reconcile, ScaleFromZeroLandsOnMin) {
    in.config.scale_to_zero = true; // the HPAScaleToZero gate
    in.hpa.spec.min_replicas = 3;
    in.hpa.spec.metrics = {external_metric(1000)};
    in.hpa.status.conditions = {
        {"ScaledToZero", core::condition_status::true_, "ScaledToZero", "", ago(600)}};
    in.scale = scale_snapshot{0, 0, "app=web"};
    in.readings = {external({1000})};
    const decision d = run();
    EXPECT_EQ(d.target_replicas, 3);
    EXPECT_EQ(d.stages.recommended, 1); // ceil(1000 / 1000) from zero
    EXPECT_EQ(d.rescale_reason, "external metric qps(nil) above target");
    EXPECT_EQ(cond(d, "ScalingActive").reason, "ValidMetricFound");
    EXPECT_EQ(cond(d, "ScalingLimited").status, core::condition_status::true_);
    EXPECT_EQ(cond(d, "ScalingLimited").reason, "TooFewReplicas");
    EXPECT_EQ(cond(d, "ScaledToZero").status, core::condition_status::false_);
    EXPECT_EQ(cond(d, "ScaledToZero").reason, "NotScaledToZero");
}

TEST_F(Reconcile, ZeroWithoutConditionStaysDisabled) {
    in.config.scale_to_zero = true; // the HPAScaleToZero gate
    in.hpa.spec.min_replicas = 0;
    in.hpa.spec.metrics = {external_metric(1000)};
    in.scale = scale_snapshot{0, 0, "app=web"};
    in.readings = {external({5000})};
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_EQ(cond(d, "ScalingActive").reason, "ScalingDisabled");
}

// The gate off (kube-controller-manager's default): a workload at zero stays disabled even with
// ScaledToZero=True, the condition goes, and a rescale writes none.
TEST_F(Reconcile, WithoutTheGateZeroDisablesScalingAndTheConditionGoes) {
    in.hpa.spec.min_replicas = 0;
    in.hpa.spec.metrics = {external_metric(1000)};
    in.hpa.status.conditions = {
        {"ScaledToZero", core::condition_status::true_, "ScaledToZero", "", ago(600)}};
    in.scale = scale_snapshot{0, 0, "app=web"};
    in.readings = {external({5000})};
    EXPECT_FALSE(needs_metrics(in.hpa, in.scale, std::nullopt, in.config));
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_EQ(cond(d, "ScalingActive").reason, "ScalingDisabled");
    EXPECT_EQ(core::find_condition(d.status.conditions, "ScaledToZero"), nullptr);
}

TEST_F(Reconcile, WithoutTheGateARescaleToZeroWritesNoCondition) {
    in.hpa.spec.min_replicas = 0;
    in.hpa.spec.metrics = {external_metric(1000)};
    in.readings = {external({0})};
    in.hist.recommendations = {{ago(400), 3}};
    const decision d = run();
    EXPECT_EQ(d.target_replicas, 0);
    EXPECT_EQ(core::find_condition(d.status.conditions, "ScaledToZero"), nullptr);
}

TEST_F(Reconcile, NegativeProposalEndsAtMin) {
    metric_spec pods_metric;
    pods_metric.type = metric_source_type::pods;
    pods_metric.metric.name = "lag";
    pods_metric.target.type = metric_target_type::average_value;
    pods_metric.target.average_value = core::quantity::from_milli(1000);
    in.hpa.spec.metrics = {pods_metric};
    in.hist.recommendations = {{ago(400), 3}};
    in.readings = {samples({{"a", -5000}, {"b", -5000}, {"c", -5000}})};
    const decision d = run();
    EXPECT_EQ(d.stages.recommended, 0); // a negative proposal never raises desired above 0
    EXPECT_EQ(d.target_replicas, 1);
    EXPECT_EQ(d.stages.limit_reason, "TooFewReplicas");
}

TEST_F(Reconcile, RecommendationOverrideSkipsMetrics) {
    in.recommendation_override = 9;
    in.readings.clear();
    const decision d = run();
    EXPECT_TRUE(d.metrics.empty());
    EXPECT_EQ(d.stages.recommended, 9);
    EXPECT_EQ(d.stages.limited, 6); // legacy cap: max(2 × 3, 4)
    EXPECT_EQ(d.stages.limit_reason, "ScaleUpLimit");
}

TEST_F(Reconcile, ConditionTransitionTimeKeptWhenStatusUnchanged) {
    in.hpa.status.conditions = {
        {"AbleToScale", core::condition_status::true_, "ReadyForNewScale", "", ago(3600)}};
    const decision d = run();
    EXPECT_EQ(cond(d, "AbleToScale").last_transition_time, ago(3600));
    EXPECT_EQ(cond(d, "ScalingActive").last_transition_time, now());
}

// The reconciler hands each pass the decision of an earlier one (of any object) to decide into:
// its storage is reused, its values must leave no trace.
TEST_F(Reconcile, ARecycledDecisionLeavesNoTrace) {
    in.hpa.status.conditions = {
        {"AbleToScale", core::condition_status::true_, "ReadyForNewScale", "", ago(3600)}};
    in.hist.recommendations = {{ago(10), 4}};
    decision fresh = decide(in);
    finish(fresh, in, std::nullopt);

    decision other; // another object's pass: more of everything, other texts
    other.status.conditions.assign(5, {"ScalingActive", core::condition_status::false_,
                                       "FailedGetResourceMetric", std::string(300, 'x'), ago(10)});
    other.status.current_metrics.resize(4);
    other.status.last_scale_time = ago(5);
    other.status.observed_generation = 99;
    other.hist.recommendations.assign(50, {ago(1), 9});
    other.hist.scale_up_events = {{ago(2), 3}};
    other.hist.excluded_pods = "p1\np2\n";
    other.metrics.resize(6);
    other.metrics[0].error = "stale";
    other.events.push_back({"Warning", "Old", "old"});
    other.error = "old error";
    other.stages.limit_reason = "ScaleUpLimit";
    decision& reused = other;
    decide(in, reused);
    finish(reused, in, std::nullopt);

    EXPECT_EQ(reused.hist, fresh.hist);
    EXPECT_EQ(reused.status.observed_generation, fresh.status.observed_generation);
    EXPECT_EQ(reused.status.last_scale_time, fresh.status.last_scale_time);
    EXPECT_EQ(reused.status.current_replicas, fresh.status.current_replicas);
    EXPECT_EQ(reused.status.desired_replicas, fresh.status.desired_replicas);
    ASSERT_EQ(reused.status.conditions.size(), fresh.status.conditions.size());
    for (std::size_t i = 0; i < fresh.status.conditions.size(); ++i) {
        const auto& a = reused.status.conditions[i];
        const auto& b = fresh.status.conditions[i];
        EXPECT_EQ(a.type, b.type);
        EXPECT_EQ(a.status, b.status) << b.type;
        EXPECT_EQ(a.reason, b.reason) << b.type;
        EXPECT_EQ(a.message, b.message) << b.type;
        EXPECT_EQ(a.last_transition_time, b.last_transition_time) << b.type;
    }
    ASSERT_EQ(reused.status.current_metrics.size(), fresh.status.current_metrics.size());
    ASSERT_TRUE(fresh.status.current_metrics[0].has_value());
    ASSERT_TRUE(reused.status.current_metrics[0].has_value());
    EXPECT_EQ(reused.status.current_metrics[0]->current.average_utilization,
              fresh.status.current_metrics[0]->current.average_utilization);
    ASSERT_EQ(reused.metrics.size(), fresh.metrics.size());
    EXPECT_EQ(reused.metrics[0].proposal, fresh.metrics[0].proposal);
    EXPECT_EQ(reused.metrics[0].error, fresh.metrics[0].error);
    EXPECT_EQ(reused.events.size(), fresh.events.size());
    EXPECT_EQ(reused.error, fresh.error);
    EXPECT_EQ(reused.stages.limit_reason, fresh.stages.limit_reason);
    EXPECT_EQ(reused.target_replicas, fresh.target_replicas);
    EXPECT_EQ(reused.rescale, fresh.rescale);
}

// --- HPAPlus stages -------------------------------------------------------------------------

TEST_F(Reconcile, DryRunDecidesButDoesNotWrite) {
    in.hpa.spec.mode = run_mode::dry_run;
    in.hpa.spec.behavior.emplace();
    apply_defaults(in.hpa.spec);
    in.readings = {samples({{"a", 800}, {"b", 800}, {"c", 800}})};
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_FALSE(d.scale_updated);
    EXPECT_TRUE(d.dry_run_rescale);
    EXPECT_EQ(d.desired_replicas, 5);
    ASSERT_EQ(d.events.size(), 1u);
    EXPECT_EQ(d.events[0].reason, "DryRunRescale");
    EXPECT_EQ(cond(d, "AbleToScale").reason, "DryRun");
    EXPECT_TRUE(d.hist.scale_up_events.empty());
    EXPECT_FALSE(d.status.last_scale_time);
}

TEST_F(Reconcile, ModeOffNeverWritesEvenOutsideMinAndMax) {
    in.hpa.spec.mode = run_mode::off;
    in.hpa.spec.min_replicas = 5; // current 3
    in.floor = cron_floor{8, "office", "morning", ago(60)};
    const decision below = run();
    EXPECT_FALSE(below.rescale);
    EXPECT_EQ(below.stages.gate_reason, "ModeOff");
    EXPECT_TRUE(below.events.empty());
    in.hpa.spec.min_replicas = 1;
    in.floor.reset();
    in.hpa.spec.max_replicas = 2; // current 3
    const decision above = run();
    EXPECT_FALSE(above.rescale);
    EXPECT_EQ(above.desired_replicas, 3);
}

TEST_F(Reconcile, ModeOffReportsOnly) {
    in.hpa.spec.mode = run_mode::off;
    in.readings = {samples({{"a", 800}, {"b", 800}, {"c", 800}})};
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_EQ(d.stages.recommended, 5);
    EXPECT_EQ(d.stages.gated, 3);
    EXPECT_EQ(d.stages.gate_reason, "ModeOff");
    EXPECT_EQ(d.desired_replicas, 3);
    EXPECT_TRUE(d.hist.recommendations.empty());
    EXPECT_TRUE(d.events.empty());
}

TEST_F(Reconcile, RolloutFreezesScaleDown) {
    in.hpa.spec.rollout = rollout_policy::freeze_scale_down;
    in.rollout = rollout_state{true, "1 out of 3 new replicas have been updated"};
    in.hist.recommendations = {{ago(400), 3}};
    in.readings = {samples({{"a", 100}, {"b", 100}, {"c", 100}})};
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_EQ(d.stages.limited, 1);
    EXPECT_EQ(d.stages.gated, 3);
    EXPECT_EQ(d.stages.gate_reason, "RolloutFreezeScaleDown");
    EXPECT_EQ(cond(d, "RolloutInProgress").status, core::condition_status::true_);
}

TEST_F(Reconcile, RolloutFreezeScaleDownStillScalesUp) {
    in.hpa.spec.rollout = rollout_policy::freeze_scale_down;
    in.rollout = rollout_state{true, "rolling"};
    in.readings = {samples({{"a", 800}, {"b", 800}, {"c", 800}})};
    EXPECT_EQ(run().target_replicas, 5);
}

TEST_F(Reconcile, RolloutFreezeHoldsBothWays) {
    in.hpa.spec.rollout = rollout_policy::freeze;
    in.rollout = rollout_state{true, "rolling"};
    in.readings = {samples({{"a", 800}, {"b", 800}, {"c", 800}})};
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_EQ(d.stages.gate_reason, "RolloutFreeze");
}

TEST_F(Reconcile, NoRolloutNoGate) {
    in.hpa.spec.rollout = rollout_policy::freeze;
    in.rollout = rollout_state{false, "successfully rolled out"};
    in.readings = {samples({{"a", 800}, {"b", 800}, {"c", 800}})};
    const decision d = run();
    EXPECT_EQ(d.target_replicas, 5);
    EXPECT_EQ(cond(d, "RolloutInProgress").reason, "NoRollout");
}

TEST_F(Reconcile, FallbackUsesLastKnownGood) {
    in.hpa.spec.metrics[0].fallback = fallback_spec{std::chrono::seconds(60), on_failure::fail, 0};
    in.hist.last_known_good = {{0, ago(30), 6}};
    in.readings = {failure("metrics-server is down")};
    const decision d = run();
    EXPECT_EQ(d.metrics[0].fallback, "LastKnownGood");
    EXPECT_EQ(d.target_replicas, 6);
    EXPECT_EQ(cond(d, "FallbackActive").status, core::condition_status::true_);
    EXPECT_EQ(d.events.front().reason, "FailedGetResourceMetric"); // the failure is still reported
}

TEST_F(Reconcile, FallbackStaleThenUpstreamFailure) {
    in.hpa.spec.metrics[0].fallback = fallback_spec{std::chrono::seconds(60), on_failure::fail, 0};
    in.hist.last_known_good = {{0, ago(120), 6}};
    in.readings = {failure("down")};
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_EQ(cond(d, "ScalingActive").reason, "FailedGetResourceMetric");
}

TEST_F(Reconcile, FallbackHoldKeepsCurrent) {
    in.hpa.spec.metrics[0].fallback = fallback_spec{std::chrono::seconds(0), on_failure::hold, 0};
    in.readings = {failure("down")};
    const decision d = run();
    EXPECT_EQ(d.metrics[0].fallback, "Hold");
    EXPECT_FALSE(d.rescale);
    EXPECT_EQ(cond(d, "ScalingActive").reason, "ValidMetricFound");
}

TEST_F(Reconcile, FallbackFixedReplicas) {
    in.hpa.spec.metrics[0].fallback =
        fallback_spec{std::chrono::seconds(0), on_failure::replicas, 5};
    in.readings = {failure("down")};
    EXPECT_EQ(run().target_replicas, 5);
}

TEST_F(Reconcile, FallbackIgnoreLetsOtherMetricsDecide) {
    auto ext = external_metric(1000);
    ext.fallback = fallback_spec{std::chrono::seconds(0), on_failure::ignore, 0};
    in.hpa.spec.metrics.push_back(ext);
    in.hist.recommendations = {{ago(400), 3}};
    in.readings = {samples({{"a", 100}, {"b", 100}, {"c", 100}}), failure("down")};
    const decision d = run();
    EXPECT_EQ(d.metrics[1].fallback, "Ignore");
    EXPECT_EQ(d.target_replicas, 1); // upstream would refuse to scale down with a failed metric
    EXPECT_FALSE(d.error);
}

TEST_F(Reconcile, FallbackRemembersGoodReadings) {
    in.hpa.spec.metrics[0].fallback = fallback_spec{std::chrono::seconds(60), on_failure::hold, 0};
    in.readings = {samples({{"a", 800}, {"b", 800}, {"c", 800}})};
    const decision d = run();
    ASSERT_EQ(d.hist.last_known_good.size(), 1u);
    EXPECT_EQ(d.hist.last_known_good[0], (known_good_proposal{0, now(), 5}));
    EXPECT_EQ(cond(d, "FallbackActive").status, core::condition_status::false_);
}

TEST_F(Reconcile, StoresThePrenormalizedRecommendation) {
    in.recommendation_override = 9;
    const decision d = run();
    EXPECT_EQ(d.target_replicas, 6);
    EXPECT_EQ(d.hist.recommendations.back().replicas, 9); // not the limited 6
}

TEST(Tolerances, FromBehaviorOnlyWhenSet) {
    controller_config config;
    config.tolerance = 0.2;
    autoscaler_spec spec = test::make_hpa(1, 5).spec;
    EXPECT_DOUBLE_EQ(tolerances_for(spec, config).scale_up, 0.2);
    spec.behavior.emplace();
    spec.behavior->scale_up.emplace();
    spec.behavior->scale_up->tolerance = core::quantity::parse("0.05").value();
    const tolerances t = tolerances_for(spec, config);
    EXPECT_DOUBLE_EQ(t.scale_up, 0.05);
    EXPECT_DOUBLE_EQ(t.scale_down, 0.2);
}

workload_rollout_status deployment(std::int64_t observed, std::int32_t replicas,
                                   std::int32_t updated, std::int32_t available,
                                   bool deadline_exceeded = false) {
    workload_rollout_status w;
    w.generation = 2;
    w.observed_generation = observed;
    w.spec_replicas = 3;
    w.replicas = replicas;
    w.updated_replicas = updated;
    w.available_replicas = available;
    w.progress_deadline_exceeded = deadline_exceeded;
    return w;
}

TEST(Rollout, KubectlRules) {
    EXPECT_TRUE(assess_rollout(deployment(1, 3, 3, 3)).in_progress);        // spec not observed
    EXPECT_TRUE(assess_rollout(deployment(2, 3, 1, 1)).in_progress);        // 1 of 3 updated
    EXPECT_TRUE(assess_rollout(deployment(2, 4, 3, 3)).in_progress);        // old pods terminating
    EXPECT_TRUE(assess_rollout(deployment(2, 3, 3, 2)).in_progress);        // not all available
    EXPECT_FALSE(assess_rollout(deployment(2, 3, 3, 3)).in_progress);       // done
    EXPECT_FALSE(assess_rollout(deployment(2, 3, 1, 1, true)).in_progress); // deadline exceeded
}

// kubectl's StatefulSetStatusViewer, in its order.
TEST(Rollout, StatefulSetKubectlRules) {
    auto set = [](std::int32_t ready, std::int32_t updated, std::optional<std::int32_t> partition,
                  const char* current, const char* update) {
        workload_rollout_status w = deployment(2, 3, updated, ready);
        w.kind = workload_kind::stateful_set;
        w.ready_replicas = ready;
        w.partition = partition;
        w.current_revision = current;
        w.update_revision = update;
        return w;
    };
    auto unobserved = set(3, 3, 0, "a", "a");
    unobserved.observed_generation = 1;
    EXPECT_EQ(assess_rollout(unobserved).message,
              "waiting for statefulset spec update to be observed");
    const auto scaling = assess_rollout(set(2, 2, 0, "a", "a"));
    EXPECT_TRUE(scaling.in_progress);
    EXPECT_EQ(scaling.message, "waiting for 1 pods to be ready");
    const auto partitioned = assess_rollout(set(3, 1, 0, "a", "b"));
    EXPECT_TRUE(partitioned.in_progress);
    EXPECT_EQ(partitioned.message,
              "waiting for partitioned roll out to finish: 1 out of 3 new pods have been updated");
    // A partition of 2 asks for one updated pod: done, though the revisions differ.
    EXPECT_FALSE(assess_rollout(set(3, 1, 2, "a", "b")).in_progress);
    // Without a partition the revisions decide.
    EXPECT_TRUE(assess_rollout(set(3, 3, std::nullopt, "a", "b")).in_progress);
    EXPECT_FALSE(assess_rollout(set(3, 3, std::nullopt, "b", "b")).in_progress);
    auto on_delete = set(1, 0, std::nullopt, "a", "b");
    on_delete.rolling_update = false;
    EXPECT_FALSE(assess_rollout(on_delete).in_progress);
}

// HPAPlus: a CronHPA's floor raises minReplicas (capped at maxReplicas); metrics still scale
// above it.
cron_floor floor_of(std::int32_t replicas) {
    return cron_floor{replicas, "office", "morning", ago(60)};
}

TEST_F(Reconcile, CronFloorRaisesReplicasAtOnce) {
    in.floor = floor_of(6);
    EXPECT_FALSE(needs_metrics(in.hpa, in.scale, in.floor, in.config));
    const decision d = run();
    EXPECT_TRUE(d.scale_updated);
    EXPECT_EQ(d.target_replicas, 6);
    EXPECT_EQ(
        d.rescale_reason,
        "Current number of replicas below the cron floor 6 set by CronHPA office (job morning)");
    EXPECT_EQ(d.stages.limit_reason, "CronFloor");
    ASSERT_TRUE(d.floor);
    EXPECT_EQ(d.floor->replicas, 6);
}

TEST_F(Reconcile, CronFloorIsCappedAtMaxReplicas) {
    in.floor = floor_of(40);
    const decision d = run();
    EXPECT_EQ(d.target_replicas, 10);
    ASSERT_TRUE(d.floor);
    EXPECT_EQ(d.floor->replicas, 10);
    EXPECT_EQ(d.floor->cronhpa, "office");
}

TEST_F(Reconcile, MetricsScaleAboveTheCronFloor) {
    in.floor = floor_of(2);
    in.readings = {samples({{"a", 800}, {"b", 800}, {"c", 800}})};
    const decision d = run();
    EXPECT_EQ(d.target_replicas, 5);
    EXPECT_EQ(d.rescale_reason, "cpu resource utilization (percentage of request) above target");
}

TEST_F(Reconcile, CronFloorHoldsAgainstLowLoad) {
    in.config.downscale_stabilization_window = std::chrono::seconds(0);
    in.hist.recommendations = {{ago(1), 3}}; // outside the (empty) window
    in.floor = floor_of(3);
    in.readings = {samples({{"a", 100}, {"b", 100}, {"c", 100}})}; // alone: 3 × 0.2 → 1
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_EQ(d.stages.recommended, 1);
    EXPECT_EQ(d.stages.limited, 3);
    EXPECT_EQ(cond(d, "ScalingLimited").reason, "CronFloor");
    EXPECT_EQ(cond(d, "ScalingLimited").message,
              "the desired replica count is less than the cron floor 3 set by CronHPA office (job "
              "morning)");
    in.floor.reset(); // the floor released: the same load scales down
    const decision released = run();
    EXPECT_EQ(released.target_replicas, 1);
    EXPECT_EQ(cond(released, "ScalingLimited").reason, "DesiredWithinRange");
}

TEST_F(Reconcile, CronFloorBelowMinReplicasChangesNothing) {
    in.hpa.spec.min_replicas = 3;
    in.config.downscale_stabilization_window = std::chrono::seconds(0);
    in.hist.recommendations = {{ago(1), 3}}; // outside the (empty) window
    in.floor = floor_of(2);
    in.readings = {samples({{"a", 100}, {"b", 100}, {"c", 100}})};
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_EQ(cond(d, "ScalingLimited").reason, "TooFewReplicas");
}

// spec.prediction over several passes: the forecast raises the decision only while it has one,
// PredictionStarted and PredictionStopped are said once each, and mode Off remembers what was said.
TEST_F(Reconcile, PredictionVotesWhileThereIsAForecastAndSaysWhenItStartsAndStops) {
    in.hpa.spec.metrics[0].name = "cpu";
    in.hpa.spec.prediction = prediction_spec{};
    in.hpa.spec.prediction->metric = "cpu";
    const auto events = [](const decision& d) {
        std::string out;
        for (const auto& e : d.events)
            if (e.reason.rfind("Prediction", 0) == 0) out += e.reason + ";";
        return out;
    };
    // Pods at 50 % of their request, the target: 3. The forecast says 90 % on 3 pods: 6.
    in.prediction.value = 270;
    decision d = run();
    EXPECT_EQ(d.desired_replicas, 6);
    EXPECT_EQ(events(d), "PredictionStarted;");
    EXPECT_EQ(cond(d, "PredictionReady").reason, "ForecastReady");
    in.hist = d.hist;
    d = run();
    EXPECT_EQ(events(d), "") << "said once";
    in.hist = d.hist;
    in.prediction = {};
    in.prediction.why = "NoPeriodFound";
    in.prediction.message = "no candidate period stands out";
    d = run();
    EXPECT_EQ(d.stages.recommended, 3);
    EXPECT_EQ(d.desired_replicas, 6) << "scale-down still waits out the stabilization window";
    EXPECT_EQ(events(d), "PredictionStopped;");
    EXPECT_EQ(cond(d, "PredictionReady").reason, "NoPeriodFound");
    EXPECT_FALSE(d.stages.prediction);
    // Preview: computed, shown, never votes.
    in.hist = d.hist;
    in.hpa.spec.prediction->preview = true;
    in.prediction = {};
    in.prediction.value = 270;
    d = run();
    EXPECT_EQ(d.stages.recommended, 3);
    ASSERT_TRUE(d.stages.prediction);
    EXPECT_EQ(d.stages.prediction->replicas, 6);
    EXPECT_FALSE(d.stages.prediction->voting);
    EXPECT_EQ(events(d), "");
    // Auto again, then the field removed: its condition goes and its end is said once.
    in.hist = d.hist;
    in.hpa.spec.prediction->preview = false;
    d = run();
    EXPECT_EQ(events(d), "PredictionStarted;");
    in.hist = d.hist;
    in.hpa.status = d.status;
    in.hpa.spec.prediction.reset();
    d = run();
    EXPECT_EQ(events(d), "PredictionStopped;");
    EXPECT_EQ(core::find_condition(d.status.conditions, "PredictionReady"), nullptr);
    EXPECT_FALSE(d.hist.prediction_voting);
    in.hist = d.hist;
    in.hpa.status = d.status;
    EXPECT_EQ(events(run()), "");
}

} // namespace
} // namespace hpaplus::policy
