// The Event spam filter: a burst per object and reason, then one Event per refill period, as
// client-go's EventSourceObjectSpamFilter (25, then one every 5 minutes).
#include "kube/event_recorder.hpp"

#include <gtest/gtest.h>

namespace hpaplus::kube {
namespace {

using namespace std::chrono_literals;

const core::time_point t0{std::chrono::seconds(1'700'000'000)};

int allowed(event_spam_filter& f, const std::string& key, int tries, core::time_point now) {
    int n = 0;
    for (int i = 0; i < tries; ++i)
        n += f.allow(key, now) ? 1 : 0;
    return n;
}

TEST(EventSpamFilter, ABurstThenOnePerRefillPeriod) {
    event_spam_filter f;
    EXPECT_EQ(allowed(f, "a/x\nFailedGetMetrics", 100, t0), 25);
    EXPECT_EQ(allowed(f, "a/x\nFailedGetMetrics", 10, t0 + 4min), 0);
    EXPECT_EQ(allowed(f, "a/x\nFailedGetMetrics", 10, t0 + 5min), 1);
    EXPECT_EQ(allowed(f, "a/x\nFailedGetMetrics", 10, t0 + 15min), 2);
    // a long quiet spell refills the burst, never more
    EXPECT_EQ(allowed(f, "a/x\nFailedGetMetrics", 100, t0 + 24h), 25);
}

TEST(EventSpamFilter, EachObjectAndReasonHasItsOwnBucket) {
    event_spam_filter f;
    EXPECT_EQ(allowed(f, "a/x\nFailedGetMetrics", 30, t0), 25);
    EXPECT_EQ(allowed(f, "a/x\nSuccessfulRescale", 3, t0), 3);
    EXPECT_EQ(allowed(f, "a/y\nFailedGetMetrics", 3, t0), 3);
}

TEST(EventSpamFilter, AClockGoingBackEarnsNothing) {
    event_spam_filter f(2, 60s);
    EXPECT_EQ(allowed(f, "k", 5, t0), 2);
    EXPECT_EQ(allowed(f, "k", 5, t0 - 1h), 0);
    EXPECT_EQ(allowed(f, "k", 5, t0 + 30s), 0); // half a token since the latest time seen
    EXPECT_EQ(allowed(f, "k", 5, t0 + 60s), 1);
}

TEST(EventSpamFilter, MemoryStaysBoundedUnderManyKeys) {
    event_spam_filter f;
    for (int i = 0; i < 50'000; ++i)
        f.allow("ns/obj-" + std::to_string(i) + "\nR", t0);
    EXPECT_LE(f.keys(), 8192u);
}

} // namespace
} // namespace hpaplus::kube
