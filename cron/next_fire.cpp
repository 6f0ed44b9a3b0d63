// cron/next_fire.cpp — next fire times on a zone's wall clock.
#include "cron/next_fire.hpp"

#include <date/tz.h>

#include <string>

namespace hpaplus::cron {
namespace {

using namespace std::chrono;

bool day_matches(const schedule& s, const date::year_month_day& ymd) {
    const bool dom = s.days_of_month[static_cast<unsigned>(ymd.day())];
    const bool dow = s.days_of_week[date::weekday(date::sys_days(ymd)).c_encoding()];
    if (s.day_of_month_restricted && s.day_of_week_restricted) return dom || dow;
    return dom && dow;
}

// The instant a matching wall time `local` fires at (see the header for the DST rules).
instant to_instant(const date::time_zone& zone, date::local_seconds local) {
    const date::local_info info = zone.get_info(local);
    switch (info.result) {
    case date::local_info::nonexistent:
        return info.first.end; // the first instant after the gap
    case date::local_info::ambiguous:
    case date::local_info::unique:
        break;
    }
    return instant(local.time_since_epoch() - info.first.offset);
}

} // namespace

const date::time_zone* find_zone(std::string_view name) {
    try {
        return date::locate_zone(name);
    } catch (const std::exception&) {
        return nullptr;
    }
}

std::optional<instant> next_fire(const schedule& s, const date::time_zone& zone, instant from) {
    if (from >= last_instant) return std::nullopt;
    if (s.every) {
        const auto step = ceil<seconds>(*s.every);
        if (step.count() <= 0 || step > last_instant - from) return std::nullopt;
        return from + step;
    }
    // Walk the wall clock forward from the wall time of `from`, skipping whole months, days,
    // hours and minutes that cannot match.
    date::local_seconds t = zone.to_local(from) + seconds(1);
    const date::local_seconds limit = t + date::years(5);
    while (t < limit) {
        const auto day = floor<date::days>(t);
        const date::year_month_day ymd(day);
        if (!s.months[static_cast<unsigned>(ymd.month())]) {
            const auto next_month = date::year_month{ymd.year(), ymd.month()} + date::months(1);
            t = date::local_days(next_month / 1);
            continue;
        }
        if (!day_matches(s, ymd)) {
            t = day + date::days(1);
            continue;
        }
        const date::hh_mm_ss<seconds> tod(t - day);
        if (!s.hours[static_cast<std::size_t>(tod.hours().count())]) {
            t = floor<hours>(t) + hours(1);
            continue;
        }
        if (!s.minutes[static_cast<std::size_t>(tod.minutes().count())]) {
            t = floor<minutes>(t) + minutes(1);
            continue;
        }
        if (!s.seconds[static_cast<std::size_t>(tod.seconds().count())]) {
            t += seconds(1);
            continue;
        }
        const instant fire = to_instant(zone, t);
        if (fire > last_instant) return std::nullopt;
        if (fire > from) return fire;
        t += seconds(1); // a gap's time already fired, or an overlap's second pass
    }
    return std::nullopt;
}

std::optional<instant> last_fire(const schedule& s, const date::time_zone& zone, instant after,
                                 instant until) {
    if (until <= after) return std::nullopt;
    if (s.every) {
        const auto step = ceil<seconds>(*s.every);
        if (step.count() <= 0) return std::nullopt;
        const auto k = (until - after) / step;
        if (k == 0) return std::nullopt;
        return after + k * step;
    }
    // Look back over windows that double in length, then walk forward inside the first window
    // that holds a fire time: a few next_fire calls however long ago `after` is.
    seconds window(60);
    for (;;) {
        const instant start = until - window > after ? until - window : after;
        auto t = next_fire(s, zone, start);
        if (t && *t <= until) {
            for (auto next = next_fire(s, zone, *t); next && *next <= until;
                 next = next_fire(s, zone, *next))
                t = next;
            return t;
        }
        if (start == after) return std::nullopt;
        window *= 2;
    }
}

std::vector<instant> next_fires(const schedule& s, const date::time_zone& zone, instant from,
                                std::size_t count) {
    std::vector<instant> out;
    while (out.size() < count) {
        const auto next = next_fire(s, zone, from);
        if (!next) break;
        out.push_back(*next);
        from = *next;
    }
    return out;
}

std::string format_in_zone(instant t, const date::time_zone& zone) {
    return date::format("%FT%T%Ez", date::make_zoned(&zone, t));
}

} // namespace hpaplus::cron
