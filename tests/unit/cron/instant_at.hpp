// tests/unit/cron/instant_at.hpp — the instant of an RFC 3339 text, to the second, as the cron
// tables write their times.
#pragma once

#include "core/time.hpp"
#include "cron/next_fire.hpp"

#include <chrono>

namespace hpaplus::cron::testing {

inline instant at(const char* rfc3339) {
    return std::chrono::floor<std::chrono::seconds>(core::parse_rfc3339(rfc3339).value());
}

} // namespace hpaplus::cron::testing
