// core/time.hpp — the one clock type pure code uses, RFC 3339 text in and out, and the next tick of
// a fixed-phase period.
#pragma once

#include <boost/system/result.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace hpaplus::core {

/// Wall-clock instant with nanosecond resolution (what Go's time.Time compares at).
using time_point = std::chrono::time_point<std::chrono::system_clock, std::chrono::nanoseconds>;

/// The wall clock now, at time_point's resolution.
time_point wall_now();

/// Parses RFC 3339 (`2026-01-01T00:00:00Z`, fractional seconds, `+02:00` offsets). A time that
/// time_point cannot hold (before 1677-09-21 or after 2262-04-11) is errc::value_too_large.
boost::system::result<time_point> parse_rfc3339(std::string_view text);

/// `2026-01-01T00:00:00Z` — whole seconds, as metav1.Time is serialized.
std::string format_rfc3339(time_point t);

/// `2026-01-01T00:00:00.25Z` — with the fraction when there is one (RFC3339Nano, trailing zeros
/// trimmed).
std::string format_rfc3339_nano(time_point t);

/// The tick after `due` of a period that keeps its phase: `due + k × period` for the smallest
/// k >= 1 that lies after `now`. A late wake-up does not move the next one (objects woken late
/// together would otherwise start together from then on and stay bunched), and a pass that overran
/// whole periods skips the ticks it missed instead of running back to back. `period` <= 0: `now`.
template <class TimePoint, class Duration>
TimePoint next_in_phase(TimePoint due, Duration period, TimePoint now) {
    if (period <= Duration::zero()) return now;
    const auto next = due + period;
    if (next > now) return next;
    return next + period * ((now - next) / period + 1);
}

} // namespace hpaplus::core
