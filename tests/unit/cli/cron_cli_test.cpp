// `hpaplus cron next` as a user runs it: output lines, defaults, and one-line errors with exit 2.
#include "../../support/build_paths.hpp"
#include "../../support/process.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

hpaplus::test::command_result run_cron(const std::string& args) {
    return hpaplus::test::run_command(std::string(HPAPLUS_BINARY) + " cron " + args);
}

TEST(CronNext, PrintsOneRfc3339LinePerFireTime) {
    const auto r = run_cron("next --schedule '0 12 * * *' --time-zone Europe/London "
                            "--from 2026-06-30T12:00:00Z --count 2");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.output, "2026-07-01T12:00:00+01:00\n2026-07-02T12:00:00+01:00\n");
}

TEST(CronNext, DefaultsToOneTimeInUtcAfterNow) {
    const auto r = run_cron("next --schedule '@hourly'");
    EXPECT_EQ(r.exit_code, 0);
    ASSERT_EQ(r.output.size(), std::string("2026-01-01T01:00:00+00:00\n").size()) << r.output;
    EXPECT_EQ(r.output.substr(13), ":00:00+00:00\n");
}

TEST(CronNext, ANeverFiringScheduleIsNotAnError) {
    const auto r = run_cron("next --schedule '0 0 30 2 *' --count 3");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.output, "");
}

TEST(CronNext, BadInputExitsTwoWithOneLine) {
    const std::pair<const char*, const char*> rows[] = {
        {"next --schedule '0 0 * * * * *'", "--schedule: expected 5 fields"},
        {"next --schedule '61 * * * *'", "--schedule: minute: 61 is out of range 0-59"},
        {"next --schedule '@daily' --time-zone Nowhere/Town", "--time-zone: \"Nowhere/Town\""},
        {"next --schedule '@daily' --from yesterday", "--from: \"yesterday\" is not an RFC 3339"},
        {"next --schedule '@daily' --from 9999-12-31T00:00:00Z",
         "--from: \"9999-12-31T00:00:00Z\" is outside the times HPAPlus handles"},
        {"next --schedule '@daily' --count 0", "--count: want an integer from 1 to 10000"},
        {"next --time-zone UTC", "--schedule is required"},
        {"next --schedule", "--schedule: a value is required"},
        {"next --bogus 1", "unknown flag --bogus"},
        {"later", "Usage: hpaplus cron next"}};
    for (const auto& [args, expect] : rows) {
        const auto r = run_cron(args);
        EXPECT_EQ(r.exit_code, 2) << args;
        EXPECT_NE(r.output.find(expect), std::string::npos) << args << ": " << r.output;
    }
}

} // namespace
