// cron/next_fire.hpp — when a schedule fires, on the wall clock of an IANA time zone (the system
// tz database through howardhinnant date). DST: a wall time inside a spring-forward gap fires once
// at the first instant after the gap (however many fire times fell into it); a wall time that
// occurs twice in a fall-back overlap fires once, at its first occurrence. `@every D` fires at
// from + k·D. Pure apart from reading the tz database.
#pragma once

#include "cron/schedule.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace date {
class time_zone;
}

namespace hpaplus::cron {

using instant = std::chrono::sys_seconds;

/// The zone, or nullptr when the database does not know `name`.
const date::time_zone* find_zone(std::string_view name);

/// The last instant RFC 3339 can write (four-digit years): no fire time is ever later.
inline constexpr instant last_instant{
    std::chrono::sys_days{std::chrono::year{9999} / std::chrono::December / 31}.time_since_epoch() +
    std::chrono::seconds{86399}};

/// The first fire time strictly after `from`; nullopt when none within five years (or before
/// last_instant).
std::optional<instant> next_fire(const schedule& s, const date::time_zone& zone, instant from);

/// The latest fire time `t` with `after < t <= until`; nullopt when there is none. For `@every D`
/// the fire times are after + k·D.
std::optional<instant> last_fire(const schedule& s, const date::time_zone& zone, instant after,
                                 instant until);

/// Up to `count` fire times after `from`, in order.
std::vector<instant> next_fires(const schedule& s, const date::time_zone& zone, instant from,
                                std::size_t count);

/// RFC 3339 with the zone's offset at `t`: `2026-03-08T03:00:00-04:00`.
std::string format_in_zone(instant t, const date::time_zone& zone);

} // namespace hpaplus::cron
