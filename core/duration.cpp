// core/duration.cpp — Go duration parsing.
#include "core/duration.hpp"

#include <boost/system/errc.hpp>

#include <cstdint>
#include <limits>

namespace hpaplus::core {
namespace {

std::int64_t unit_nanos(std::string_view unit) {
    if (unit == "ns") return 1;
    if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1000;
    if (unit == "ms") return 1000000;
    if (unit == "s") return 1000000000;
    if (unit == "m") return 60LL * 1000000000;
    if (unit == "h") return 3600LL * 1000000000;
    return 0;
}

} // namespace

boost::system::result<std::chrono::nanoseconds> parse_go_duration(std::string_view text) {
    const auto invalid =
        boost::system::errc::make_error_code(boost::system::errc::invalid_argument);
    std::string_view s = text;
    bool negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s == "0") return std::chrono::nanoseconds{0};
    if (s.empty()) return invalid;
    __extension__ using wide = __int128;
    wide total = 0;
    while (!s.empty()) {
        wide whole = 0;
        wide frac = 0;
        wide frac_scale = 1;
        bool digits = false;
        while (!s.empty() && s[0] >= '0' && s[0] <= '9') {
            whole = whole * 10 + (s[0] - '0');
            if (whole > std::numeric_limits<std::int64_t>::max()) return invalid;
            digits = true;
            s.remove_prefix(1);
        }
        if (!s.empty() && s[0] == '.') {
            s.remove_prefix(1);
            while (!s.empty() && s[0] >= '0' && s[0] <= '9') {
                if (frac_scale < 1000000000000000000LL) {
                    frac = frac * 10 + (s[0] - '0');
                    frac_scale *= 10;
                }
                digits = true;
                s.remove_prefix(1);
            }
        }
        if (!digits) return invalid;
        std::size_t unit_len = 0;
        while (unit_len < s.size() && s[unit_len] != '.' &&
               (s[unit_len] < '0' || s[unit_len] > '9'))
            ++unit_len;
        const std::int64_t unit = unit_nanos(s.substr(0, unit_len));
        if (unit == 0) return invalid;
        s.remove_prefix(unit_len);
        total += whole * unit + frac * unit / frac_scale;
        if (total > std::numeric_limits<std::int64_t>::max()) return invalid;
    }
    const auto value = static_cast<std::int64_t>(total);
    return std::chrono::nanoseconds{negative ? -value : value};
}

namespace {
// `whole.fraction` with the fraction's trailing zeros dropped; `digits` fractional digits.
std::string decimal(std::uint64_t value, int digits) {
    std::uint64_t scale = 1;
    for (int i = 0; i < digits; ++i)
        scale *= 10;
    std::string out = std::to_string(value / scale);
    std::string frac = std::to_string(value % scale);
    frac.insert(0, static_cast<std::size_t>(digits) - frac.size(), '0');
    frac.erase(frac.find_last_not_of('0') + 1);
    if (!frac.empty()) out += "." + frac;
    return out;
}
} // namespace

std::string format_go_duration(std::chrono::nanoseconds d) {
    const bool negative = d.count() < 0;
    // Two's-complement negation in unsigned arithmetic keeps INT64_MIN exact.
    std::uint64_t n = negative ? 0 - static_cast<std::uint64_t>(d.count())
                               : static_cast<std::uint64_t>(d.count());
    std::string out;
    if (n == 0) return "0s";
    if (n < 1000)
        out = std::to_string(n) + "ns";
    else if (n < 1000000)
        out = decimal(n, 3) + "us";
    else if (n < 1000000000)
        out = decimal(n, 6) + "ms";
    else {
        const std::uint64_t hours = n / 3600000000000ULL;
        n %= 3600000000000ULL;
        const std::uint64_t minutes = n / 60000000000ULL;
        n %= 60000000000ULL;
        if (hours) out += std::to_string(hours) + "h";
        if (hours || minutes) out += std::to_string(minutes) + "m";
        out += decimal(n, 9) + "s";
    }
    return negative ? "-" + out : out;
}

} // namespace hpaplus::core
