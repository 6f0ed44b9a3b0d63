// The upstream VPA recommender's own tests, row by row (kubernetes/autoscaler,
// vertical-pod-autoscaler/pkg/recommender and pkg/utils/vpa). Each TEST names the upstream file and
// test it comes from; tests/unit/vertical/UPSTREAM.md lists every upstream test and says where its
// rows are, or why a test has none here. Upstream's plain `histogram` is our decaying histogram
// read at one instant on its reference (every decay factor exactly 1); upstream's mocks of the
// histograms become real histograms that the expected Add/Subtract calls are applied to.
#include "../../support/build_paths.hpp"
#include "core/time.hpp"
#include "vertical/recommender/estimator.hpp"
#include "vertical/recommender/go_math.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>

namespace hpaplus::vertical {
namespace {

using namespace std::chrono_literals;

core::time_point at(const char* rfc3339) {
    return *core::parse_rfc3339(rfc3339);
}

// util/histogram_test.go: NewLinearHistogramOptions(10.0, 1.0, 1e-15).
const double weight_epsilon = 1e-15;
const bucket_scheme& test_options() {
    static const bucket_scheme s = bucket_scheme::linear(10.0, 1.0, weight_epsilon);
    return s;
}
// An instant on a whole hour since Go's zero time: decay factor 2^0 = 1 exactly.
const core::time_point any_time = at("2009-02-13T23:00:00Z");
// decaying_histogram_test.go: time.Unix(1234567890, 0).
const core::time_point start_time = at("2009-02-13T23:31:30Z");
// model/container_test.go: testTimestamp.
const core::time_point test_timestamp = at("2017-04-18T17:35:05Z");
constexpr std::int64_t mb = 1024 * 1024;

decaying_histogram plain(const bucket_scheme& s = test_options()) {
    return {s, 1h};
}

// assert.InEpsilon(expected, actual, 1e-15) of upstream's histogram tests.
void expect_in_epsilon(double expected, double actual, double epsilon = 1e-15) {
    EXPECT_LE(std::fabs(expected - actual) / std::fabs(expected), epsilon)
        << "expected " << expected << ", got " << actual;
}

void expect_same_histogram(const decaying_histogram& a, const decaying_histogram& b,
                           std::size_t buckets) {
    EXPECT_EQ(a.reference(), b.reference());
    EXPECT_NEAR(a.total_weight(), b.total_weight(), 1e-12); // upstream's Equals ignores it
    for (std::size_t i = 0; i < buckets; ++i)
        EXPECT_NEAR(a.bucket_weight(i), b.bucket_weight(i), 1e-15) << "bucket " << i;
}

// --- util/histogram_options_test.go ---

TEST(UpstreamHistogramOptions, TestLinearHistogramOptions) {
    const auto o = bucket_scheme::linear(5.0, 0.3, 0.001);
    EXPECT_EQ(o.epsilon(), 0.001);
    EXPECT_EQ(o.count(), 18u);
    EXPECT_EQ(o.start_of(0), 0.0);
    EXPECT_EQ(o.start_of(17), 5.1);
    EXPECT_EQ(o.bucket_of(-1.0), 0u);
    EXPECT_EQ(o.bucket_of(0.0), 0u);
    EXPECT_EQ(o.bucket_of(1.3), 4u);
    EXPECT_EQ(o.bucket_of(100.0), 17u);
}

TEST(UpstreamHistogramOptions, TestExponentialHistogramOptions) {
    const auto o = bucket_scheme::exponential(500.0, 40.0, 1.5, 0.001);
    EXPECT_EQ(o.epsilon(), 0.001);
    EXPECT_EQ(o.count(), 6u);
    const double starts[] = {0.0, 40.0, 100.0, 190.0, 325.0, 527.5};
    for (std::size_t b = 0; b < 6; ++b)
        EXPECT_EQ(o.start_of(b), starts[b]) << b;
    EXPECT_EQ(o.bucket_of(-1.0), 0u);
    EXPECT_EQ(o.bucket_of(39.99), 0u);
    EXPECT_EQ(o.bucket_of(40.0), 1u);
    EXPECT_EQ(o.bucket_of(100.0), 2u);
    EXPECT_EQ(o.bucket_of(900.0), 5u);
}

// --- util/histogram_test.go ---

TEST(UpstreamHistogram, TestPercentilesEmptyHistogram) {
    const auto h = plain();
    for (double p = -0.5; p <= 1.5; p += 0.5)
        EXPECT_EQ(h.percentile(p), 0.0);
}

TEST(UpstreamHistogram, TestPercentiles) {
    auto h = plain();
    for (int i = 1; i <= 4; ++i)
        h.add(i, i, any_time);
    const std::pair<double, double> rows[] = {{0.0, 2}, {0.1, 2}, {0.2, 3}, {0.3, 3},
                                              {0.4, 4}, {0.5, 4}, {0.6, 4}, {0.7, 5},
                                              {0.8, 5}, {0.9, 5}, {1.0, 5}};
    for (const auto& [p, expected] : rows)
        expect_in_epsilon(expected, h.percentile(p));
}

TEST(UpstreamHistogram, TestPercentileOutOfBounds) {
    const auto o = bucket_scheme::linear(1.0, 0.1, weight_epsilon);
    auto h = plain(o);
    h.add(0.1, 0.1, any_time);
    h.add(0.2, 0.2, any_time);
    expect_in_epsilon(0.2, h.percentile(-0.1));
    expect_in_epsilon(0.3, h.percentile(1.1));
    // Fill the boundary buckets.
    h.add(0.0, 0.1, any_time);
    h.add(1.0, 0.2, any_time);
    expect_in_epsilon(0.1, h.percentile(-0.1));
    expect_in_epsilon(1.0, h.percentile(1.1));
}

TEST(UpstreamHistogram, TestEmptyHistogram) {
    const auto o = bucket_scheme::linear(1.0, 0.1, weight_epsilon);
    auto h = plain(o);
    EXPECT_TRUE(h.empty());
    h.add(0.1, weight_epsilon * 2.5, any_time);
    EXPECT_FALSE(h.empty());
    h.subtract(0.1, weight_epsilon, any_time); // epsilon × 1.5 left
    EXPECT_FALSE(h.empty());
    h.subtract(0.1, weight_epsilon, any_time); // within epsilon: emptied
    EXPECT_TRUE(h.empty());
}

TEST(UpstreamHistogram, TestNonEmptyOnEpsilonAddition) {
    const auto o = bucket_scheme::linear(1.0, 0.1, weight_epsilon);
    auto h = plain(o);
    EXPECT_TRUE(h.empty());
    h.add(9.9, weight_epsilon * 3, any_time);
    EXPECT_FALSE(h.empty());
    h.add(0.1, weight_epsilon * 0.3, any_time);
    EXPECT_FALSE(h.empty());
    h.add(999.9, weight_epsilon * 0.3, any_time);
    EXPECT_FALSE(h.empty());
}

TEST(UpstreamHistogram, TestHistogramMerge) {
    auto h1 = plain();
    h1.add(1, 1, any_time);
    h1.add(2, 1, any_time);
    auto h2 = plain();
    h2.add(2, 1, any_time);
    h2.add(3, 1, any_time);
    auto expected = plain();
    for (double v : {1.0, 2.0, 2.0, 3.0})
        expected.add(v, 1, any_time);
    h1.merge(h2);
    expect_same_histogram(h1, expected, test_options().count());
}

TEST(UpstreamHistogram, TestHistogramSaveToCheckpointEmpty) {
    const auto s = plain().save();
    EXPECT_EQ(s.total_weight, 0.0);
    EXPECT_TRUE(s.bucket_weights.empty());
}

TEST(UpstreamHistogram, TestHistogramSaveToCheckpoint) {
    auto h = plain();
    h.add(1, 1, any_time);
    const auto s = h.save();
    EXPECT_EQ(s.total_weight, 1.0);
    ASSERT_EQ(s.bucket_weights.size(), 1u);
    EXPECT_EQ(s.bucket_weights.at(test_options().bucket_of(1)), max_checkpoint_weight);
}

TEST(UpstreamHistogram, TestHistogramSaveToCheckpointDropsRelativelySmallValues) {
    auto h = plain();
    h.add(1, 1, any_time);
    h.add(2, 100000, any_time);
    const auto s = h.save();
    EXPECT_EQ(s.total_weight, 100001.0);
    ASSERT_EQ(s.bucket_weights.size(), 1u);
    EXPECT_EQ(s.bucket_weights.at(test_options().bucket_of(2)), max_checkpoint_weight);
}

TEST(UpstreamHistogram, TestHistogramSaveToCheckpointForMultipleValues) {
    auto h = plain();
    h.add(1, 1, any_time);
    h.add(2, 10000, any_time);
    h.add(3, 50, any_time);
    const auto s = h.save();
    EXPECT_EQ(s.total_weight, 10051.0);
    ASSERT_EQ(s.bucket_weights.size(), 3u);
    EXPECT_EQ(s.bucket_weights.at(test_options().bucket_of(1)), 1u);
    EXPECT_EQ(s.bucket_weights.at(test_options().bucket_of(2)), 10000u);
    EXPECT_EQ(s.bucket_weights.at(test_options().bucket_of(3)), 50u);
}

TEST(UpstreamHistogram, TestHistogramLoadFromCheckpoint) {
    auto h = plain();
    ASSERT_TRUE(h.load({{{0, 1}, {1, 2}}, 6.0, {}}));
    EXPECT_EQ(h.total_weight(), 6.0);
    EXPECT_EQ(h.bucket_weight(0), 2.0);
    EXPECT_EQ(h.bucket_weight(1), 4.0);
}

TEST(UpstreamHistogram, TestHistogramLoadFromCheckpointReturnsErrorOnInvalidBucket) {
    auto h = plain();
    EXPECT_FALSE(h.load({{{99, 1}}, 1.0, {}}));
    EXPECT_TRUE(h.empty());
}

TEST(UpstreamHistogram, TestHistogramLoadFromCheckpointReturnsErrorNegativeTotaWeight) {
    auto h = plain();
    EXPECT_FALSE(h.load({{}, -1.0, {}}));
}

// --- util/decaying_histogram_test.go (half-life 1h) ---

TEST(UpstreamDecayingHistogram, TestPercentilesEmptyDecayingHistogram) {
    const decaying_histogram h(test_options(), 1h);
    for (double p = -0.5; p <= 1.5; p += 0.5)
        EXPECT_EQ(h.percentile(p), 0.0);
}

TEST(UpstreamDecayingHistogram, TestSimpleDecay) {
    decaying_histogram h(test_options(), 1h);
    h.add(2, 1000, start_time);
    h.add(1, 1, start_time + 20h); // 2^20 × 0.001 > 1000 times heavier
    expect_in_epsilon(2, h.percentile(0.999));
    expect_in_epsilon(3, h.percentile(1.0));
}

TEST(UpstreamDecayingHistogram, TestLongtermDecay) {
    decaying_histogram h(test_options(), 1h);
    h.add(2, 1, start_time);
    h.add(1, 1, start_time + 101h); // past 2^maxDecayExponent: the reference moves
    expect_in_epsilon(2, h.percentile(1.0));
}

TEST(UpstreamDecayingHistogram, TestDecayingHistogramPercentiles) {
    decaying_histogram h(test_options(), 1h);
    auto t = start_time;
    for (int i = 1; i <= 4; ++i, t += 1h)
        h.add(i, i, t);
    const std::pair<double, double> rows[] = {{0.00, 2}, {0.02, 2}, {0.03, 3}, {0.10, 3},
                                              {0.11, 4}, {0.34, 4}, {0.35, 5}, {1.00, 5}};
    for (const auto& [p, expected] : rows)
        expect_in_epsilon(expected, h.percentile(p));
}

TEST(UpstreamDecayingHistogram, TestNoDecay) {
    decaying_histogram h(test_options(), 1h);
    for (int i = 1; i <= 4; ++i)
        h.add(i, i, start_time);
    const std::pair<double, double> rows[] = {{0.0, 2}, {0.2, 3}, {0.1, 2}, {0.3, 3},
                                              {0.4, 4}, {0.5, 4}, {0.6, 4}, {0.7, 5},
                                              {0.8, 5}, {0.9, 5}, {1.0, 5}};
    for (const auto& [p, expected] : rows)
        expect_in_epsilon(expected, h.percentile(p));
}

TEST(UpstreamDecayingHistogram, TestDecayingHistogramMerge) {
    decaying_histogram h1(test_options(), 1h);
    h1.add(1, 1, start_time);
    h1.add(2, 1, start_time + 1h);
    decaying_histogram h2(test_options(), 1h);
    h2.add(2, 1, start_time + 2h);
    h2.add(3, 1, start_time + 1h);
    decaying_histogram expected(test_options(), 1h);
    expected.add(2, 1, start_time + 2h);
    expected.add(2, 1, start_time + 1h);
    expected.add(3, 1, start_time + 1h);
    expected.add(1, 1, start_time);
    h1.merge(h2);
    expect_same_histogram(h1, expected, test_options().count());
}

TEST(UpstreamDecayingHistogram, TestDecayingHistogramSaveToCheckpoint) {
    decaying_histogram d(test_options(), 1h);
    d.add(2, 1, start_time + 100h);
    ASSERT_TRUE(d.reference()); // moved from Go's zero time
    const auto c = d.save();
    EXPECT_EQ(c.reference, *d.reference());
    EXPECT_FALSE(c.bucket_weights.empty());
    EXPECT_NE(c.total_weight, 0.0);
}

TEST(UpstreamDecayingHistogram, TestDecayingHistogramLoadFromCheckpoint) {
    const auto timestamp = at("2018-01-02T03:04:05Z");
    decaying_histogram d(test_options(), 1h);
    ASSERT_TRUE(d.load({{{0, 1}}, 6.0, timestamp}));
    EXPECT_FALSE(d.empty());
    EXPECT_EQ(d.reference(), timestamp);
}

// --- model/aggregate_container_state_test.go ---

TEST(UpstreamAggregateContainerState, TestAggregateStateByContainerName) {
    // Pod 1 {app-A, app-B}, pod 2 {app-A, app-C}: app-A's history holds both pods' samples.
    recommender_config cfg;
    std::map<std::string, container_aggregate> by_name;
    std::map<std::string, container_window> windows;
    const struct {
        const char *pod, *container;
        double cores, bytes;
    } rows[] = {{"pod-1", "app-A", 1.0, 2e9},
                {"pod-1", "app-B", 5.0, 10e9},
                {"pod-2", "app-A", 3.0, 4e9},
                {"pod-2", "app-C", 5.0, 10e9}};
    for (const auto& r : rows) {
        auto& a = by_name.try_emplace(r.container, cfg).first->second;
        auto& w = windows[std::string(r.pod) + "/" + r.container];
        ASSERT_TRUE(w.add_cpu(a, resource_amount(r.cores * 1000.0), test_timestamp));
        ASSERT_TRUE(w.add_memory(a, resource_amount(r.bytes), test_timestamp, cfg));
    }
    EXPECT_EQ(by_name.at("app-A").total_samples(), 2u);
    EXPECT_EQ(by_name.at("app-B").total_samples(), 1u);
    EXPECT_EQ(by_name.at("app-C").total_samples(), 1u);
    // CPU: the merge of the two containers' histograms; memory: one peak each, at its window end.
    decaying_histogram cpu1(cpu_buckets(), cfg.cpu_half_life), cpu2 = cpu1;
    cpu1.add(1.0, min_cpu_sample_weight, test_timestamp);
    cpu2.add(3.0, min_cpu_sample_weight, test_timestamp);
    decaying_histogram expected_cpu(cpu_buckets(), cfg.cpu_half_life);
    expected_cpu.merge(cpu1);
    expected_cpu.merge(cpu2);
    expect_same_histogram(by_name.at("app-A").cpu(), expected_cpu, cpu_buckets().count());
    decaying_histogram expected_memory(memory_buckets(), cfg.memory_half_life);
    expected_memory.add(2e9, 1.0, test_timestamp + cfg.memory_interval);
    expected_memory.add(4e9, 1.0, test_timestamp + cfg.memory_interval);
    expect_same_histogram(by_name.at("app-A").memory_peaks(), expected_memory,
                          memory_buckets().count());
}

TEST(UpstreamAggregateContainerState, TestAggregateContainerStateSaveToCheckpoint) {
    const auto t1 = at("2018-01-01T02:03:04Z"), t2 = at("2018-02-01T02:03:04Z");
    recommender_config cfg;
    decaying_histogram cpu(cpu_buckets(), cfg.cpu_half_life);
    decaying_histogram memory(memory_buckets(), cfg.memory_half_life);
    cpu.add(1, 33, t2);
    memory.add(1, 55, t1);
    memory.add(10000000, 55, t1);
    container_aggregate a(cfg);
    ASSERT_TRUE(a.load({cpu.save(), memory.save(), t1, t2, 10}));
    const auto c = a.save();
    EXPECT_EQ(c.first_sample, t1);
    EXPECT_EQ(c.last_sample, t2);
    EXPECT_EQ(c.total_samples, 10u);
    EXPECT_EQ(c.cpu.bucket_weights.size(), 1u);
    EXPECT_EQ(c.memory.bucket_weights.size(), 2u);
}

TEST(UpstreamAggregateContainerState, TestAggregateContainerStateLoadFromCheckpoint) {
    const auto t1 = at("2018-01-01T02:03:04Z"), t2 = at("2018-02-01T02:03:04Z");
    recommender_config cfg;
    container_aggregate a(cfg);
    ASSERT_TRUE(a.load({{{{0, 10}}, 44.0, {}}, {{{0, 10}}, 33.0, {}}, t1, t2, 20}));
    EXPECT_EQ(a.first_sample(), t1);
    EXPECT_EQ(a.last_sample(), t2);
    EXPECT_EQ(a.total_samples(), 20u);
    EXPECT_FALSE(a.cpu().empty());
    EXPECT_FALSE(a.memory_peaks().empty());
}

TEST(UpstreamAggregateContainerState, TestAggregateContainerStateIsExpired) {
    recommender_config cfg;
    container_aggregate a(cfg);
    container_window w;
    ASSERT_TRUE(w.add_cpu(a, 1, test_timestamp));
    EXPECT_FALSE(a.expired(test_timestamp + 7 * 24h, cfg));
    EXPECT_TRUE(a.expired(test_timestamp + 8 * 24h, cfg));
}

TEST(UpstreamAggregateContainerState, TestAggregateContainerStateIsExpiredWithCustomIntervalCount) {
    recommender_config cfg;
    cfg.memory_interval_count = 4; // window 96h
    container_aggregate a(cfg);
    container_window w;
    ASSERT_TRUE(w.add_cpu(a, 1, test_timestamp));
    EXPECT_FALSE(a.expired(test_timestamp + 96h - 1h, cfg));
    EXPECT_TRUE(a.expired(test_timestamp + 96h, cfg));
}

TEST(UpstreamAggregateContainerState, TestUpdateFromPolicyScalingModeAndControlledResources) {
    // Mode Off leaves the container out; no policy, or Auto, keeps it; controlledResources picks
    // what is recommended (default both).
    container_estimate e{{42, 42 * mb}, {31, 31 * mb}, {53, 53 * mb}};
    EXPECT_TRUE(apply_policy("c", e, nullptr));
    container_policy p;
    EXPECT_TRUE(apply_policy("c", e, &p));
    p.off = true;
    EXPECT_FALSE(apply_policy("c", e, &p));
    p = {};
    p.control_cpu = false; // [memory]
    auto r = apply_policy("c", e, &p);
    EXPECT_FALSE(r->cpu);
    EXPECT_TRUE(r->memory);
    p.control_memory = false; // []
    r = apply_policy("c", e, &p);
    EXPECT_FALSE(r->cpu || r->memory);
}

// --- model/container_test.go: the calls upstream's histogram mocks expect, applied to real
// histograms, against the histograms the container state fed. ---

struct container_case {
    recommender_config cfg;
    container_aggregate aggregate{cfg};
    container_window window;
    decaying_histogram expected_cpu{cpu_buckets(), cfg.cpu_half_life};
    decaying_histogram expected_memory{memory_buckets(), cfg.memory_half_life};

