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

} // namespace hpaplus::core
