// core/time.hpp — the one clock type pure code uses, and RFC 3339 text in and out.
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

/// Whether a decision may be taken at `t`: a year inside time_point's range at either end, so every
/// window, period and look-back a decision measures from it (at most weeks) stays representable —
/// from 1678-09-21 to 2261-04-11 — and no date wraps.
bool decidable(time_point t);
/// The span `decidable` accepts, for messages ("1678-09-21T00:12:43Z to 2261-04-11T23:47:16Z").
std::string decidable_span();

/// Parses RFC 3339 (`2026-01-01T00:00:00Z`, fractional seconds, `+02:00` offsets). A time that
/// time_point cannot hold (before 1677-09-21 or after 2262-04-11) is errc::value_too_large.
boost::system::result<time_point> parse_rfc3339(std::string_view text);

/// `2026-01-01T00:00:00Z` — whole seconds, as metav1.Time is serialized.
std::string format_rfc3339(time_point t);

/// format_rfc3339's text held in place, for encoders that copy it anyway (no string per call).
struct rfc3339_text {
    char chars[48];
    std::size_t size = 0;
    std::string_view view() const { return {chars, size}; }
};
rfc3339_text rfc3339(time_point t);

/// `2026-01-01T00:00:00.25Z` — with the fraction when there is one (RFC3339Nano, trailing zeros
/// trimmed).
std::string format_rfc3339_nano(time_point t);

/// `2026-01-01T00:00:00.250000Z` — metav1.MicroTime: exactly six fractional digits (a Lease's
/// acquire and renew times, an Event's eventTime).
std::string format_micro_time(time_point t);

} // namespace hpaplus::core
