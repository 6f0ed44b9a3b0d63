// Table tests: client flags set client_options, and bad values are errors naming the flag.
#include "kube/client_flags.hpp"

#include <gtest/gtest.h>

namespace hpaplus::kube {
namespace {

using namespace std::chrono_literals;

TEST(ClientFlags, SetTheOptions) {
    client_options o;
    EXPECT_TRUE(apply_client_flag("kube-api-qps", "12.5", o).value());
    EXPECT_TRUE(apply_client_flag("kube-api-burst", "7", o).value());
    EXPECT_TRUE(apply_client_flag("kube-max-retries", "0", o).value());
    EXPECT_TRUE(apply_client_flag("kube-request-timeout", "1m30s", o).value());
    EXPECT_TRUE(apply_client_flag("kube-connect-timeout", "250ms", o).value());
    EXPECT_DOUBLE_EQ(o.qps, 12.5);
    EXPECT_EQ(o.burst, 7);
    EXPECT_EQ(o.max_retries, 0);
    EXPECT_EQ(o.request_timeout, 90s);
    EXPECT_EQ(o.connect_timeout, 250ms);
}

TEST(ClientFlags, OtherFlagsAreNotOurs) {
    client_options o;
    const auto r = apply_client_flag("listen", "127.0.0.1:0", o);
    ASSERT_TRUE(r);
    EXPECT_FALSE(*r);
}

struct bad_flag {
    const char* name;
    const char* value;
};

class ClientFlagsReject : public ::testing::TestWithParam<bad_flag> {};

TEST_P(ClientFlagsReject, NamingTheFlag) {
    client_options o;
    const auto r = apply_client_flag(GetParam().name, GetParam().value, o);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().text.find(std::string("--") + GetParam().name), std::string::npos)
        << r.error().text;
    EXPECT_NE(r.error().text.find(GetParam().value), std::string::npos) << r.error().text;
}

INSTANTIATE_TEST_SUITE_P(
    Values, ClientFlagsReject,
    ::testing::Values(bad_flag{"kube-api-qps", "0"}, bad_flag{"kube-api-qps", "-3"},
                      bad_flag{"kube-api-qps", "fast"}, bad_flag{"kube-api-qps", "inf"},
                      bad_flag{"kube-api-burst", "0"}, bad_flag{"kube-api-burst", "10x"},
                      bad_flag{"kube-api-burst", "99999999999"}, bad_flag{"kube-max-retries", "-1"},
                      bad_flag{"kube-request-timeout", "30"},
                      bad_flag{"kube-request-timeout", "-5s"},
                      bad_flag{"kube-connect-timeout", "0s"}));

TEST(ClientFlags, HelpShowsTheDefaults) {
    const std::string help = client_flags_help();
    EXPECT_NE(help.find("--kube-api-qps=N"), std::string::npos);
    EXPECT_NE(help.find("(default 50)"), std::string::npos);
    EXPECT_NE(help.find("(default 30000ms)"), std::string::npos);
}

} // namespace
} // namespace hpaplus::kube
