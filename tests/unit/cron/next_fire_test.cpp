// Next fire times, worked out by hand from the calendar and the zones' DST rules (2026: New York
// switches on Mar 8 and Nov 1, London on Mar 29 and Oct 25, Lord Howe by 30 minutes on Apr 5 and
// Oct 4, Chatham at 02:45/03:45 standard time on Apr 5 and Sep 27).
#include "core/time.hpp"
#include "cron/next_fire.hpp"

#include <gtest/gtest.h>

namespace hpaplus::cron {
namespace {

struct fire_case {
    const char* name;
    const char* expression;
    const char* zone;
    const char* from;
    std::vector<const char*> expect;
};
void PrintTo(const fire_case& c, std::ostream* os) {
    *os << c.name;
}

class NextFire : public ::testing::TestWithParam<fire_case> {};
TEST_P(NextFire, MatchesTheCalendar) {
    const auto& c = GetParam();
    const auto s = parse_schedule(c.expression);
    ASSERT_TRUE(s) << s.error().text;
    const date::time_zone* zone = find_zone(c.zone);
    ASSERT_NE(zone, nullptr) << c.zone;
    const auto from = std::chrono::floor<std::chrono::seconds>(core::parse_rfc3339(c.from).value());
    std::vector<std::string> got;
    for (const auto& t : next_fires(*s, *zone, from, c.expect.size()))
        got.push_back(format_in_zone(t, *zone));
    EXPECT_EQ(got, std::vector<std::string>(c.expect.begin(), c.expect.end()));
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Table, NextFire, ::testing::Values(
    // New York: spring forward 02:00 -> 03:00 on Mar 8; fall back 02:00 -> 01:00 on Nov 1.
    fire_case{"NewYorkGapFiresOnceAfterTheGap", "30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z",
              {"2026-03-08T03:00:00-04:00", "2026-03-09T02:30:00-04:00"}},
    fire_case{"NewYorkGapCollapsesSeveralTimes", "*/15 2 * * *", "America/New_York", "2026-03-08T05:00:00Z",
              {"2026-03-08T03:00:00-04:00", "2026-03-09T02:00:00-04:00"}},
    fire_case{"NewYorkOverlapFiresTheFirstTime", "30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z",
              {"2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"}},
    fire_case{"NewYorkSecondPassDoesNotFireAgain", "30 1 * * *", "America/New_York", "2026-11-01T06:10:00Z",
              {"2026-11-02T01:30:00-05:00"}},
    fire_case{"NewYorkHalfHourlyAcrossFallBack", "*/30 * * * *", "America/New_York", "2026-11-01T05:00:00Z",
              {"2026-11-01T01:30:00-04:00", "2026-11-01T02:00:00-05:00"}},
    // London: 01:00 -> 02:00 on Mar 29, 02:00 -> 01:00 on Oct 25.
    fire_case{"LondonGap", "30 1 * * *", "Europe/London", "2026-03-28T12:00:00Z",
              {"2026-03-29T02:00:00+01:00", "2026-03-30T01:30:00+01:00"}},
    fire_case{"LondonOverlap", "0 1 * * *", "Europe/London", "2026-10-24T12:00:00Z",
              {"2026-10-25T01:00:00+01:00", "2026-10-26T01:00:00+00:00"}},
    // Lord Howe moves by 30 minutes: 02:00 -> 02:30 on Oct 4, 02:00 -> 01:30 on Apr 5.
    fire_case{"LordHoweHalfHourGap", "15 2 * * *", "Australia/Lord_Howe", "2026-10-03T00:00:00Z",
              {"2026-10-04T02:30:00+11:00", "2026-10-05T02:15:00+11:00"}},
    fire_case{"LordHoweHalfHourOverlap", "45 1 * * *", "Australia/Lord_Howe", "2026-04-04T00:00:00Z",
              {"2026-04-05T01:45:00+11:00", "2026-04-06T01:45:00+10:30"}},
    // Chatham (+12:45 / +13:45): 02:45 -> 03:45 on Sep 27, 03:45 -> 02:45 on Apr 5.
    fire_case{"ChathamGap", "0 3 * * *", "Pacific/Chatham", "2026-09-26T00:00:00Z",
              {"2026-09-27T03:45:00+13:45", "2026-09-28T03:00:00+13:45"}},
    fire_case{"ChathamOverlap", "0 3 * * *", "Pacific/Chatham", "2026-04-04T00:00:00Z",
              {"2026-04-05T03:00:00+13:45", "2026-04-06T03:00:00+12:45"}},
    // Calendar rules.
    fire_case{"LeapDaysOnly", "0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z",
              {"2028-02-29T00:00:00+00:00", "2032-02-29T00:00:00+00:00"}},
    fire_case{"EitherDayFieldWhenBothAreRestricted", "0 9 13 * FRI", "UTC", "2026-01-01T00:00:00Z",
              {"2026-01-02T09:00:00+00:00", "2026-01-09T09:00:00+00:00", "2026-01-13T09:00:00+00:00"}},
    fire_case{"DayOfMonthAloneWithAStar", "0 9 13 * *", "UTC", "2026-01-01T00:00:00Z",
              {"2026-01-13T09:00:00+00:00", "2026-02-13T09:00:00+00:00"}},
    fire_case{"QuestionMarkIsAStar", "0 0 9 13 * ?", "UTC", "2026-01-01T00:00:00Z",
              {"2026-01-13T09:00:00+00:00"}},
    fire_case{"SevenIsSunday", "0 0 * * 7", "UTC", "2026-01-01T00:00:00Z", {"2026-01-04T00:00:00+00:00"}},
    fire_case{"MonthNamesAnyCase", "0 0 1 jan,Jul *", "UTC", "2026-01-01T00:00:00Z",
              {"2026-07-01T00:00:00+00:00", "2027-01-01T00:00:00+00:00"}},
    fire_case{"SecondsRangesStepsAndDayNames", "0 10-20/5 8 * * MON-FRI", "UTC", "2026-01-02T08:12:00Z",
              {"2026-01-02T08:15:00+00:00", "2026-01-02T08:20:00+00:00", "2026-01-05T08:10:00+00:00"}},
    fire_case{"StartWithStep", "5/20 * * * *", "UTC", "2026-01-01T00:00:00Z",
              {"2026-01-01T00:05:00+00:00", "2026-01-01T00:25:00+00:00", "2026-01-01T00:45:00+00:00"}},
    fire_case{"EverySecondTwentieth", "*/20 * * * * *", "UTC", "2026-01-01T00:00:00Z",
              {"2026-01-01T00:00:20+00:00", "2026-01-01T00:00:40+00:00", "2026-01-01T00:01:00+00:00"}},
    fire_case{"StrictlyAfterFrom", "0 0 * * *", "UTC", "2026-01-01T00:00:00Z", {"2026-01-02T00:00:00+00:00"}},
    fire_case{"Weekly", "@weekly", "UTC", "2026-01-01T00:00:00Z", {"2026-01-04T00:00:00+00:00"}},
    fire_case{"Hourly", "@hourly", "UTC", "2026-01-01T00:00:00Z", {"2026-01-01T01:00:00+00:00"}},
    fire_case{"Monthly", "@monthly", "UTC", "2026-01-01T00:00:00Z", {"2026-02-01T00:00:00+00:00"}},
    fire_case{"Yearly", "@yearly", "UTC", "2026-01-01T00:00:00Z", {"2027-01-01T00:00:00+00:00"}},
    fire_case{"DailyInAZone", "@daily", "Asia/Kolkata", "2026-01-01T00:00:00Z", {"2026-01-02T00:00:00+05:30"}},
    fire_case{"EveryIgnoresTheWallClock", "@every 1h30m", "America/New_York", "2026-03-08T06:00:00Z",
              {"2026-03-08T03:30:00-04:00", "2026-03-08T05:00:00-04:00"}}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

TEST(NextFire, AnImpossibleDateNeverFires) {
    const auto s = parse_schedule("0 0 30 2 *");
    ASSERT_TRUE(s);
    const auto from = std::chrono::floor<std::chrono::seconds>(
        core::parse_rfc3339("2026-01-01T00:00:00Z").value());
    EXPECT_FALSE(next_fire(*s, *find_zone("UTC"), from));
}

TEST(NextFire, NothingFiresAfterTheLastYearRfc3339CanWrite) {
    const auto daily = parse_schedule("0 0 * * *");
    const auto hourly = parse_schedule("@every 1h");
    ASSERT_TRUE(daily && hourly);
    const date::time_zone& utc = *find_zone("UTC");
    const instant eve = std::chrono::sys_days{std::chrono::year{9999} / 12 / 30};
    EXPECT_EQ(next_fire(*daily, utc, eve), eve + std::chrono::days(1));
    EXPECT_FALSE(next_fire(*daily, utc, eve + std::chrono::days(1)));
    EXPECT_EQ(next_fires(*hourly, utc, last_instant - std::chrono::minutes(150), 10).size(), 2u);
    EXPECT_EQ(format_in_zone(last_instant, utc), "9999-12-31T23:59:59+00:00");
}

TEST(NextFire, UnknownZonesAreNotFound) {
    EXPECT_EQ(find_zone("Mars/Olympus_Mons"), nullptr);
    EXPECT_NE(find_zone("Pacific/Chatham"), nullptr);
}

} // namespace
} // namespace hpaplus::cron
