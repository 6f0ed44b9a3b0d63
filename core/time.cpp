// core/time.cpp — RFC 3339 parsing and formatting on the civil calendar of <chrono>.
#include "core/time.hpp"

#include <boost/system/errc.hpp>

#include <cstdint>
#include <cstdio>

namespace hpaplus::core {
namespace {

bool read_digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
    if (pos + n > s.size()) return false;
    int v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const char c = s[pos + i];
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    out = v;
    return true;
}

} // namespace

boost::system::result<time_point> parse_rfc3339(std::string_view s) {
    const auto invalid =
        boost::system::errc::make_error_code(boost::system::errc::invalid_argument);
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!read_digits(s, 0, 4, year) || s.size() < 20 || s[4] != '-' ||
        !read_digits(s, 5, 2, month) || s[7] != '-' || !read_digits(s, 8, 2, day) ||
        (s[10] != 'T' && s[10] != 't') || !read_digits(s, 11, 2, hour) || s[13] != ':' ||
        !read_digits(s, 14, 2, minute) || s[16] != ':' || !read_digits(s, 17, 2, second))
        return invalid;
    const std::chrono::year_month_day ymd{std::chrono::year{year},
                                          std::chrono::month{static_cast<unsigned>(month)},
                                          std::chrono::day{static_cast<unsigned>(day)}};
    if (!ymd.ok() || hour > 23 || minute > 59 || second > 60) return invalid;
    std::size_t pos = 19;
    std::int64_t nanos = 0;
    if (s[pos] == '.') {
        ++pos;
        int count = 0;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
            if (count < 9) {
                nanos = nanos * 10 + (s[pos] - '0');
                ++count;
            }
            ++pos;
        }
        if (count == 0) return invalid;
        for (; count < 9; ++count)
            nanos *= 10;
    }
    std::int64_t offset_seconds = 0;
    if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
        ++pos;
    } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        int oh = 0, om = 0;
        if (!read_digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
            !read_digits(s, pos + 4, 2, om) || oh > 23 || om > 59)
            return invalid;
        offset_seconds = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
        pos += 6;
    } else {
        return invalid;
    }
    if (pos != s.size()) return invalid;
    // Nanoseconds since 1970 in 64 bits reach from 1677 to 2262: beyond them is an error, never
    // a wrapped value.
    std::int64_t seconds =
        std::int64_t{std::chrono::sys_days{ymd}.time_since_epoch().count()} * 86400 + hour * 3600 +
        minute * 60 + second - offset_seconds;
    std::int64_t since_epoch = 0;
    if (seconds < 0 && nanos > 0) { // borrow a second: the earliest times need it to fit
        seconds += 1;
        nanos -= 1'000'000'000;
    }
    if (__builtin_mul_overflow(seconds, std::int64_t{1'000'000'000}, &since_epoch) ||
        __builtin_add_overflow(since_epoch, nanos, &since_epoch))
        return boost::system::errc::make_error_code(boost::system::errc::value_too_large);
    return time_point{std::chrono::nanoseconds{since_epoch}};
}

namespace {
rfc3339_text format_impl(time_point t, bool with_fraction) {
    // Split into whole seconds and a fraction on the counts: floor<seconds> would convert the
    // earliest instants back to nanoseconds, which overflows.
    std::int64_t whole = t.time_since_epoch().count() / 1'000'000'000;
    std::int64_t nanos = t.time_since_epoch().count() % 1'000'000'000;
    if (nanos < 0) {
        whole -= 1;
        nanos += 1'000'000'000;
    }
    const std::chrono::sys_seconds secs{std::chrono::seconds{whole}};
    const auto days = std::chrono::floor<std::chrono::days>(secs);
    const std::chrono::year_month_day ymd{days};
    const std::chrono::hh_mm_ss hms{secs - days};
    // Written in place: a status carries several of these per pass.
    rfc3339_text out;
    char* buf = out.chars;
    constexpr std::size_t buf_size = sizeof out.chars;
    int n = std::snprintf(buf, buf_size, "%04d-%02u-%02uT%02d:%02d:%02d",
                          static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                          static_cast<unsigned>(ymd.day()), static_cast<int>(hms.hours().count()),
                          static_cast<int>(hms.minutes().count()),
                          static_cast<int>(hms.seconds().count()));
    if (with_fraction && nanos != 0) {
        n += std::snprintf(buf + n, buf_size - static_cast<std::size_t>(n), ".%09lld",
                           static_cast<long long>(nanos));
        while (buf[n - 1] == '0')
            --n;
    }
    buf[n++] = 'Z';
    out.size = static_cast<std::size_t>(n);
    return out;
}
} // namespace

rfc3339_text rfc3339(time_point t) {
    return format_impl(t, false);
}

std::string format_rfc3339(time_point t) {
    return std::string(rfc3339(t).view());
}

std::string format_rfc3339_nano(time_point t) {
    return std::string(format_impl(t, true).view());
}

std::string format_micro_time(time_point t) {
    const auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count() %
        1000000;
    std::string s = format_rfc3339(std::chrono::floor<std::chrono::seconds>(t));
    char fraction[16];
    std::snprintf(fraction, sizeof fraction, ".%06lld", static_cast<long long>(micros));
    s.insert(s.size() - 1, fraction); // before the trailing Z
    return s;
}

namespace {
constexpr auto decision_margin = std::chrono::hours(24 * 365);
constexpr time_point first_decidable = time_point::min() + decision_margin;
constexpr time_point last_decidable = time_point::max() - decision_margin;
} // namespace

bool decidable(time_point t) {
    return t >= first_decidable && t <= last_decidable;
}

std::string decidable_span() {
    return format_rfc3339(first_decidable) + " to " + format_rfc3339(last_decidable);
}

time_point wall_now() {
    return std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now());
}

} // namespace hpaplus::core
