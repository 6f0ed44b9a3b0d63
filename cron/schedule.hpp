// cron/schedule.hpp — cron expressions as DESIGN §4.3 defines them: 5 fields (minute hour
// day-of-month month day-of-week, seconds = 0) or 6 (seconds first), descriptors (@yearly,
// @monthly, @weekly, @daily/@midnight, @hourly) and `@every DURATION`; `*`, `?` (day fields),
// numbers, ranges, steps, lists, month and day names; day-of-week 0-7 with 0 and 7 both Sunday.
// Pure: no I/O.
#pragma once

#include "core/outcome.hpp"

#include <bitset>
#include <chrono>
#include <optional>
#include <string_view>

namespace hpaplus::cron {

struct schedule {
    std::bitset<60> seconds;
    std::bitset<60> minutes;
    std::bitset<24> hours;
    std::bitset<32> days_of_month; ///< bits 1..31
    std::bitset<13> months;        ///< bits 1..12
    std::bitset<7> days_of_week;   ///< bits 0..6, 0 = Sunday
    /// A day field counts as restricted unless its text starts with `*` or `?`; when both are
    /// restricted a day matches if either matches, otherwise both must.
    bool day_of_month_restricted = false;
    bool day_of_week_restricted = false;
    /// `@every DURATION`: fires at from + k·every instead of matching fields.
    std::optional<std::chrono::nanoseconds> every;
};

/// Parses an expression; the error names the field (`minute: 61 is out of range 0-59`).
core::outcome<schedule> parse_schedule(std::string_view expression);

} // namespace hpaplus::cron
