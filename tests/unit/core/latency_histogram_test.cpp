// Tests for core/latency_histogram: quantiles within one bucket (9 %) of the exact answer.
#include "core/latency_histogram.hpp"

#include <gtest/gtest.h>

namespace hpaplus::core {
namespace {

using namespace std::chrono_literals;

TEST(LatencyHistogram, EmptyHasNoQuantile) {
    latency_histogram h;
    EXPECT_EQ(h.count(), 0u);
    EXPECT_EQ(h.quantile(0.99), 0ns);
}

struct quantile_case {
    double q;
    std::chrono::nanoseconds exact;
};

class LatencyHistogramQuantile : public ::testing::TestWithParam<quantile_case> {};

TEST_P(LatencyHistogramQuantile, IsWithinOneBucketOfTheExactValue) {
    latency_histogram h;
    for (int i = 1; i <= 1000; ++i)
        h.record(std::chrono::microseconds(i * 10)); // 10 µs .. 10 ms
    const auto [q, exact] = GetParam();
    const auto got = h.quantile(q);
    EXPECT_GE(got.count(), exact.count());
    EXPECT_LE(static_cast<double>(got.count()), static_cast<double>(exact.count()) * 1.0906);
}

INSTANTIATE_TEST_SUITE_P(Table, LatencyHistogramQuantile,
                         ::testing::Values(quantile_case{0.5, 5000us}, quantile_case{0.9, 9000us},
                                           quantile_case{0.99, 9900us},
                                           quantile_case{1.0, 10000us}));

TEST(LatencyHistogram, NegativeCountsAsZeroAndHugeIsCapped) {
    latency_histogram h;
    h.record(-5ms);
    h.record(std::chrono::hours(24 * 365));
    EXPECT_EQ(h.count(), 2u);
    EXPECT_LE(h.quantile(0.5), 1us);
    EXPECT_EQ(h.quantile(1.0), std::chrono::hours(24 * 365));
}

TEST(LatencyHistogram, AddMergesCounts) {
    latency_histogram a, b;
    a.record(1ms);
    b.record(100ms);
    b.record(100ms);
    a.add(b);
    EXPECT_EQ(a.count(), 3u);
    EXPECT_GE(a.quantile(0.5), 100ms);
    EXPECT_EQ(a.max(), 100ms);
}

TEST(LatencyHistogram, SinceKeepsOnlyLaterRecords) {
    latency_histogram h;
    h.record(100ms);
    const latency_histogram earlier = h;
    h.record(1ms);
    const auto later = h.since(earlier);
    EXPECT_EQ(later.count(), 1u);
    EXPECT_LE(later.quantile(1.0), 1100us);
}

} // namespace
} // namespace hpaplus::core
