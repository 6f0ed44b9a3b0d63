// Cron expressions: what parses (checked through the fire times it gives) and what is refused,
// with a message naming the field.
#include "cron/schedule.hpp"

#include <gtest/gtest.h>

namespace hpaplus::cron {
namespace {

struct invalid_case {
    const char* expression;
    const char* message;
};
void PrintTo(const invalid_case& c, std::ostream* os) {
    *os << '"' << c.expression << '"';
}

class InvalidSchedule : public ::testing::TestWithParam<invalid_case> {};
TEST_P(InvalidSchedule, NamesTheField) {
    const auto s = parse_schedule(GetParam().expression);
    ASSERT_FALSE(s) << GetParam().expression;
    EXPECT_EQ(s.error().text, GetParam().message);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Table, InvalidSchedule, ::testing::Values(
    invalid_case{"", "the schedule is empty"},
    invalid_case{"* * * *", "expected 5 fields (minute hour day-of-month month day-of-week) or 6 (with seconds first), got 4"},
    invalid_case{"* * * * * * *", "expected 5 fields (minute hour day-of-month month day-of-week) or 6 (with seconds first), got 7"},
    invalid_case{"60 * * * *", "minute: 60 is out of range 0-59"},
    invalid_case{"60 * * * * *", "second: 60 is out of range 0-59"},
    invalid_case{"0 24 * * *", "hour: 24 is out of range 0-23"},
    invalid_case{"* * 0 * *", "day-of-month: 0 is out of range 1-31"},
    invalid_case{"* * 32 * *", "day-of-month: 32 is out of range 1-31"},
    invalid_case{"* * * 13 *", "month: 13 is out of range 1-12"},
    invalid_case{"* * * FOO *", "month: \"FOO\" is not a number or a name"},
    invalid_case{"* * * * 8", "day-of-week: 8 is out of range 0-7"},
    invalid_case{"* * * * FUN", "day-of-week: \"FUN\" is not a number or a name"},
    invalid_case{"*/0 * * * *", "minute: bad step \"0\""},
    invalid_case{"*/x * * * *", "minute: bad step \"x\""},
    invalid_case{"5-1 * * * *", "minute: range 5-1 runs backwards"},
    invalid_case{"? * * * *", "minute: ? is only allowed in the day fields"},
    invalid_case{"1,,2 * * * *", "minute: a value is missing"},
    invalid_case{"1- * * * *", "minute: a value is missing"},
    invalid_case{"@every", "@every: expected one duration such as 90s"},
    invalid_case{"@every soon", "@every: \"soon\" is not a positive duration such as 90s or 1h30m"},
    invalid_case{"@every 0s", "@every: \"0s\" is not a positive duration such as 90s or 1h30m"},
    invalid_case{"@every 500ms", "@every: the interval must be at least 1s"},
    invalid_case{"@fortnightly", "unknown descriptor \"@fortnightly\" (use @yearly, @monthly, @weekly, @daily, @hourly or @every)"},
    invalid_case{"@daily 5", "unknown descriptor \"@daily\" (use @yearly, @monthly, @weekly, @daily, @hourly or @every)"}),
    [](const auto& info) { return "Row" + std::to_string(info.index); });
// clang-format on

TEST(Schedule, FiveFieldsMeanSecondZeroAndDayFieldsKnowIfTheyAreRestricted) {
    const auto s = parse_schedule("30 2 13 * fri");
    ASSERT_TRUE(s) << s.error().text;
    EXPECT_EQ(s->seconds.count(), 1u);
    EXPECT_TRUE(s->seconds[0]);
    EXPECT_TRUE(s->minutes[30]);
    EXPECT_TRUE(s->hours[2]);
    EXPECT_TRUE(s->day_of_month_restricted);
    EXPECT_TRUE(s->day_of_week_restricted);
    EXPECT_TRUE(s->days_of_week[5]);
    const auto q = parse_schedule("0 0 0 ? * *");
    ASSERT_TRUE(q);
    EXPECT_FALSE(q->day_of_month_restricted);
    EXPECT_EQ(q->days_of_month.count(), 31u);
    const auto sunday = parse_schedule("0 0 * * 7");
    ASSERT_TRUE(sunday);
    EXPECT_TRUE(sunday->days_of_week[0]);
    EXPECT_EQ(sunday->days_of_week.count(), 1u);
}

} // namespace
} // namespace hpaplus::cron
