// The one flag parser (cli/flags) every subcommand uses, and the API client's flags in it: each
// flag sets its field, bad values are errors naming the flag, the help shows the defaults.
#include "cli/client_flags.hpp"
#include "cli/flags.hpp"

#include <gtest/gtest.h>

namespace hpaplus::cli {
namespace {

using namespace std::chrono_literals;

core::outcome<bool> parse(flag_table& flags, std::vector<std::string> args) {
    args.insert(args.begin(), "cmd");
    return flags.parse(args);
}

TEST(ClientFlags, SetTheOptions) {
    kube::client_options o;
    flag_table flags("hpaplus test");
    add_client_flags(flags, o);
    const auto r = parse(flags, {"--kube-api-qps=12.5", "--kube-api-burst", "7",
                                 "--kube-max-retries=0", "--kube-request-timeout=1m30s",
                                 "--kube-connect-timeout=250ms", "--kube-api-connections=4"});
    ASSERT_TRUE(r) << r.error().text;
    EXPECT_FALSE(*r);
    EXPECT_DOUBLE_EQ(o.qps, 12.5);
    EXPECT_EQ(o.burst, 7);
    EXPECT_EQ(o.max_retries, 0);
    EXPECT_EQ(o.request_timeout, 90s);
    EXPECT_EQ(o.connect_timeout, 250ms);
    EXPECT_EQ(o.max_connections, 4u);
    EXPECT_EQ(o.max_idle_connections, 4u);
}

TEST(ClientFlags, OtherFlagsAreNotOurs) {
    kube::client_options o;
    flag_table flags("hpaplus test");
    add_client_flags(flags, o);
    const auto r = parse(flags, {"--listen=127.0.0.1:0"});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().text.find("unknown flag --listen (see 'hpaplus test --help')"),
              std::string::npos)
        << r.error().text;
}

struct bad_flag {
    const char* name;
    const char* value;
};

class ClientFlagsReject : public ::testing::TestWithParam<bad_flag> {};

TEST_P(ClientFlagsReject, NamingTheFlag) {
    kube::client_options o;
    flag_table flags("hpaplus test");
    add_client_flags(flags, o);
    const auto r = parse(flags, {std::string("--") + GetParam().name + "=" + GetParam().value});
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
                      bad_flag{"kube-connect-timeout", "0s"},
                      bad_flag{"kube-api-connections", "0"}));

TEST(ClientFlags, HelpShowsTheDefaults) {
    kube::client_options o;
    flag_table flags("hpaplus test");
    add_client_flags(flags, o);
    const std::string help = flags.help();
    EXPECT_NE(help.find("\nAPI client:\n"), std::string::npos) << help;
    EXPECT_NE(help.find("--kube-api-qps=VALUE"), std::string::npos);
    EXPECT_NE(help.find("(default 50)"), std::string::npos);
    EXPECT_NE(help.find("(default 30s)"), std::string::npos);
}

struct sample_options {
    bool on = false;
    std::string name = "x";
    int count = 3;
    std::chrono::milliseconds tick{100};
};

TEST(FlagTable, BooleansValuesPositionalsAndGiven) {
    sample_options o;
    flag_table flags("hpaplus sample");
    flags.boolean("on", "switch", o.on);
    flags.text("name", "a name", o.name);
    flags.integer("count", "how many", o.count, 1, 5);
    flags.duration("tick", "how often", o.tick);
    std::vector<std::string> positional;
    const auto r =
        flags.parse({"sample", "--on", "--name", "y", "file", "--tick=1us"}, &positional);
    ASSERT_TRUE(r) << r.error().text;
    EXPECT_TRUE(o.on) << "a boolean alone means true when a flag follows";
    EXPECT_EQ(o.name, "y");
    EXPECT_EQ(positional, std::vector<std::string>{"file"});
    EXPECT_EQ(o.tick, 1ms) << "rounded up to the field's unit";
    EXPECT_TRUE(flags.given("name"));
    EXPECT_FALSE(flags.given("count"));
    ASSERT_TRUE(flags.parse({"sample", "--on", "false"}));
    EXPECT_FALSE(o.on) << "--on false sets false";
    EXPECT_FALSE(flags.given("name")) << "each parse starts afresh";

    const std::pair<std::vector<std::string>, const char*> rows[] = {
        {{"sample", "--count=9"}, "--count: want an integer from 1 to 5, got \"9\""},
        {{"sample", "--count"}, "--count: a value is required"},
        {{"sample", "--tick=0s"}, "--tick: want a positive duration such as 15s"},
        {{"sample", "--on=maybe"}, "--on: want true or false"},
        {{"sample", "--nope"}, "unknown flag --nope (see 'hpaplus sample --help')"},
        {{"sample", "stray"}, "unexpected argument 'stray'"},
    };
    for (const auto& [args, message] : rows) {
        const auto bad = flags.parse(args);
        ASSERT_FALSE(bad) << message;
        EXPECT_NE(bad.error().text.find(message), std::string::npos) << bad.error().text;
    }
    const auto help = flags.parse({"sample", "--count=2", "-h"});
    ASSERT_TRUE(help);
    EXPECT_TRUE(*help);
}

TEST(FlagTable, HelpShowsTheDefaultsTheFieldsHadWhenAdded) {
    sample_options o;
    o.count = 4;
    flag_table flags("hpaplus sample");
    flags.integer("count", "how many", o.count, 1, 5);
    flags.text("name", "a name", o.name, false);
    flags.section("Timing");
    flags.duration("tick", "how often", o.tick);
    EXPECT_EQ(flags.help(), "  --count=VALUE\n        how many (default 4)\n"
                            "  --name=VALUE\n        a name\n"
                            "\nTiming:\n  --tick=VALUE\n        how often (default 100ms)\n");
}

} // namespace
} // namespace hpaplus::cli
