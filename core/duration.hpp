// core/duration.hpp — Go duration strings (`90s`, `1h30m`, `15.012s`), as Kubernetes and cron use
// them.
#pragma once

#include <boost/system/result.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace hpaplus::core {

/// Parses Go's `time.ParseDuration` syntax: an optional sign, then one or more decimal numbers
/// each with a unit (ns, us, µs, ms, s, m, h); `0` alone is allowed. Rejects overflow.
boost::system::result<std::chrono::nanoseconds> parse_go_duration(std::string_view text);

/// Go's `Duration.String()`: `1h30m0s`, `15s`, `1.5s`, `250ms`, `0s`.
std::string format_go_duration(std::chrono::nanoseconds d);

} // namespace hpaplus::core
