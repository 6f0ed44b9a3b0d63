// The latest fire time in a window, excluded dates and what a CronHPA does at a wake, worked out
// by hand (2026-11-21 is a Saturday, 2026-11-22 a Sunday, 2026-12-01 a Tuesday).
#include "core/time.hpp"
#include "cron/plan.hpp"
#include "instant_at.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace hpaplus::cron {
namespace {

using testing::at;

std::string utc(instant t) {
    return format_in_zone(t, *find_zone("UTC"));
}

struct last_case {
    const char* name;
    const char* expression;
    const char* zone;
    const char* after;
    const char* until;
    const char* expect; ///< "" = none
};
void PrintTo(const last_case& c, std::ostream* os) {
    *os << c.name;
}

class LastFire : public ::testing::TestWithParam<last_case> {};
TEST_P(LastFire, IsTheLatestInTheWindow) {
    const auto& c = GetParam();
    const auto s = parse_schedule(c.expression);
    ASSERT_TRUE(s) << s.error().text;
    const auto t = last_fire(*s, *find_zone(c.zone), at(c.after), at(c.until));
    EXPECT_EQ(t ? utc(*t) : "", std::string(c.expect));
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Table, LastFire, ::testing::Values(
    last_case{"Yesterday", "0 9 * * *", "UTC", "2026-11-01T00:00:00Z", "2026-11-22T08:00:00Z", "2026-11-21T09:00:00+00:00"},
    last_case{"UntilIsIncluded", "0 9 * * *", "UTC", "2026-11-01T00:00:00Z", "2026-11-22T09:00:00Z", "2026-11-22T09:00:00+00:00"},
    last_case{"AfterIsExcluded", "0 9 * * *", "UTC", "2026-11-22T09:00:00Z", "2026-11-22T10:00:00Z", ""},
    last_case{"YearsBack", "0 0 1 1 *", "UTC", "2020-06-01T00:00:00Z", "2026-11-22T00:00:00Z", "2026-01-01T00:00:00+00:00"},
    last_case{"EveryCountsFromAfter", "@every 90s", "UTC", "2026-11-22T00:00:00Z", "2026-11-22T00:10:00Z", "2026-11-22T00:09:00+00:00"},
    last_case{"EveryNotYet", "@every 1h", "UTC", "2026-11-22T00:00:00Z", "2026-11-22T00:59:59Z", ""},
    last_case{"EverySecondForMonths", "* * * * * *", "UTC", "2026-01-01T00:00:00Z", "2026-11-22T10:00:00Z", "2026-11-22T10:00:00+00:00"},
    last_case{"NewYorkGapTime", "30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", "2026-03-08T12:00:00Z", "2026-03-08T07:00:00+00:00"},
    last_case{"NeverFires", "0 0 30 2 *", "UTC", "2025-01-01T00:00:00Z", "2026-11-22T00:00:00Z", ""}));
// clang-format on

struct exclusion_case {
    const char* name;
    std::vector<std::string> entries;
    const char* day;
    bool expect;
};
void PrintTo(const exclusion_case& c, std::ostream* os) {
    *os << c.name;
}

class Excluded : public ::testing::TestWithParam<exclusion_case> {};
TEST_P(Excluded, MatchesCalendarDates) {
    const auto& c = GetParam();
    std::vector<exclusion_error> errors;
    const exclusions e = parse_exclusions(c.entries, errors);
    ASSERT_TRUE(errors.empty()) << errors.front().message;
    EXPECT_EQ(excluded(e, parse_civil_date(c.day).value()), c.expect);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Table, Excluded, ::testing::Values(
    exclusion_case{"DateItself", {"2026-12-25"}, "2026-12-25", true},
    exclusion_case{"NextDay", {"2026-12-25"}, "2026-12-26", false},
    exclusion_case{"SameDayOtherYear", {"2026-12-25"}, "2027-12-25", false},
    exclusion_case{"PatternEveryYear", {"* * 25 12 *"}, "2027-12-25", true},
    exclusion_case{"PatternTimeFieldsIgnored", {"0 36 1 12 12 *"}, "2026-12-12", true},
    exclusion_case{"PatternOtherDaySameMonth", {"0 36 1 12 12 *"}, "2026-12-13", false},
    exclusion_case{"Weekends", {"0 0 * * SAT,SUN"}, "2026-11-22", true},
    exclusion_case{"WeekendsNotMonday", {"0 0 * * SAT,SUN"}, "2026-11-23", false},
    exclusion_case{"BothDayFieldsOrFirst", {"0 0 1 * MON"}, "2026-12-01", true},
    exclusion_case{"BothDayFieldsOrMonday", {"0 0 1 * MON"}, "2026-11-23", true},
    exclusion_case{"BothDayFieldsNeither", {"0 0 1 * MON"}, "2026-11-24", false},
    exclusion_case{"Descriptor", {"@yearly"}, "2027-01-01", true},
    exclusion_case{"AnyOfSeveral", {"2026-01-01", "* * 24 12 *"}, "2026-12-24", true}));
// clang-format on

struct bad_exclusion {
    const char* entry;
    const char* message_part;
};
class BadExclusion : public ::testing::TestWithParam<bad_exclusion> {};
TEST_P(BadExclusion, IsReportedAndTheRestStillApply) {
    std::vector<exclusion_error> errors;
    const exclusions e = parse_exclusions({"2026-12-25", GetParam().entry}, errors);
    ASSERT_EQ(errors.size(), 1U);
    EXPECT_EQ(errors[0].index, 1U);
    EXPECT_NE(errors[0].message.find(GetParam().message_part), std::string::npos)
        << errors[0].message;
    EXPECT_TRUE(excluded(e, {2026, 12, 25}));
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Table, BadExclusion, ::testing::Values(
    bad_exclusion{"2026-02-30", "not a date"},
    bad_exclusion{"2026-13-01", "not a date"},
    bad_exclusion{"26-12-2026", "not a date"},
    bad_exclusion{"2026-1-5", "not a date"},
    bad_exclusion{"@every 1h", "@every"},
    bad_exclusion{"61 * * * *", "minute"},
    bad_exclusion{"christmas", "christmas"}));
// clang-format on

TEST(DateInZone, IsTheZonesCalendarDate) {
    EXPECT_EQ(date_in_zone(at("2026-11-22T03:00:00Z"), *find_zone("America/New_York")),
              (civil_date{2026, 11, 21}));
    EXPECT_EQ(date_in_zone(at("2026-11-22T03:00:00Z"), *find_zone("Asia/Tokyo")),
              (civil_date{2026, 11, 22}));
}

struct job_row {
    const char* schedule; ///< "" = invalid
    std::int32_t size;
    const char* since;
    bool run_once = false;
    bool finished = false;
};
struct plan_case {
    const char* name;
    std::vector<job_row> jobs;
    const char* zone;
    std::vector<std::string> excluded;
    std::optional<int> deadline_seconds;
    const char* now;
    std::string expect_due;  ///< "job@time:result[!]" per due run, "!" = finishes the job
    std::string expect_wake; ///< "" = never
};
void PrintTo(const plan_case& c, std::ostream* os) {
    *os << c.name;
}

class Plan : public ::testing::TestWithParam<plan_case> {};
TEST_P(Plan, DecidesTheRuns) {
    const auto& c = GetParam();
    const date::time_zone* zone = find_zone(c.zone);
    ASSERT_NE(zone, nullptr);
    std::vector<schedule> schedules;
    schedules.reserve(c.jobs.size());
    std::vector<job_spec> jobs;
    for (const auto& row : c.jobs) {
        job_spec j;
        if (*row.schedule) {
            schedules.push_back(parse_schedule(row.schedule).value());
            j.parsed = &schedules.back();
        }
        j.target_size = row.size;
        j.run_once = row.run_once;
        j.finished = row.finished;
        j.since = at(row.since);
        jobs.push_back(j);
    }
    std::vector<exclusion_error> errors;
    const exclusions ex = parse_exclusions(c.excluded, errors);
    plan_input in;
    in.jobs = &jobs;
    in.zone = zone;
    in.excluded_dates = &ex;
    if (c.deadline_seconds) in.deadline = std::chrono::seconds(*c.deadline_seconds);
    in.now = at(c.now);
    const plan p = plan_jobs(in);
    std::ostringstream due;
    for (const auto& d : p.due)
        due << (due.tellp() > 0 ? " " : "") << d.job << "@" << utc(d.at) << ":"
            << to_string(d.result) << (d.finishes_job ? "!" : "");
    EXPECT_EQ(due.str(), c.expect_due);
    EXPECT_EQ(p.wake ? utc(*p.wake) : "", c.expect_wake);
}

const job_row up{"0 8 * * *", 10, "2026-11-21T08:00:00Z"};
const job_row down{"0 20 * * *", 2, "2026-11-21T20:00:00Z"};

// clang-format off
INSTANTIATE_TEST_SUITE_P(Table, Plan, ::testing::Values(
    plan_case{"OnTime", {up, down}, "UTC", {}, std::nullopt, "2026-11-22T08:00:00Z",
              "0@2026-11-22T08:00:00+00:00:fire", "2026-11-22T20:00:00+00:00"},
    plan_case{"NothingDue", {up, down}, "UTC", {}, std::nullopt, "2026-11-22T07:59:59Z",
              "", "2026-11-22T08:00:00+00:00"},
    plan_case{"LateWithinDeadline", {up, down}, "UTC", {}, 60, "2026-11-22T08:01:00Z",
              "0@2026-11-22T08:00:00+00:00:fire", "2026-11-22T20:00:00+00:00"},
    plan_case{"LateBeyondDeadline", {up, down}, "UTC", {}, 60, "2026-11-22T08:01:01Z",
              "0@2026-11-22T08:00:00+00:00:missed", "2026-11-22T20:00:00+00:00"},
    plan_case{"DowntimeLatestJobWins", {up, down}, "UTC", {}, std::nullopt, "2026-11-22T21:00:00Z",
              "0@2026-11-22T08:00:00+00:00:superseded 1@2026-11-22T20:00:00+00:00:fire",
              "2026-11-23T08:00:00+00:00"},
    plan_case{"DowntimeDaysLatestJobWins", {up, down}, "UTC", {}, 3600, "2026-11-25T08:30:00Z",
              "0@2026-11-25T08:00:00+00:00:fire 1@2026-11-24T20:00:00+00:00:superseded",
              "2026-11-25T20:00:00+00:00"},
    plan_case{"ExcludedDate", {up}, "UTC", {"2026-11-22"}, std::nullopt, "2026-11-22T08:00:00Z",
              "0@2026-11-22T08:00:00+00:00:excluded", "2026-11-23T08:00:00+00:00"},
    plan_case{"ExcludedWeekendPattern", {up}, "UTC", {"* * * * SAT,SUN"}, std::nullopt, "2026-11-22T08:00:00Z",
              "0@2026-11-22T08:00:00+00:00:excluded", "2026-11-23T08:00:00+00:00"},
    plan_case{"DowntimeSkipsToTheLatestAllowedDay", {{"0 8 * * *", 10, "2026-11-20T08:00:00Z"}}, "UTC",
              {"2026-11-22"}, std::nullopt, "2026-11-22T09:00:00Z",
              "0@2026-11-21T08:00:00+00:00:fire", "2026-11-23T08:00:00+00:00"},
    plan_case{"ExcludedOnTheZonesDate", {{"0 22 * * *", 5, "2026-11-21T03:00:00Z"}}, "America/New_York",
              {"2026-11-21"}, std::nullopt, "2026-11-22T03:00:00Z",
              "0@2026-11-22T03:00:00+00:00:excluded", "2026-11-23T03:00:00+00:00"},
    plan_case{"NotExcludedByTheUtcDate", {{"0 22 * * *", 5, "2026-11-21T03:00:00Z"}}, "America/New_York",
              {"2026-11-22"}, std::nullopt, "2026-11-22T03:00:00Z",
              "0@2026-11-22T03:00:00+00:00:fire", "2026-11-23T03:00:00+00:00"},
    plan_case{"RunOnceFinishes", {{"0 12 * * *", 4, "2026-11-22T00:00:00Z", true}, down}, "UTC", {},
              std::nullopt, "2026-11-22T12:00:00Z", "0@2026-11-22T12:00:00+00:00:fire!",
              "2026-11-22T20:00:00+00:00"},
    plan_case{"RunOnceFinishedNeverAgain", {{"0 12 * * *", 4, "2026-11-22T12:00:00Z", true, true}}, "UTC", {},
              std::nullopt, "2026-11-23T12:00:00Z", "", ""},
    plan_case{"RunOnceExcludedWaits", {{"0 12 * * *", 4, "2026-11-21T12:00:00Z", true}}, "UTC", {"2026-11-22"},
              std::nullopt, "2026-11-22T12:00:00Z", "0@2026-11-22T12:00:00+00:00:excluded",
              "2026-11-23T12:00:00+00:00"},
    plan_case{"SameInstantLargerSizeWins", {{"0 8 * * *", 3, "2026-11-21T08:00:00Z"}, {"0 8 * * *", 7, "2026-11-21T08:00:00Z"},
              {"0 8 * * *", 5, "2026-11-21T08:00:00Z"}}, "UTC", {}, std::nullopt, "2026-11-22T08:00:00Z",
              "0@2026-11-22T08:00:00+00:00:superseded 1@2026-11-22T08:00:00+00:00:fire 2@2026-11-22T08:00:00+00:00:superseded",
              "2026-11-23T08:00:00+00:00"},
    plan_case{"EveryAnchoredOnSince", {{"@every 10s", 3, "2026-11-22T00:00:00Z"}}, "UTC", {}, std::nullopt,
              "2026-11-22T00:00:25Z", "0@2026-11-22T00:00:20+00:00:fire", "2026-11-22T00:00:30+00:00"},
    plan_case{"EveryNextBeforeFirstFire", {{"@every 10s", 3, "2026-11-22T00:00:00Z"}}, "UTC", {}, std::nullopt,
              "2026-11-22T00:00:05Z", "", "2026-11-22T00:00:10+00:00"},
    plan_case{"InvalidScheduleNeverFires", {{"", 3, "2026-11-21T00:00:00Z"}, down}, "UTC", {}, std::nullopt,
              "2026-11-22T08:00:00Z", "", "2026-11-22T20:00:00+00:00"},
    plan_case{"NewYorkWallClock", {{"0 8 * * *", 6, "2026-11-21T13:00:00Z"}}, "America/New_York", {}, std::nullopt,
              "2026-11-22T13:00:00Z", "0@2026-11-22T13:00:00+00:00:fire", "2026-11-23T13:00:00+00:00"}));
// clang-format on

} // namespace
} // namespace hpaplus::cron