    void expect_fed_as_mocked() const {
        expect_same_histogram(aggregate.cpu(), expected_cpu, cpu_buckets().count());
        expect_same_histogram(aggregate.memory_peaks(), expected_memory, memory_buckets().count());
    }
};

TEST(UpstreamContainer, TestAggregateContainerUsageSamples) {
    container_case c;
    const auto interval = c.cfg.memory_interval;
    const auto step = interval / 2;
    // Every CPU sample has the minimum weight, whatever the request.
    c.expected_cpu.add(3.14, min_cpu_sample_weight, test_timestamp);
    c.expected_cpu.add(6.28, min_cpu_sample_weight, test_timestamp + step);
    c.expected_cpu.add(1.57, min_cpu_sample_weight, test_timestamp + 2 * step);
    auto window_end = test_timestamp + interval;
    c.expected_memory.add(5.0, 1.0, window_end);
    c.expected_memory.subtract(5.0, 1.0, window_end);
    c.expected_memory.add(10.0, 1.0, window_end);
    c.expected_memory.add(2.0, 1.0, window_end + interval);

    EXPECT_TRUE(c.window.add_cpu(c.aggregate, 3140, test_timestamp));
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 5, test_timestamp, c.cfg));
    EXPECT_TRUE(c.window.add_cpu(c.aggregate, 6280, test_timestamp + step));
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 10, test_timestamp + step, c.cfg));
    EXPECT_TRUE(c.window.add_cpu(c.aggregate, 1570, test_timestamp + 2 * step));
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 2, test_timestamp + 2 * step, c.cfg));
    // Discarded: out of order, negative CPU, negative memory.
    EXPECT_FALSE(c.window.add_cpu(c.aggregate, 1000, test_timestamp + 2 * step));
    EXPECT_FALSE(c.window.add_cpu(c.aggregate, -1000, test_timestamp + 4 * step));
    EXPECT_FALSE(c.window.add_memory(c.aggregate, -1000, test_timestamp + 4 * step, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestRecordOOMIncreasedByBumpUp) {
    container_case c;
    c.expected_memory.add(1200.0 * mb, 1.0, test_timestamp + c.cfg.memory_interval);
    EXPECT_TRUE(c.window.record_oom(c.aggregate, 1000 * mb, test_timestamp, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestRecordOOMDontRunAway) {
    container_case c;
    const auto window_end = test_timestamp + c.cfg.memory_interval;
    c.expected_memory.add(1200.0 * mb, 1.0, window_end);
    EXPECT_TRUE(c.window.record_oom(c.aggregate, 1000 * mb, test_timestamp, c.cfg));
    // Smaller OOMs do not move the OOM peak.
    EXPECT_TRUE(c.window.record_oom(c.aggregate, 999 * mb, test_timestamp, c.cfg));
    EXPECT_TRUE(c.window.record_oom(c.aggregate, 999 * mb, test_timestamp, c.cfg));
    c.expect_fed_as_mocked();
    // A larger one does.
    c.expected_memory.subtract(1200.0 * mb, 1.0, window_end);
    c.expected_memory.add(2400.0 * mb, 1.0, window_end);
    EXPECT_TRUE(c.window.record_oom(c.aggregate, 2000 * mb, test_timestamp, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestRecordOOMIncreasedByMin) {
    container_case c;
    c.expected_memory.add(101.0 * mb, 1.0, test_timestamp + c.cfg.memory_interval);
    EXPECT_TRUE(c.window.record_oom(c.aggregate, 1 * mb, test_timestamp, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestRecordOOMMaxedWithKnownSample) {
    container_case c;
    const auto window_end = test_timestamp + c.cfg.memory_interval;
    c.expected_memory.add(3000.0 * mb, 1.0, window_end);
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 3000 * mb, test_timestamp, c.cfg));
    // The usage peak is above the request, so it is the base.
    c.expected_memory.subtract(3000.0 * mb, 1.0, window_end);
    c.expected_memory.add(3600.0 * mb, 1.0, window_end);
    EXPECT_TRUE(c.window.record_oom(c.aggregate, 1000 * mb, test_timestamp, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestRecordOOMDiscardsOldSample) {
    container_case c;
    c.expected_memory.add(1000.0 * mb, 1.0, test_timestamp + c.cfg.memory_interval);
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 1000 * mb, test_timestamp, c.cfg));
    EXPECT_FALSE(c.window.record_oom(c.aggregate, 1000 * mb, test_timestamp - 30h, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestRecordOOMInNewWindow) {
    container_case c;
    const auto interval = c.cfg.memory_interval;
    c.expected_memory.add(2000.0 * mb, 1.0, test_timestamp + interval);
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 2000 * mb, test_timestamp, c.cfg));
    c.expected_memory.add(2400.0 * mb, 1.0, test_timestamp + 3 * interval);
    EXPECT_TRUE(c.window.record_oom(c.aggregate, 1000 * mb, test_timestamp + 2 * interval, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestMemorySamplesWithCustomAggregationInterval) {
    container_case c;
    c.cfg.memory_interval = 1h;
    c.expected_memory.add(5.0, 1.0, test_timestamp + 1h);
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 5, test_timestamp, c.cfg));
    c.expected_memory.add(10.0, 1.0, test_timestamp + 3h);
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 10, test_timestamp + 2h, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestMemoryPeakUpdateWithinCustomInterval) {
    container_case c;
    c.cfg.memory_interval = 1h;
    const auto window_end = test_timestamp + 1h;
    c.expected_memory.add(5.0, 1.0, window_end);
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 5, test_timestamp, c.cfg));
    c.expected_memory.subtract(5.0, 1.0, window_end);
    c.expected_memory.add(10.0, 1.0, window_end);
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 10, test_timestamp + 30min, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestRecordOOMDiscardsOldSampleWithCustomInterval) {
    container_case c;
    c.cfg.memory_interval = 1h;
    c.expected_memory.add(1000.0 * mb, 1.0, test_timestamp + 1h);
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 1000 * mb, test_timestamp, c.cfg));
    EXPECT_FALSE(c.window.record_oom(c.aggregate, 1000 * mb, test_timestamp - 2h, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestRecordOOMInNewWindowWithCustomInterval) {
    container_case c;
    c.cfg.memory_interval = 1h;
    c.expected_memory.add(2000.0 * mb, 1.0, test_timestamp + 1h);
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 2000 * mb, test_timestamp, c.cfg));
    c.expected_memory.add(2400.0 * mb, 1.0, test_timestamp + 3h);
    EXPECT_TRUE(c.window.record_oom(c.aggregate, 1000 * mb, test_timestamp + 2h, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestRecordOOMDiscardsOldSampleWithCustomIntervalCount) {
    container_case c;
    c.cfg.memory_interval_count = 2;
    const auto interval = c.cfg.memory_interval;
    c.expected_memory.add(1000.0 * mb, 1.0, test_timestamp + interval);
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 1000 * mb, test_timestamp, c.cfg));
    EXPECT_FALSE(c.window.record_oom(c.aggregate, 1000 * mb, test_timestamp - 3 * interval, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestMemorySamplesWithCustomAggregationIntervalCount) {
    container_case c;
    c.cfg.memory_interval_count = 16;
    const auto interval = c.cfg.memory_interval;
    c.expected_memory.add(5.0, 1.0, test_timestamp + interval);
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 5, test_timestamp, c.cfg));
    c.expected_memory.add(10.0, 1.0, test_timestamp + 3 * interval);
    EXPECT_TRUE(c.window.add_memory(c.aggregate, 10, test_timestamp + 2 * interval, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestRecordOOMWithoutMaxMemory) {
    container_case c;
    c.cfg.oom_bump_ratio = 2.0;
    c.cfg.oom_min_bump_bytes = 0.0;
    c.expected_memory.add(2000.0 * mb, 1.0, test_timestamp + c.cfg.memory_interval);
    EXPECT_TRUE(c.window.record_oom(c.aggregate, 1000 * mb, test_timestamp, c.cfg));
    c.expect_fed_as_mocked();
}

TEST(UpstreamContainer, TestRecordOOMBelowMaxMemoryNotCapped) {
    container_case c;
    c.cfg.oom_bump_ratio = 1.2;
    c.cfg.oom_min_bump_bytes = 0.0;
    c.expected_memory.add(1200.0 * mb, 1.0, test_timestamp + c.cfg.memory_interval);
    EXPECT_TRUE(c.window.record_oom(c.aggregate, 1000 * mb, test_timestamp, c.cfg));
    c.expect_fed_as_mocked();
}

// --- logic/estimator_test.go ---

// The estimator chain's confidence stage: ScaleResource(base, Pow(1 + multiplier/confidence,
// exponent)).
std::int64_t confidence_scaled(std::int64_t base, double multiplier, double exponent,
                               double confidence) {
    return scale_amount(base, go::pow(1.0 + multiplier / confidence, exponent));
}

TEST(UpstreamEstimator, TestPercentileEstimator) {
    decaying_histogram cpu(cpu_buckets(), 24h), memory(memory_buckets(), 24h);
    for (double v : {1.0, 2.0, 3.0})
        cpu.add(v, 1.0, any_time);
    for (double v : {1e9, 2e9, 3e9})
        memory.add(v, 1.0, any_time);
    recommender_config cfg;
    container_aggregate a(cfg);
    ASSERT_TRUE(a.load({cpu.save(), memory.save(), any_time, any_time, 3}));
    // Upstream allows 5 % for the bucket rounding; the exact answers are the bucket ends.
    const auto cpu_20 = resource_amount(a.cpu().percentile(0.2) * 1000.0);
    const auto memory_50 = resource_amount(a.memory_peaks().percentile(0.5));
    expect_in_epsilon(1.0, static_cast<double>(cpu_20) / 1000.0, 0.05);
    expect_in_epsilon(2e9, static_cast<double>(memory_50), 0.05);
    EXPECT_EQ(cpu_20, 1016); // both as Go computes them (go/bucket_starts.go)
    EXPECT_EQ(memory_50, 2093479957);
}

TEST(UpstreamEstimator, TestConfidenceMultiplier) {
    // No history: confidence 0, multiplier +Inf (capped at 1e14) or 0.
    EXPECT_EQ(confidence_scaled(3140, 1.0, 1.0, 0.0), max_resource_amount);
    EXPECT_EQ(confidence_scaled(3140, 1.0, -1.0, 0.0), 0);
    recommender_config cfg;
    container_aggregate a(cfg);
    container_window w;
    auto t = at("1970-01-01T00:00:00Z");
    for (int i = 1; i <= 9; ++i, t += 2min)
        ASSERT_TRUE(w.add_cpu(a, 1000, t));
    const double confidence = confidence_of(a, cfg);
    EXPECT_EQ(confidence, 0.00625);                                   // 9 / (60 × 24)
    EXPECT_EQ(confidence_scaled(3140, 0.1, 2.0, confidence), 907460); // 907.46 cores
    EXPECT_EQ(confidence_scaled(3'140'000'000, 0.1, 2.0, confidence), 907'460'000'000); // 9.0746e11
}

TEST(UpstreamEstimator, TestConfidenceMultiplierWithCustomInterval) {
    recommender_config cfg;
    cfg.confidence_unit = 18min;
    container_aggregate a(cfg);
    container_window w;
    auto t = at("1970-01-01T00:00:00Z");
    for (int i = 1; i <= 9; ++i, t += 2min)
        ASSERT_TRUE(w.add_cpu(a, 1000, t));
    const double confidence = confidence_of(a, cfg);
    EXPECT_EQ(confidence, 0.5); // 9 samples at one a minute over an 18-minute unit
    EXPECT_EQ(confidence_scaled(3140, 0.1, 2.0, confidence), 4521);
    EXPECT_EQ(confidence_scaled(3'140'000'000, 0.1, 2.0, confidence), 4'521'600'000);
}

TEST(UpstreamEstimator, TestConfidenceMultiplierNoHistory) {
    EXPECT_EQ(confidence_scaled(3140, 0.1, 2.0, 0.0), max_resource_amount);
}

TEST(UpstreamEstimator, TestMarginEstimator) {
    // base + ScaleResource(base, 0.1)
    EXPECT_EQ(3140 + scale_amount(3140, 0.1), 3454);
    EXPECT_EQ(3'140'000'000 + scale_amount(3'140'000'000, 0.1), 3'454'000'000);
}

// --- logic/recommender_test.go: through recommend_containers, with histories whose estimates
// are below the pod minimum (1m and 1 MB of usage). ---

std::map<std::string, container_aggregate> tiny_history(const recommender_config& cfg,
                                                        std::initializer_list<const char*> names) {
    std::map<std::string, container_aggregate> out;
    for (const char* name : names) {
        auto& a = out.try_emplace(name, cfg).first->second;
        container_window w;
        w.add_cpu(a, 1, test_timestamp);
        w.add_memory(a, 1'000'000, test_timestamp, cfg);
    }
    return out;
}

TEST(UpstreamLogicRecommender, TestMinResourcesApplied) {
    recommender_config cfg;
    const auto r = recommend_containers(tiny_history(cfg, {"container-1"}), {}, cfg);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].target.cpu_milli, 25);
    EXPECT_EQ(r[0].target.memory_bytes, 250 * mb);
}

TEST(UpstreamLogicRecommender, TestMinResourcesSplitAcrossContainers) {
    recommender_config cfg;
    const auto r = recommend_containers(tiny_history(cfg, {"container-1", "container-2"}), {}, cfg);
    ASSERT_EQ(r.size(), 2u);
    for (const auto& c : r) {
        EXPECT_EQ(c.target.cpu_milli, 12); // CPUAmountFromCores(0.025 / 2)
        EXPECT_EQ(c.target.memory_bytes, 125 * mb);
    }
}

TEST(UpstreamLogicRecommender, TestControlledResourcesFiltered) {
    recommender_config cfg;
    container_policy memory_only;
    memory_only.container_name = "container-1";
    memory_only.control_cpu = false;
    auto r = recommend_containers(tiny_history(cfg, {"container-1"}), {memory_only}, cfg);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_TRUE(r[0].memory);
    EXPECT_FALSE(r[0].cpu);
    // TestControlledResourcesFilteredDefault: both.
    r = recommend_containers(tiny_history(cfg, {"container-1"}), {}, cfg);
    EXPECT_TRUE(r[0].memory && r[0].cpu);
}

// --- utils/vpa/capping_test.go TestApplyVPAPolicy (the rows without a global maximum) ---

TEST(UpstreamCapping, TestApplyVPAPolicy) {
    const container_estimate rec{{42, 42 * mb}, {31, 31 * mb}, {53, 53 * mb}};
    // "resource policy is nil and global max allowed is nil": unchanged.
    auto r = apply_policy("foo", rec, nullptr);
    EXPECT_EQ(r->target, rec.target);
    EXPECT_EQ(r->uncapped_target, rec.target);
    // "resource policy has min allowed and global max allowed is nil"
    container_policy p;
    p.container_name = "foo";
    p.min_allowed = {50, 50 * mb};
    r = apply_policy("foo", rec, &p);
    EXPECT_EQ(r->target, (amounts{50, 50 * mb}));
    EXPECT_EQ(r->lower_bound, (amounts{50, 50 * mb}));
    EXPECT_EQ(r->upper_bound, (amounts{53, 53 * mb}));
    EXPECT_EQ(r->uncapped_target, (amounts{42, 42 * mb}));
    // "resource policy has max allowed and global max allowed is nil"
    p.min_allowed = {};
    p.max_allowed = {40, 40 * mb};
    r = apply_policy("foo", rec, &p);
    EXPECT_EQ(r->target, (amounts{40, 40 * mb}));
    EXPECT_EQ(r->lower_bound, (amounts{31, 31 * mb}));
    EXPECT_EQ(r->upper_bound, (amounts{40, 40 * mb}));
    EXPECT_EQ(r->uncapped_target, (amounts{42, 42 * mb}));
}

// --- Go's float arithmetic: the numbers the issue names, and what C's libm would give ---

TEST(UpstreamGoMath, MemoryBucketFourStartsWhereGoPutsIt) {
    // 1e7 × (1.05⁴ − 1) / 0.05 = 43,101,250 exactly; Go's Pow is a bit low, C's a bit high.
    EXPECT_EQ(resource_amount(memory_buckets().start_of(4)), 43'101'249);
    EXPECT_EQ(resource_amount(1e7 * (std::pow(1.05, 4.0) - 1) / (1.05 - 1)), 43'101'250);
    EXPECT_EQ(cpu_buckets().count(), 176u);
    EXPECT_EQ(memory_buckets().count(), 176u);
}

TEST(UpstreamGoMath, EveryBucketStartIsGosToTheBit) {
    // go/bucket_starts.txt: printed by Go itself (go/bucket_starts.go).
    std::ifstream in(std::string(HPAPLUS_SOURCE_DIR) + "/tests/unit/vertical/go/bucket_starts.txt");
    ASSERT_TRUE(in) << "bucket_starts.txt missing";
    std::size_t bucket = 0, rows = 0;
    std::string cpu_bits, memory_bits;
    while (in >> bucket >> cpu_bits >> memory_bits) {
        ++rows;
        EXPECT_EQ(std::bit_cast<std::uint64_t>(cpu_buckets().start_of(bucket)),
                  std::stoull(cpu_bits, nullptr, 16))
            << "cpu bucket " << bucket;
        EXPECT_EQ(std::bit_cast<std::uint64_t>(memory_buckets().start_of(bucket)),
                  std::stoull(memory_bits, nullptr, 16))
            << "memory bucket " << bucket;
    }
    EXPECT_EQ(rows, cpu_buckets().count());
}

} // namespace
} // namespace hpaplus::vertical
