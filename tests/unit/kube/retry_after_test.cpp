// Retry-After from a server is advice within bounds: seconds from 0 to a day, nothing else.
#include "kube/api_client.hpp"

#include <gtest/gtest.h>

namespace hpaplus::kube {
namespace {

TEST(RetryAfter, TakesDelaySecondsUpToADay) {
    EXPECT_EQ(retry_after_seconds("0"), 0);
    EXPECT_EQ(retry_after_seconds("120"), 120);
    EXPECT_EQ(retry_after_seconds(" 7 "), 7);
    EXPECT_EQ(retry_after_seconds("86400"), 86400);
}

TEST(RetryAfter, IgnoresEverythingElse) {
    for (const char* header : {"", "-1", "86401", "99999999999999999999", "1.5", "5s", "abc",
                               "Wed, 21 Oct 2015 07:28:00 GMT", "+5"})
        EXPECT_EQ(retry_after_seconds(header), std::nullopt) << header;
}

} // namespace
} // namespace hpaplus::kube
