// What the client reads from a server's refusal: Retry-After is advice within bounds (seconds
// from 0 to a day, nothing else); "Too large resource version" is known by its cause or, from old
// servers, by its message.
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

TEST(ResourceVersionTooLarge, KnownByItsCauseOrByTheMessageOfA504) {
    api_status by_cause;
    by_cause.code = 504;
    by_cause.causes = {"ResourceVersionTooLarge"};
    EXPECT_TRUE(resource_version_too_large(by_cause));
    api_status by_message; // older servers set no cause
    by_message.code = 504;
    by_message.reason = "Timeout";
    by_message.message = "Timeout: Too large resource version: 159128021, current: 159127032";
    EXPECT_TRUE(resource_version_too_large(by_message));
}

TEST(ResourceVersionTooLarge, NotOtherTimeoutsOrOtherCodes) {
    api_status timeout;
    timeout.code = 504;
    timeout.message = "the server was unable to return a response in the time allotted";
    EXPECT_FALSE(resource_version_too_large(timeout));
    api_status elsewhere;
    elsewhere.code = 500;
    elsewhere.message = "Too large resource version: 5, current: 4";
    EXPECT_FALSE(resource_version_too_large(elsewhere));
}

} // namespace
} // namespace hpaplus::kube
