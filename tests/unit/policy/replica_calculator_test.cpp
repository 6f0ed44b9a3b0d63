// Table tests for the replica calculator. Every expectation is worked out from the upstream rules
// (integer percent, integer averages, ceil, rebalancing); the arithmetic is in the comments.
#include "policy/metric_samples.hpp"
#include "policy/replica_calculator.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace hpaplus::policy {
namespace {

using test::P;
using test::S;
constexpr auto running = pod_phase::running;
constexpr auto pending = pod_phase::pending;
constexpr auto failed = pod_phase::failed;
constexpr auto succeeded = pod_phase::succeeded;
constexpr auto rfalse = core::condition_status::false_;
constexpr auto runknown = core::condition_status::unknown;

const controller_config config{};

// ---------------------------------------------------------------------------------------------
// Resource utilization (GetResourceReplicas)

struct utilization_case {
    const char* name;
    std::int32_t current;
    std::int32_t target;
    std::vector<P> pods;
    std::vector<S> samples;
    std::int32_t expect_replicas;
    std::int32_t expect_utilization = 0;
    std::int64_t expect_raw = 0;
    const char* expect_error = nullptr;
    tolerances tol = {0.1, 0.1};
    const char* resource = "cpu";
};
void PrintTo(const utilization_case& c, std::ostream* os) {
    *os << c.name;
}

class ResourceUtilization : public ::testing::TestWithParam<utilization_case> {};

TEST_P(ResourceUtilization, MatchesUpstream) {
    const auto& c = GetParam();
    const auto pods = test::make_pods(c.pods, c.resource);
    const calculator_context ctx{c.current, c.tol, &pods.view, &config, test::now()};
    const auto r = resource_utilization_replicas(ctx, test::make_samples(c.samples), c.target,
                                                 c.resource, "", usage_basis::requests);
    if (c.expect_error) {
        ASSERT_FALSE(r) << "expected an error";
        EXPECT_EQ(r.error().text, c.expect_error);
        return;
    }
    ASSERT_TRUE(r) << r.error().text;
    EXPECT_EQ(r->replicas, c.expect_replicas);
    EXPECT_EQ(r->utilization, c.expect_utilization);
    EXPECT_EQ(r->raw_average, c.expect_raw);
}

const std::vector<P> three = {{"a"}, {"b"}, {"c"}};
const std::vector<P> four = {{"a"}, {"b"}, {"c"}, {"d"}};

std::vector<P> n_pods(int n) {
    std::vector<P> out;
    for (int i = 0; i < n; ++i)
        out.push_back({"p" + std::to_string(i)});
    return out;
}
std::vector<S> n_samples(int n, std::int64_t milli) {
    std::vector<S> out;
    for (int i = 0; i < n; ++i)
        out.push_back({"p" + std::to_string(i), milli});
    return out;
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, ResourceUtilization,
    ::testing::Values(
        // 1500/3000 = 50 %; 50/30 = 1.667; ceil(1.667 × 3) = 5
        utilization_case{"ScaleUp", 3, 30, three, {{"a", 300}, {"b", 500}, {"c", 700}}, 5, 50, 500},
        // 1400/5000 = 28 %; 0.56 × 5 = 2.8 → 3
        utilization_case{"ScaleDown", 5, 50, n_pods(5), {{"p0", 100}, {"p1", 300}, {"p2", 500}, {"p3", 250}, {"p4", 250}}, 3, 28, 280},
        // exactly 1 + tolerance is inside (inclusive)
        utilization_case{"UpperToleranceInclusive", 4, 100, n_pods(4), n_samples(4, 1100), 4, 110, 1100},
        utilization_case{"JustAboveUpperTolerance", 4, 100, n_pods(4), n_samples(4, 1110), 5, 111, 1110},
        // 0.9 × 10 = 9 would scale down if the bound were exclusive
        utilization_case{"LowerToleranceInclusive", 10, 100, n_pods(10), n_samples(10, 900), 10, 90, 900},
        // 0.89 × 10 = 8.9 → 9
        utilization_case{"JustBelowLowerTolerance", 10, 100, n_pods(10), n_samples(10, 890), 9, 89, 890},
        // 110.9 % truncates to 110 %: within tolerance
        utilization_case{"PercentTruncatesInside", 1, 100, {{"a"}}, {{"a", 1109}}, 1, 110, 1109},
        utilization_case{"PercentTruncatesOutside", 1, 100, {{"a"}}, {{"a", 1110}}, 2, 111, 1110},
        // per-direction tolerance (KEP-4951)
        utilization_case{"WideUpTolerance", 4, 100, n_pods(4), n_samples(4, 1400), 4, 140, 1400, nullptr, {0.1, 0.5}},
        utilization_case{"WideUpToleranceExceeded", 4, 100, n_pods(4), n_samples(4, 1510), 7, 151, 1510, nullptr, {0.1, 0.5}},
        utilization_case{"ZeroUpTolerance", 10, 100, n_pods(10), n_samples(10, 1010), 11, 101, 1010, nullptr, {0.1, 0.0}},
        utilization_case{"WideDownTolerance", 10, 100, n_pods(10), n_samples(10, 600), 10, 60, 600, nullptr, {0.5, 0.1}},
        // ignored pods: 1200/2000 = 60 %; 2 × 2 = 4
        utilization_case{"IgnoresFailedPods", 2, 30, {{"a"}, {"b"}, {"c", 1000, failed}, {"d", 1000, failed}}, {{"a", 500}, {"b", 700}}, 4, 60, 600},
        utilization_case{"IgnoresSucceededPods", 2, 30, {{"a"}, {"b"}, {"c", 1000, succeeded}, {"d", 1000, succeeded}}, {{"a", 500}, {"b", 700}}, 4, 60, 600},
        utilization_case{"IgnoresDeletingPods", 2, 30,
                         {{"a"}, {"b"}, {"c", 1000, running, core::condition_status::true_, 600, 590, true}, {"d", 1000, running, core::condition_status::true_, 600, 590, true}},
                         {{"a", 500}, {"b", 700}, {"c", 9000}, {"d", 9000}}, 4, 60, 600},
        // pending = unready; scale-up re-adds it at 0: 1200/3000 = 40 % → 1.333 × 3 → 4
        utilization_case{"PendingPodZeroOnScaleUp", 3, 30, {{"a"}, {"b"}, {"c", 1000, pending}}, {{"a", 500}, {"b", 700}}, 4, 60, 600},
        // never-ready pod dropped on scale-down: 200/2000 = 10 % → 0.2 × 2 → 1
        utilization_case{"UnreadyDroppedOnScaleDown", 3, 50, {{"a"}, {"b"}, {"c", 1000, running, rfalse, 600, 595}}, {{"a", 100}, {"b", 100}, {"c", 900}}, 1, 10, 100},
        utilization_case{"UnreadyLessScale", 3, 30, {{"a", 1000, running, rfalse, 600, 595}, {"b"}, {"c"}}, {{"a", 300}, {"b", 500}, {"c", 700}}, 4, 60, 600},
        // missing on scale-down counts as 100 % of its request: (300+1000)/4000 = 32 % → 0.64 × 4 → 3
        utilization_case{"MissingPodFullOnScaleDown", 4, 50, four, {{"a", 100}, {"b", 100}, {"c", 100}}, 3, 10, 100},
        // target above 100 %: missing counts as target: 1800+1500 = 3300/4000 = 82 % → 0.547 × 4 → 3
        utilization_case{"MissingPodAtTargetAbove100", 4, 150, four, {{"a", 600}, {"b", 600}, {"c", 600}}, 3, 60, 600},
        // missing on scale-up counts as 0: 3000/4000 = 75 % → 1.5 × 4 → 6
        utilization_case{"MissingPodZeroOnScaleUp", 4, 50, four, {{"a", 1000}, {"b", 1000}, {"c", 1000}}, 6, 100, 1000},
        // 40 % → 0.8; with b at 100 %: 70 % → 1.4: direction flipped → keep current
        utilization_case{"MissingFlipsDirection", 2, 50, {{"a"}, {"b"}}, {{"a", 400}}, 2, 40, 400},
        // 90 % → with b at 100 %: 95 % → within tolerance → current
        utilization_case{"MissingRebalancedIntoTolerance", 2, 100, {{"a"}, {"b"}}, {{"a", 900}}, 2, 90, 900},
        // ratio exactly 1: missing pods are not filled
        utilization_case{"MissingAtRatioOne", 3, 50, three, {{"a", 500}, {"b", 500}}, 3, 50, 500},
        // a sample for an unknown pod is skipped in the sums; fast path uses ready pods: 2 × 2 = 4
        utilization_case{"ExtraneousSampleFastPath", 2, 50, {{"a"}, {"b"}}, {{"a", 1000}, {"b", 1000}, {"x", 1000}}, 4, 100, 1000},
        // slow path counts every sample: 2000/3000 = 66 % → 1.32 × len{a,b,c,x}=4 → 5.28 → 6
        utilization_case{"ExtraneousSampleCountsInLength", 2, 50, three, {{"a", 1000}, {"b", 1000}, {"x", 1000}}, 6, 100, 1000},
        utilization_case{"NoPods", 3, 50, {}, {{"a", 100}}, 0, 0, 0, "no pods returned by selector while calculating replica count"},
        utilization_case{"OnlyUnreadySamples", 2, 50, {{"a", 1000, pending}, {"b", 1000, pending}}, {{"a", 100}}, 0, 0, 0,
                         "did not receive metrics for targeted pods (pods might be unready)"},
        utilization_case{"MissingRequest", 3, 50, {{"a"}, {"b"}, {"c", -1}}, {{"a", 100}, {"b", 100}, {"c", 100}}, 0, 0, 0,
                         "missing request for cpu in container app of Pod c"},
        utilization_case{"ZeroRequests", 1, 50, {{"a", 0}}, {{"a", 100}}, 0, 0, 0, "no metrics returned matched known pods"},
        // cpu readiness: no Ready condition / no start time → unready; scale-up re-adds at 0 → 4
        utilization_case{"CpuNoReadyCondition", 3, 30, {{"a"}, {"b"}, {"c", 1000, running, std::nullopt}}, {{"a", 500}, {"b", 700}, {"c", 2000}}, 4, 60, 600},
        utilization_case{"CpuNoStartTime", 3, 30, {{"a"}, {"b"}, {"c", 1000, running, core::condition_status::true_, -1}}, {{"a", 500}, {"b", 700}, {"c", 2000}}, 4, 60, 600},
        utilization_case{"CpuInitializingNotReady", 3, 30, {{"a"}, {"b"}, {"c", 1000, running, rfalse, 60, 50}}, {{"a", 500}, {"b", 700}, {"c", 2000}}, 4, 60, 600},
        // initializing and ready, but the sample started before readiness + window
        utilization_case{"CpuInitializingSampleTooEarly", 3, 30, {{"a"}, {"b"}, {"c", 1000, running, core::condition_status::true_, 60, 20}}, {{"a", 500}, {"b", 700}, {"c", 2000, 15, 15}}, 4, 60, 600},
        // sample exactly one window after readiness counts: 3200/3000 = 106 % → 3.53 × 3 = 10.6 → 11
        utilization_case{"CpuInitializingSampleAtBoundary", 3, 30, {{"a"}, {"b"}, {"c", 1000, running, core::condition_status::true_, 60, 30}}, {{"a", 500}, {"b", 700}, {"c", 2000, 15, 15}}, 11, 106, 1066},
        // after initialization: unready but was ready once → counted: 1100/3000 = 36 % → 0.36 × 3 → 2
        utilization_case{"CpuUnreadyButWasReadyCounts", 3, 100, {{"a"}, {"b"}, {"c", 1000, running, rfalse, 600, 200}}, {{"a", 100}, {"b", 100}, {"c", 900}}, 2, 36, 366},
        utilization_case{"CpuReadyUnknownCounts", 3, 100, {{"a"}, {"b"}, {"c", 1000, running, runknown, 600, 595}}, {{"a", 100}, {"b", 100}, {"c", 900}}, 2, 36, 366},
        // memory skips the readiness rules: the never-ready pod counts → 2 (cpu would give 1)
        utilization_case{"MemoryIgnoresReadiness", 3, 100, {{"a"}, {"b"}, {"c", 1000, running, rfalse, 600, 595}}, {{"a", 100}, {"b", 100}, {"c", 900}}, 2, 36, 366, nullptr, {0.1, 0.1}, "memory"},
        // missing and unready on scale-up: 2000/4000 = 50 % → 1.0 → within → current
        utilization_case{"MissingAndUnreadyScaleUp", 4, 50, {{"a"}, {"b"}, {"c"}, {"d", 1000, pending}}, {{"a", 1000}, {"b", 1000}}, 4, 100, 1000},
        // new count below current while the ratio says up → keep current
        // pitfall 2: the proposal multiplies by ready pods, not by current replicas: 2 × 3 = 6 (not 10)
        utilization_case{"UsesReadyPodsNotCurrent", 5, 50, three, {{"a", 1000}, {"b", 1000}, {"c", 1000}}, 6, 100, 1000},
        // pitfall 7: requests are needed for every listed pod, even an ignored one
        utilization_case{"IgnoredPodStillNeedsRequest", 2, 50, {{"a"}, {"b"}, {"c", -1, failed}}, {{"a", 100}, {"b", 100}}, 0, 0, 0,
                         "missing request for cpu in container app of Pod c"},
        // one pod, huge usage: 50 × 1 = 50
        utilization_case{"LargeRatio", 1, 10, {{"a"}}, {{"a", 5000}}, 50, 500, 5000},
        // scale-down with unready and missing: unready dropped, missing at 100 %: (100+1000)/2000 = 55 % → 0.55 × 2 → 2
        utilization_case{"UnreadyDroppedMissingFilledOnScaleDown", 3, 100, {{"a"}, {"b"}, {"c", 1000, pending}}, {{"a", 100}}, 2, 10, 100},
        // a pending pod with a sample is still unready
        utilization_case{"PendingWithSampleIsUnready", 3, 30, {{"a"}, {"b"}, {"c", 1000, pending}}, {{"a", 500}, {"b", 700}, {"c", 9000}}, 4, 60, 600},
        // a deleting pod without a sample is ignored, not missing: 1200/2000 = 60 % → 2 × 2 = 4
        utilization_case{"DeletingPodNotMissing", 2, 30, {{"a"}, {"b"}, {"c", 1000, running, core::condition_status::true_, 600, 590, true}}, {{"a", 500}, {"b", 700}}, 4, 60, 600},
        // different requests: usage is summed against summed requests: 1500/(500+2500) = 50 % → 1.0 → current
        utilization_case{"SummedAgainstSummedRequests", 2, 50, {{"a", 500}, {"b", 2500}}, {{"a", 1000}, {"b", 500}}, 2, 50, 750},
        utilization_case{"CountAgainstRatioKeepsCurrent", 10, 50, {{"a"}, {"b"}, {"c", 1000, pending}}, {{"a", 1000}, {"b", 1000}}, 10, 100, 1000}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

// ---------------------------------------------------------------------------------------------
// Plain values (calcPlainMetricReplicas): Pods metrics and Resource AverageValue

struct plain_case {
    const char* name;
    std::int32_t current;
    std::int64_t target;
    std::vector<P> pods;
    std::vector<S> samples;
    std::int32_t expect_replicas;
    std::int64_t expect_usage = 0;
    const char* resource = ""; ///< "" = Pods metric
    const char* expect_error = nullptr;
};
void PrintTo(const plain_case& c, std::ostream* os) {
    *os << c.name;
}

class PlainMetric : public ::testing::TestWithParam<plain_case> {};

TEST_P(PlainMetric, MatchesUpstream) {
    const auto& c = GetParam();
    const auto pods = test::make_pods(c.pods);
    const calculator_context ctx{c.current, {0.1, 0.1}, &pods.view, &config, test::now()};
    const auto r = plain_metric_replicas(ctx, test::make_samples(c.samples), c.target, c.resource);
    if (c.expect_error) {
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().text, c.expect_error);
        return;
    }
    ASSERT_TRUE(r) << r.error().text;
    EXPECT_EQ(r->replicas, c.expect_replicas);
    EXPECT_EQ(r->usage, c.expect_usage);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, PlainMetric,
    ::testing::Values(
        plain_case{"ScaleUp", 3, 15000, three, {{"a", 20000}, {"b", 10000}, {"c", 30000}}, 4, 20000},
        plain_case{"ScaleDown", 5, 20000, n_pods(5), n_samples(5, 12000), 3, 12000},
        plain_case{"WithinTolerance", 3, 15000, three, {{"a", 16000}, {"b", 16000}, {"c", 16000}}, 3, 16000},
        // 62000/3 = 20666 (truncated); 20666/10333 = 2.0 exactly → 6 (untruncated would give 7)
        plain_case{"AverageTruncates", 3, 10333, three, {{"a", 20000}, {"b", 21000}, {"c", 21000}}, 6, 20666},
        plain_case{"PodsMetricSkipsCpuReadiness", 3, 15000, {{"a", 1000, running, rfalse, 600, 595}, {"b"}, {"c"}}, {{"a", 50000}, {"b", 10000}, {"c", 30000}}, 6, 30000},
        // pending dropped: 22500 → 1.5; re-added at 0 → 15000 → 1.0 → within → current
        plain_case{"PendingReaddedAtZero", 3, 15000, {{"a", 1000, pending}, {"b"}, {"c"}}, {{"a", 50000}, {"b", 15000}, {"c", 30000}}, 3, 22500},
        // missing on scale-down counts as the target: (15000+10000)/4 = 6250 → 0.625 × 4 → 3
        plain_case{"MissingAtTargetOnScaleDown", 4, 10000, four, {{"a", 5000}, {"b", 5000}, {"c", 5000}}, 3, 5000},
        plain_case{"MissingZeroOnScaleUp", 4, 10000, four, {{"a", 20000}, {"b", 20000}, {"c", 20000}}, 6, 20000},
        // an unknown pod's sample counts in a plain average: 60000/3 = 20000 → 2 × 2 ready = 4
        plain_case{"ExtraneousSampleCounts", 2, 10000, {{"a"}, {"b"}}, {{"a", 20000}, {"b", 20000}, {"x", 20000}}, 4, 20000},
        plain_case{"NoSamplesLeft", 2, 10000, {{"a", 1000, pending}}, {{"a", 100}}, 0, 0, "", "did not receive metrics for targeted pods (pods might be unready)"},
        plain_case{"NoPods", 2, 10000, {}, {{"a", 100}}, 0, 0, "", "no pods returned by selector while calculating replica count"},
        // Resource AverageValue on cpu applies readiness: a is never ready → avg 1000 → 1.0 → current
        plain_case{"CpuAverageValueReadiness", 3, 1000, {{"a", 1000, running, rfalse, 600, 595}, {"b"}, {"c"}}, {{"a", 5000}, {"b", 1000}, {"c", 1000}}, 3, 1000, "cpu"},
        // memory does not: 7000/3 = 2333 → 2.333 × 3 = 7
        plain_case{"MemoryAverageValue", 3, 1000, {{"a", 1000, running, rfalse, 600, 595}, {"b"}, {"c"}}, {{"a", 5000}, {"b", 1000}, {"c", 1000}}, 7, 2333, "memory"},
        // negative custom metrics give a negative proposal (ceil(-0.5 × 2) = -1), as upstream
        // extraneous sample on the slow path counts in the length: avg (20000+20000+20000+0)/4 = 15000 → 1.5 × 4 → 6
        plain_case{"ExtraneousSampleSlowPath", 2, 10000, {{"a"}, {"b"}, {"c"}}, {{"a", 20000}, {"b", 20000}, {"x", 20000}}, 6, 20000},
        // missing on scale-down flips direction: avg 8000 → 0.8; with c at target: 8666 → 0.867 → ceil(2.6) = 3 = current
        plain_case{"MissingKeepsCurrentWhenCountWouldNotDrop", 3, 10000, three, {{"a", 8000}, {"b", 8000}}, 3, 8000},
        plain_case{"UpperToleranceInclusive", 10, 10000, n_pods(10), n_samples(10, 11000), 10, 11000},
        plain_case{"LowerToleranceInclusive", 10, 10000, n_pods(10), n_samples(10, 9000), 10, 9000},
        plain_case{"NegativeAverage", 2, 10000, {{"a"}, {"b"}}, {{"a", -5000}, {"b", -5000}}, -1, -5000}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

// ---------------------------------------------------------------------------------------------
// Object / External Value (getUsageRatioReplicaCount)

struct ratio_case {
    const char* name;
    std::int32_t current;
    double ratio;
    std::vector<P> pods;
    std::int32_t expect_replicas;
    const char* expect_error = nullptr;
};
void PrintTo(const ratio_case& c, std::ostream* os) {
    *os << c.name;
}

class UsageRatio : public ::testing::TestWithParam<ratio_case> {};

TEST_P(UsageRatio, MatchesUpstream) {
    const auto& c = GetParam();
    const auto pods = test::make_pods(c.pods);
    const calculator_context ctx{c.current, {0.1, 0.1}, &pods.view, &config, test::now()};
    const auto r = usage_ratio_replicas(ctx, c.ratio);
    if (c.expect_error) {
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().text, c.expect_error);
        return;
    }
    ASSERT_TRUE(r) << r.error().text;
    EXPECT_EQ(r->replicas, c.expect_replicas);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, UsageRatio,
    ::testing::Values(
        ratio_case{"FromZero", 0, 2.5, {}, 3},
        ratio_case{"FromZeroStaysZero", 0, 0.0, {}, 0},
        ratio_case{"FromZeroNoTolerance", 0, 1.05, {}, 2},
        ratio_case{"WithinTolerance", 3, 1.05, three, 3},
        // only Running and Ready pods count: 2 × 2 = 4
        ratio_case{"CountsRunningReady", 3, 2.0, {{"a"}, {"b"}, {"c", 1000, running, rfalse}, {"d", 1000, pending}}, 4},
        // deleting pods still count here (no deletion check upstream)
        ratio_case{"CountsDeletingPods", 3, 2.0, {{"a"}, {"b"}, {"c", 1000, running, core::condition_status::true_, 600, 590, true}}, 6},
        ratio_case{"ScaleDown", 4, 0.5, four, 2},
        ratio_case{"NoPods", 3, 2.0, {}, 0, "unable to calculate ready pods: no pods returned by selector while calculating replica count"},
        ratio_case{"CapsAtInt32Max", 3, 1e12, three, std::numeric_limits<std::int32_t>::max()}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

// ---------------------------------------------------------------------------------------------
// Object / External AverageValue (Get…PerPodMetricReplicas)

struct per_pod_case {
    const char* name;
    std::int32_t status_replicas;
    std::int64_t usage;
    std::int64_t target;
    std::int32_t expect_replicas;
    std::int64_t expect_average;
};
void PrintTo(const per_pod_case& c, std::ostream* os) {
    *os << c.name;
}

class PerPod : public ::testing::TestWithParam<per_pod_case> {};

TEST_P(PerPod, MatchesUpstream) {
    const auto& c = GetParam();
    const auto r = per_pod_replicas(c.status_replicas, c.usage, c.target, {0.1, 0.1});
    EXPECT_EQ(r.replicas, c.expect_replicas);
    EXPECT_EQ(r.usage, c.expect_average);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, PerPod,
    ::testing::Values(
        per_pod_case{"ScaleUp", 3, 30000, 5000, 6, 10000},
        // 15500 / 15000 = 1.033 → within; average ceil(5166.67) = 5167
        per_pod_case{"WithinTolerance", 3, 15500, 5000, 3, 5167},
        per_pod_case{"ScaleDown", 4, 4000, 5000, 1, 1000},
        per_pod_case{"ZeroStatusReplicas", 0, 10000, 5000, 2, 0},
        per_pod_case{"ZeroStatusZeroUsage", 0, 0, 5000, 0, 0},
        per_pod_case{"MaxUsage", 3, std::numeric_limits<std::int64_t>::max(), 1000, std::numeric_limits<std::int32_t>::max(),
                     std::numeric_limits<std::int64_t>::max()}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

// ---------------------------------------------------------------------------------------------
// Requests (calculateRequests) and the HPAPlus limits basis

pod_info pod_with(std::vector<container_spec> containers, std::vector<container_spec> init = {},
                  core::resource_list pod_requests = {}) {
    pod_info p;
    p.name = "p";
    auto& shared = p.own_template();
    shared.namespace_ = "default";
    shared.containers = std::move(containers);
    shared.init_containers = std::move(init);
    shared.pod_requests = std::move(pod_requests);
    return p;
}

container_spec container(std::string name, std::int64_t request, std::int64_t limit = -1,
                         bool sidecar = false) {
    container_spec c;
    c.name = std::move(name);
    if (request >= 0) c.requests.emplace_back("cpu", core::quantity::from_milli(request));
    if (limit >= 0) c.limits.emplace_back("cpu", core::quantity::from_milli(limit));
    c.restart_always = sidecar;
    return c;
}

struct request_case {
    const char* name;
    pod_info pod;
    const char* container = "";
    usage_basis basis = usage_basis::requests;
    std::int64_t expect = 0;
    const char* expect_error = nullptr;
};
void PrintTo(const request_case& c, std::ostream* os) {
    *os << c.name;
}

class PodRequests : public ::testing::TestWithParam<request_case> {};

TEST_P(PodRequests, MatchesUpstream) {
    const auto& c = GetParam();
    const std::vector<const pod_info*> pods{&c.pod};
    const auto r = pod_resource_amounts(pods, c.container, "cpu", c.basis);
    if (c.expect_error) {
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().text, c.expect_error);
        return;
    }
    ASSERT_TRUE(r) << r.error().text;
    ASSERT_EQ(r->size(), 1u);
    EXPECT_EQ(r->front().milli, c.expect);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, PodRequests,
    ::testing::Values(
        request_case{"SumsContainers", pod_with({container("a", 300), container("b", 200)}), "", usage_basis::requests, 500},
        request_case{"AddsSidecarInitContainers", pod_with({container("a", 300)}, {container("proxy", 100, -1, true)}), "", usage_basis::requests, 400},
        request_case{"SkipsPlainInitContainers", pod_with({container("a", 300)}, {container("init", 5000)}), "", usage_basis::requests, 300},
        request_case{"PlainInitContainerWithoutRequestIsFine", pod_with({container("a", 300)}, {container("init", -1)}), "", usage_basis::requests, 300},
        request_case{"SidecarWithoutRequestFails", pod_with({container("a", 300)}, {container("proxy", -1, -1, true)}), "", usage_basis::requests, 0,
                     "missing request for cpu in container proxy of Pod p"},
        request_case{"PodLevelRequestsWin", pod_with({container("a", 300)}, {}, {{"cpu", core::quantity::from_milli(2000)}}), "", usage_basis::requests, 2000},
        request_case{"NamedContainerIgnoresPodLevel", pod_with({container("a", 300), container("b", 200)}, {}, {{"cpu", core::quantity::from_milli(2000)}}), "b", usage_basis::requests, 200},
        request_case{"NamedContainer", pod_with({container("a", 300), container("b", 200)}), "a", usage_basis::requests, 300},
        request_case{"NamedSidecar", pod_with({container("a", 300)}, {container("proxy", 100, -1, true)}), "proxy", usage_basis::requests, 100},
        request_case{"NamedContainerMissing", pod_with({container("a", 300)}), "zz", usage_basis::requests, 0, "container zz not found in Pod p"},
        request_case{"NamedContainerWithoutRequest", pod_with({container("a", -1), container("b", 200)}), "b", usage_basis::requests, 200},
        request_case{"LimitsBasis", pod_with({container("a", 300, 600), container("b", 200, 400)}), "", usage_basis::limits, 1000},
        request_case{"LimitsBasisMissingLimit", pod_with({container("a", 300, 600), container("b", 200)}), "", usage_basis::limits, 0,
                     "missing limit for cpu in container b of Pod p"}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

TEST(ResourceUtilization, LimitsBasisMeasuresAgainstLimits) {
    // requests 500m, limits 1000m, usage 800m: 80 % of the limit (160 % of the request)
    auto pods = test::make_pods({{"a", 500}, {"b", 500}});
    for (auto& p : pods.owned)
        p->own_template().containers[0].limits.emplace_back("cpu",
                                                            core::quantity::from_milli(1000));
    const calculator_context ctx{2, {0.1, 0.1}, &pods.view, &config, test::now()};
    const auto r = resource_utilization_replicas(ctx, test::make_samples({{"a", 800}, {"b", 800}}),
                                                 80, "cpu", "", usage_basis::limits);
    ASSERT_TRUE(r) << r.error().text;
    EXPECT_EQ(r->utilization, 80);
    EXPECT_EQ(r->replicas, 2);
}

TEST(CeilReplicas, SaturatesAndHandlesNan) {
    EXPECT_EQ(ceil_replicas(2.0000001), 3);
    EXPECT_EQ(ceil_replicas(-0.5), 0);
    EXPECT_EQ(ceil_replicas(1e300), std::numeric_limits<std::int32_t>::max());
    EXPECT_EQ(ceil_replicas(std::nan("")), 0);
}

} // namespace
} // namespace hpaplus::policy

namespace hpaplus::policy {
namespace {

// replica_calculator.go GetExternalMetricReplicas adds the values in order and, at the first
// addition that overflows with a positive value, takes MaxInt64 and stops
// (TestReplicaCalcExternalMetricUsageOverflow). HPAPlus keeps a negative overflow negative where
// Go wraps it.
TEST(ExternalSum, CapsAtTheFirstOverflowAsUpstream) {
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
    EXPECT_EQ(saturating_sum({max / 2 + 1, max / 2 + 1}), max);
    EXPECT_EQ(saturating_sum({max, 1, -5}), max); // what follows the overflow is not read
    EXPECT_EQ(saturating_sum({max, -5, 1}), max - 4);
    EXPECT_EQ(saturating_sum({min, -1}), min);
    EXPECT_EQ(saturating_sum({-4, 3}), -1);
    EXPECT_EQ(saturating_sum({}), 0);
}

} // namespace
} // namespace hpaplus::policy

namespace hpaplus::policy {
namespace {

// Upstream's other overflow tests in replica_calculator_test.go, on the functions they call:
// values of MaxInt64 milli-units (9223372036854775807m, what a metrics API can answer) saturate
// the replica count at MaxInt32 and report the usage as MaxInt64.
constexpr std::int64_t max64 = std::numeric_limits<std::int64_t>::max();
constexpr std::int32_t max32 = std::numeric_limits<std::int32_t>::max();

TEST(UpstreamOverflow, TestReplicaCalcScaleUpOverflow) {
    // An Object metric at MaxInt64 against a Value target of 1m, 3 Ready pods.
    const auto pods = test::make_pods({{"a"}, {"b"}, {"c"}});
    const calculator_context ctx{3, {0.1, 0.1}, &pods.view, &config, test::now()};
    const auto r = usage_ratio_replicas(ctx, static_cast<double>(max64) / 1.0);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->replicas, max32);
}

TEST(UpstreamOverflow, TestExternalPerPodMetricReplicaOverflow) {
    const usage_result r = per_pod_replicas(1, max64, 1, {0.1, 0.1});
    EXPECT_EQ(r.replicas, max32);
    EXPECT_EQ(r.usage, max64);
}

TEST(UpstreamOverflow, TestExternalPerPodMetricUsageOverflow) {
    const usage_result r = per_pod_replicas(1, max64, max64, {0.1, 0.1});
    EXPECT_EQ(r.replicas, 1);
    EXPECT_EQ(r.usage, max64);
}

} // namespace
} // namespace hpaplus::policy
