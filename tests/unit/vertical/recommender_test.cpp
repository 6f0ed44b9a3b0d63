// Recommender behaviour of our own (upstream's test rows are in upstream_recommender_test.cpp):
// bucket boundaries, decay, checkpoints, OOM bumps and the estimator chain end to end.
#include "vertical/recommender/estimator.hpp"
#include "vertical/recommender/go_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace hpaplus::vertical {
namespace {

using namespace std::chrono_literals;

const core::time_point t0{std::chrono::hours(24 * 20000)}; // a midnight, far from the epoch

TEST(Buckets, StartsGrowByFivePercentFromTenMillicores) {
    const auto& b = cpu_buckets();
    EXPECT_EQ(b.count(), 176u); // ceil(log_1.05(1000·0.05/0.01 + 1)) + 1
    EXPECT_EQ(memory_buckets().count(), 176u);
    EXPECT_DOUBLE_EQ(b.start_of(0), 0.0);
    EXPECT_NEAR(b.start_of(1), 0.010, 1e-12);
    EXPECT_NEAR(b.start_of(2), 0.0205, 1e-12);
    EXPECT_NEAR(b.start_of(3), 0.031525, 1e-12);
    EXPECT_NEAR(b.start_of(4), 0.04310125, 1e-12);
    EXPECT_EQ(b.bucket_of(0.0), 0u);
    EXPECT_EQ(b.bucket_of(0.0099), 0u);
    EXPECT_EQ(b.bucket_of(0.010), 1u);
    EXPECT_EQ(b.bucket_of(0.0204), 1u);
    EXPECT_EQ(b.bucket_of(0.021), 2u);
    EXPECT_EQ(b.bucket_of(1e9), 175u); // beyond the range: the last bucket
}

TEST(DecayingHistogram, PercentileIsTheEndOfTheBucketWhereTheWeightIsReached) {
    decaying_histogram h(cpu_buckets(), 24h);
    EXPECT_TRUE(h.empty());
    EXPECT_EQ(h.percentile(0.9), 0.0);
    // 9 samples in bucket 1 ([10m, 20.5m)), 1 in bucket 3 ([31.5m, 43.1m)).
    for (int i = 0; i < 9; ++i)
        h.add(0.015, 1.0, t0);
    h.add(0.035, 1.0, t0);
    EXPECT_NEAR(h.percentile(0.5), 0.0205, 1e-12);      // end of bucket 1
    EXPECT_NEAR(h.percentile(0.85), 0.0205, 1e-12);     // 8.5 of 10 reached in bucket 1
    EXPECT_NEAR(h.percentile(0.95), 0.04310125, 1e-12); // end of bucket 3
    // In the last bucket the answer is its start (it has no end).
    decaying_histogram top(cpu_buckets(), 24h);
    top.add(5000.0, 1.0, t0);
    EXPECT_NEAR(top.percentile(0.5), cpu_buckets().start_of(175), 1e-6);
}

TEST(DecayingHistogram, ASampleOneHalfLifeOlderCountsHalf) {
    decaying_histogram h(cpu_buckets(), 24h);
    h.add(0.015, 1.0, t0);       // bucket 1, weight 1
    h.add(0.035, 1.0, t0 + 24h); // bucket 3, weight 2
    EXPECT_NEAR(h.total_weight(), 3.0, 1e-9);
    // p = 0.34: 1/3 is not enough, so the answer is bucket 3's end.
    EXPECT_NEAR(h.percentile(0.34), 0.04310125, 1e-12);
    EXPECT_NEAR(h.percentile(0.33), 0.0205, 1e-12);
}

TEST(DecayingHistogram, FarFutureSamplesMoveTheReferenceAndKeepRelativeWeights) {
    decaying_histogram h(cpu_buckets(), 1h);
    h.add(0.015, 1.0, t0);
    h.add(0.035, 1.0, t0 + 150h); // past 100 half-lives: the reference moves, old weight shrinks
    EXPECT_NEAR(h.percentile(0.99), 0.04310125, 1e-12);
    const auto c = h.save();
    EXPECT_EQ(c.reference, t0 + 150h);
    EXPECT_EQ(c.bucket_weights.at(3), max_checkpoint_weight);
    EXPECT_EQ(c.bucket_weights.count(1), 0u); // 2^-150 of the heaviest rounds to 0
}

TEST(DecayingHistogram, CheckpointRoundTripKeepsPercentilesAndTotal) {
    decaying_histogram h(memory_buckets(), 24h);
    for (int i = 0; i < 30; ++i)
        h.add(1e8 + i * 1e7, 1.0 + i, t0 + std::chrono::hours(i));
    const auto c = h.save();
    std::uint32_t heaviest = 0;
    for (const auto& [b, w] : c.bucket_weights)
        heaviest = std::max(heaviest, w);
    EXPECT_EQ(heaviest, max_checkpoint_weight);
    decaying_histogram back(memory_buckets(), 24h);
    ASSERT_TRUE(back.load(c));
    EXPECT_NEAR(back.total_weight(), h.total_weight(), 1e-6 * h.total_weight());
    for (double p : {0.5, 0.9, 0.95})
        EXPECT_DOUBLE_EQ(back.percentile(p), h.percentile(p)) << p;
    // A bucket the scheme does not have is refused and nothing changes.
    histogram_checkpoint bad = c;
    bad.bucket_weights[500] = 1;
    EXPECT_FALSE(back.load(bad));
    EXPECT_DOUBLE_EQ(back.percentile(0.9), h.percentile(0.9));
}

TEST(Aggregate, EveryCpuSampleHasTheMinimumWeightWhateverTheRequest) {
    recommender_config cfg;
    container_aggregate a(cfg);
    a.add_cpu(15, t0);
    a.add_cpu(35, t0);
    EXPECT_NEAR(a.cpu().total_weight(), 0.2, 1e-12);
    EXPECT_EQ(a.total_samples(), 2u);
    // 0.1/0.2 reaches the median in bucket 1.
    EXPECT_NEAR(a.cpu().percentile(0.5), 0.0205, 1e-12);
}

TEST(Aggregate, OneMemoryPeakPerIntervalPerContainer) {
    recommender_config cfg;
    container_aggregate a(cfg);
    container_window w;
    w.add_memory(a, 200'000'000, t0, cfg);
    w.add_memory(a, 100'000'000, t0 + 1h, cfg); // lower: ignored
    EXPECT_NEAR(a.memory_peaks().total_weight(), 1.0, 1e-9);
    w.add_memory(a, 300'000'000, t0 + 2h, cfg); // higher: replaces the peak
    EXPECT_NEAR(a.memory_peaks().total_weight(), 1.0, 1e-9);
    EXPECT_EQ(a.memory_peaks().percentile(1.0),
              memory_buckets().start_of(memory_buckets().bucket_of(3e8) + 1));
    w.add_memory(a, 100'000'000, t0 + 25h, cfg);     // next interval: a second peak, a day later
    EXPECT_GT(a.memory_peaks().total_weight(), 2.9); // 1 + 2 (one half-life newer)
    EXPECT_LT(a.memory_peaks().total_weight(), 3.1);
    // A usage sample before the last one is dropped; one at the same instant is not.
    EXPECT_FALSE(w.add_memory(a, 900'000'000, t0 + 24h, cfg));
    EXPECT_TRUE(w.add_memory(a, 150'000'000, t0 + 25h, cfg));
}

TEST(Aggregate, OomAddsTwentyPercentOrAHundredMebibytesOverMaxOfRequestAndPeak) {
    recommender_config cfg;
    const std::int64_t mib = 1024 * 1024;
    struct row {
        std::int64_t request, peak, expected;
    } rows[] = {
        {200 * mib, 100 * mib, 300 * mib},   // +100Mi beats +20 %
        {1000 * mib, 100 * mib, 1200 * mib}, // +20 % beats +100Mi
        {100 * mib, 900 * mib, 1080 * mib},  // the usage peak is the base
    };
    for (const auto& r : rows) {
        container_aggregate a(cfg);
        container_window w;
        w.add_memory(a, r.peak, t0, cfg);
        ASSERT_TRUE(w.record_oom(a, r.request, t0 + 1h, cfg));
        const auto bucket = memory_buckets().bucket_of(static_cast<double>(r.expected));
        EXPECT_EQ(a.memory_peaks().percentile(1.0), memory_buckets().start_of(bucket + 1))
            << r.request << " " << r.peak;
        EXPECT_NEAR(a.memory_peaks().total_weight(), 1.0, 1e-9);
    }
    // An OOM more than one interval before the window is dropped.
    container_aggregate a(cfg);
    container_window w;
    w.add_memory(a, 100'000'000, t0 + 72h, cfg);
    EXPECT_FALSE(w.record_oom(a, 100'000'000, t0, cfg));
}

TEST(Aggregate, TimesFurtherApartThanAnInt64OfNanosecondsDoNotOverflow) {
    // A metrics server may answer any time a time_point holds (1677 to 2262).
    const core::time_point early{
        std::chrono::nanoseconds(std::numeric_limits<std::int64_t>::min() + 1)};
    const core::time_point late{
        std::chrono::nanoseconds(std::numeric_limits<std::int64_t>::max() - 1)};
    recommender_config cfg;
    container_aggregate a(cfg);
    container_window w;
    EXPECT_TRUE(w.add_cpu(a, 100, early));
    EXPECT_TRUE(w.add_memory(a, 1000, early, cfg));
    EXPECT_TRUE(w.add_cpu(a, 100, late));
    EXPECT_TRUE(w.add_memory(a, 2000, late, cfg));
    EXPECT_TRUE(w.record_oom(a, 3000, late, cfg));
    EXPECT_GE(confidence_of(a, cfg), 0.0);
    EXPECT_FALSE(a.expired(late, cfg));
    EXPECT_EQ(time_between(early, late), std::chrono::nanoseconds::max());
    EXPECT_EQ(time_between(late, early), std::chrono::nanoseconds::min());
}

TEST(Aggregate, OutOfOrderCpuSamplesAreDropped) {
    recommender_config cfg;
    container_aggregate a(cfg);
    container_window w;
    EXPECT_TRUE(w.add_cpu(a, 100, t0 + 1min));
    EXPECT_FALSE(w.add_cpu(a, 100, t0 + 1min));
    EXPECT_FALSE(w.add_cpu(a, 100, t0));
    EXPECT_EQ(a.total_samples(), 1u);
    EXPECT_FALSE(a.expired(t0 + 8 * 24h - 1s, cfg));
    EXPECT_TRUE(a.expired(t0 + 1min + 8 * 24h, cfg));
}

// A container with `days` of one-per-minute samples at a constant usage.
container_aggregate steady(const recommender_config& cfg, std::int64_t milli, std::int64_t bytes,
                           std::chrono::minutes span) {
    container_aggregate a(cfg);
    container_window w;
    for (auto t = 0min; t <= span; t += 1min) {
        w.add_cpu(a, milli, t0 + t);
        w.add_memory(a, bytes, t0 + t, cfg);
    }
    return a;
}

TEST(Estimator, ConfidenceIsDaysOfHistoryAtOneSamplePerMinute) {
    recommender_config cfg;
    EXPECT_NEAR(confidence_of(steady(cfg, 500, 500'000'000, 12h), cfg), 0.5, 1e-9);
    // Lifespan 1 day but only 10 samples: samples win.
    container_aggregate a(cfg);
    for (int i = 0; i < 10; ++i)
        a.add_cpu(500, t0 + i * 24h / 9);
    EXPECT_NEAR(confidence_of(a, cfg), 10.0 / 1440.0, 1e-12);
    EXPECT_EQ(confidence_of(container_aggregate(cfg), cfg), 0.0);
}

TEST(Estimator, PercentilePlusMarginAndConfidenceScaledBounds) {
    recommender_config cfg;
    const std::int64_t milli = 500, bytes = 500'000'000;
    const double cpu_end = cpu_buckets().start_of(cpu_buckets().bucket_of(0.5) + 1);
    const double mem_end = memory_buckets().start_of(memory_buckets().bucket_of(5e8) + 1);
    const auto whole = [](double v) { return static_cast<std::int64_t>(v); };
    // The margin is added (base + trunc(base × 0.15)), not multiplied in.
    const auto plus_margin = [&](std::int64_t v) {
        return v + whole(static_cast<double>(v) * 0.15);
    };
    struct row {
        std::chrono::minutes span;
        double upper_factor, lower_factor;
    } rows[] = {{12h, 3.0, go::pow(1 + 0.001 / 0.5, -2)},
                {24h, 2.0, go::pow(1 + 0.001 / 1.0, -2)},
                {7 * 24h, 1.0 + 1.0 / 7, go::pow(1 + 0.001 / 7, -2)}};
    for (const auto& r : rows) {
        const auto a = steady(cfg, milli, bytes, r.span);
        const auto e = estimate(a, cfg, 1);
        const auto cpu_margin = plus_margin(whole(cpu_end * 1000));
        const auto mem_margin = plus_margin(whole(mem_end));
        EXPECT_EQ(e.target.cpu_milli, cpu_margin) << r.span.count();
        EXPECT_EQ(e.target.memory_bytes, mem_margin);
        EXPECT_EQ(e.upper_bound.cpu_milli, whole(static_cast<double>(cpu_margin) * r.upper_factor));
        EXPECT_EQ(e.upper_bound.memory_bytes,
                  whole(static_cast<double>(mem_margin) * r.upper_factor));
        EXPECT_EQ(e.lower_bound.cpu_milli, whole(static_cast<double>(cpu_margin) * r.lower_factor));
    }
}

TEST(Estimator, MarginIsAddedNotMultipliedIn) {
    // 200m at the 90th percentile: 200m + 30m, where 200 × 1.15 truncates to 229.
    volatile double factor = 1.15;
    EXPECT_EQ(static_cast<std::int64_t>(200 * factor), 229);
    EXPECT_EQ(200 + scale_amount(200, 0.15), 230);
}

TEST(Estimator, NoHistoryGivesAnUnboundedUpperAndTheMinimumsAsLower) {
    recommender_config cfg;
    container_aggregate a(cfg);
    a.add_cpu(500, t0); // one sample: confidence 1/1440 days
    const auto e = estimate(a, cfg, 1);
    EXPECT_GT(e.upper_bound.cpu_milli, 1000 * e.target.cpu_milli);
    const auto none = estimate(container_aggregate(cfg), cfg, 2);
    EXPECT_EQ(none.upper_bound.cpu_milli, 12); // 25m / 2 containers, truncated
    EXPECT_EQ(none.lower_bound.memory_bytes, 125LL * 1024 * 1024);
    EXPECT_EQ(none.target.cpu_milli, 12);
}

TEST(Estimator, TinyUsageIsFloorAtThePodMinimumSplitBetweenContainers) {
    recommender_config cfg;
    const auto a = steady(cfg, 1, 1'000'000, 24h);
    const auto one = estimate(a, cfg, 1);
    EXPECT_EQ(one.target.cpu_milli, 25);
    EXPECT_EQ(one.target.memory_bytes, 250LL * 1024 * 1024);
    const auto three = estimate(a, cfg, 3);
    // 25m × 1/3 = 8m is below the first bucket's end + margin (10m × 1.15 = 11m).
    EXPECT_EQ(three.target.cpu_milli, 11);
    EXPECT_EQ(three.target.memory_bytes, 87381333); // 262144000 / 3 truncated
}

TEST(Policy, CapsAtMinAndMaxAllowedAndKeepsTheUncappedTarget) {
    container_estimate e{{500, 600'000'000}, {100, 100'000'000}, {2000, 2'000'000'000}};
    container_policy p;
    p.container_name = "*";
    p.min_allowed.cpu_milli = 200;
    p.max_allowed.cpu_milli = 400;
    p.max_allowed.memory_bytes = 1'000'000'000;
    const auto r = apply_policy("app", e, &p);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->uncapped_target, e.target);
    EXPECT_EQ(r->target, (amounts{400, 600'000'000}));
    EXPECT_EQ(r->lower_bound, (amounts{200, 100'000'000}));
    EXPECT_EQ(r->upper_bound, (amounts{400, 1'000'000'000}));
    // Zero is no bound.
    p.max_allowed.cpu_milli = 0;
    EXPECT_EQ(apply_policy("app", e, &p)->target.cpu_milli, 500);
    p.off = true;
    EXPECT_FALSE(apply_policy("app", e, &p));
    EXPECT_TRUE(apply_policy("app", e, nullptr));
}

TEST(Policy, ExactContainerNameBeatsTheWildcard) {
    std::vector<container_policy> ps(2);
    ps[0].container_name = "*";
    ps[1].container_name = "sidecar";
    ps[1].off = true;
    EXPECT_EQ(policy_for(ps, "sidecar"), &ps[1]);
    EXPECT_EQ(policy_for(ps, "app"), &ps[0]);
    EXPECT_EQ(policy_for({}, "app"), nullptr);
}

TEST(Modes, UpstreamSpellings) {
    EXPECT_EQ(parse_update_mode("InPlaceOrRecreate"), update_mode::in_place_or_recreate);
    EXPECT_EQ(parse_update_mode("Auto"), update_mode::recreate);
    EXPECT_EQ(parse_update_mode("inplace"), std::nullopt);
    for (auto m : {update_mode::off, update_mode::initial, update_mode::recreate,
                   update_mode::in_place_or_recreate, update_mode::in_place})
        EXPECT_EQ(parse_update_mode(to_string(m)), m);
}

} // namespace
} // namespace hpaplus::vertical
