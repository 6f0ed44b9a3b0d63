// cron/exclusions.hpp — the calendar dates a CronHPA does not fire on. An entry is either a date
// `YYYY-MM-DD` or a cron expression matched against dates: its day-of-month, month and
// day-of-week fields (with the usual day rule) decide, its time fields are ignored. Dates are the
// calendar dates of the CronHPA's time zone. Pure apart from reading the tz database.
#pragma once

#include "cron/next_fire.hpp"

#include <string>
#include <vector>

namespace hpaplus::cron {

struct civil_date {
    int year = 0;
    unsigned month = 0; ///< 1..12
    unsigned day = 0;   ///< 1..31
    friend bool operator==(const civil_date&, const civil_date&) = default;
};

/// `2026-12-25`; nullopt unless it is a real calendar date in that exact form.
std::optional<civil_date> parse_civil_date(std::string_view text);

/// The calendar date of `t` on the wall clock of `zone`.
civil_date date_in_zone(instant t, const date::time_zone& zone);

struct exclusions {
    std::vector<civil_date> dates;
    std::vector<schedule> patterns;
};

struct exclusion_error {
    std::size_t index = 0;
    std::string message;
};

/// Parses every entry; entries that cannot be read are reported and left out (the valid ones
/// still apply). `@every` has no dates, so it is an error here.
exclusions parse_exclusions(const std::vector<std::string>& entries,
                            std::vector<exclusion_error>& errors);

/// True when `day` is excluded.
bool excluded(const exclusions& e, const civil_date& day);

} // namespace hpaplus::cron
