// cron/schedule.cpp — the cron expression parser.
#include "cron/schedule.hpp"

#include "core/duration.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <string>
#include <vector>

namespace hpaplus::cron {
namespace {

using core::error_message;

struct field_spec {
    const char* name;
    int min;
    int max;
    const char* const* names; ///< names for min, min+1, ... (nullptr: none)
    int name_count;
    bool day_field;
};

constexpr const char* month_names[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                       "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr const char* day_names[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

constexpr std::array<field_spec, 6> fields = {{
    {"second", 0, 59, nullptr, 0, false},
    {"minute", 0, 59, nullptr, 0, false},
    {"hour", 0, 23, nullptr, 0, false},
    {"day-of-month", 1, 31, nullptr, 0, true},
    {"month", 1, 12, month_names, 12, false},
    {"day-of-week", 0, 7, day_names, 7, true}, // 7 = Sunday as well
}};

std::vector<std::string_view> split(std::string_view s, char by) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= s.size(); ++i) {
        if (i == s.size() || s[i] == by) {
            out.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    }
    return out;
}

std::string upper(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

core::outcome<int> value_of(const field_spec& f, std::string_view text) {
    const std::string where = std::string(f.name) + ": ";
    if (text.empty()) return error_message(where + "a value is missing");
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc{} && end == text.data() + text.size()) {
        if (v < f.min || v > f.max)
            return error_message(where + std::string(text) + " is out of range " +
                                 std::to_string(f.min) + "-" + std::to_string(f.max));
        return v;
    }
    if (f.names) {
        const std::string name = upper(text);
        for (int i = 0; i < f.name_count; ++i)
            if (name == f.names[i]) return f.min + i;
    }
    return error_message(where + "\"" + std::string(text) + "\" is not a number" +
                         (f.names ? " or a name" : ""));
}

// One comma-separated item: `*`, `?`, `a`, `a-b`, each optionally `/step`.
core::outcome<std::bitset<64>> parse_item(const field_spec& f, std::string_view item) {
    const std::string where = std::string(f.name) + ": ";
    std::string_view range = item;
    int step = 1;
    bool stepped = false;
    if (const auto slash = item.find('/'); slash != std::string_view::npos) {
        range = item.substr(0, slash);
        const std::string_view s = item.substr(slash + 1);
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), step);
        if (ec != std::errc{} || end != s.data() + s.size() || step < 1)
            return error_message(where + "bad step \"" + std::string(s) + "\"");
        stepped = true;
    }
    int low = f.min;
    int high = f.max;
    if (range == "*" || range == "?") {
        if (range == "?" && !f.day_field)
            return error_message(where + "? is only allowed in the day fields");
    } else if (const auto dash = range.find('-'); dash != std::string_view::npos) {
        auto a = value_of(f, range.substr(0, dash));
        if (!a) return a.error();
        auto b = value_of(f, range.substr(dash + 1));
        if (!b) return b.error();
        low = *a;
        high = *b;
        if (low > high)
            return error_message(where + "range " + std::string(range) + " runs backwards");
    } else {
        auto a = value_of(f, range);
        if (!a) return a.error();
        low = *a;
        high = stepped ? f.max : *a; // `a/n` means a-max/n
    }
    std::bitset<64> bits;
    for (int v = low; v <= high; v += step)
        bits.set(static_cast<std::size_t>(v));
    return bits;
}

core::outcome<std::bitset<64>> parse_field(const field_spec& f, std::string_view text) {
    std::bitset<64> bits;
    for (std::string_view item : split(text, ',')) {
        auto b = parse_item(f, item);
        if (!b) return b.error();
        bits |= *b;
    }
    return bits;
}

template <std::size_t N> std::bitset<N> narrow(const std::bitset<64>& wide) {
    std::bitset<N> out;
    for (std::size_t i = 0; i < N; ++i)
        out[i] = wide[i];
    return out;
}

std::string_view descriptor(std::string_view name) {
    if (name == "@yearly" || name == "@annually") return "0 0 0 1 1 *";
    if (name == "@monthly") return "0 0 0 1 * *";
    if (name == "@weekly") return "0 0 0 * * 0";
    if (name == "@daily" || name == "@midnight") return "0 0 0 * * *";
    if (name == "@hourly") return "0 0 * * * *";
    return {};
}

} // namespace

core::outcome<schedule> parse_schedule(std::string_view expression) {
    std::vector<std::string_view> parts;
    for (std::string_view token : split(expression, ' '))
        for (std::string_view t : split(token, '\t'))
            if (!t.empty()) parts.push_back(t);
    if (parts.empty()) return error_message("the schedule is empty");

    if (parts.front().front() == '@') {
        if (parts.front() == "@every") {
            if (parts.size() != 2)
                return error_message("@every: expected one duration such as 90s");
            const auto d = core::parse_go_duration(parts[1]);
            if (!d || d->count() <= 0)
                return error_message("@every: \"" + std::string(parts[1]) +
                                     "\" is not a positive duration such as 90s or 1h30m");
            if (*d < std::chrono::seconds(1))
                return error_message("@every: the interval must be at least 1s");
            schedule s;
            s.every = *d;
            return s;
        }
        const std::string_view fields6 = descriptor(parts.front());
        if (fields6.empty() || parts.size() != 1)
            return error_message("unknown descriptor \"" + std::string(parts.front()) +
                                 "\" (use @yearly, @monthly, @weekly, @daily, @hourly or @every)");
        return parse_schedule(fields6);
    }
    if (parts.size() == 5) parts.insert(parts.begin(), "0");
    if (parts.size() != 6)
        return error_message("expected 5 fields (minute hour day-of-month month day-of-week) or 6 "
                             "(with seconds first), got " +
                             std::to_string(parts.size()));
    std::array<std::bitset<64>, 6> bits;
    for (std::size_t i = 0; i < 6; ++i) {
        auto b = parse_field(fields[i], parts[i]);
        if (!b) return b.error();
        bits[i] = *b;
    }
    schedule s;
    s.seconds = narrow<60>(bits[0]);
    s.minutes = narrow<60>(bits[1]);
    s.hours = narrow<24>(bits[2]);
    s.days_of_month = narrow<32>(bits[3]);
    s.months = narrow<13>(bits[4]);
    if (bits[5][7]) bits[5].set(0); // 7 is Sunday too
    s.days_of_week = narrow<7>(bits[5]);
    s.day_of_month_restricted = parts[3].front() != '*' && parts[3].front() != '?';
    s.day_of_week_restricted = parts[5].front() != '*' && parts[5].front() != '?';
    return s;
}

} // namespace hpaplus::cron
