// cron/exclusions.cpp — excluded calendar dates.
#include "cron/exclusions.hpp"

#include <date/tz.h>

#include <algorithm>
#include <cctype>

namespace hpaplus::cron {
namespace {

date::year_month_day to_ymd(const civil_date& d) {
    return date::year(d.year) / date::month(d.month) / date::day(d.day);
}

bool pattern_matches(const schedule& s, const civil_date& day) {
    const date::year_month_day ymd = to_ymd(day);
    if (!s.months[day.month]) return false;
    const bool dom = s.days_of_month[day.day];
    const bool dow = s.days_of_week[date::weekday(date::sys_days(ymd)).c_encoding()];
    if (s.day_of_month_restricted && s.day_of_week_restricted) return dom || dow;
    return dom && dow;
}

bool digits(std::string_view text) {
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(c) != 0; });
}

} // namespace

std::optional<civil_date> parse_civil_date(std::string_view text) {
    if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
    const auto year = text.substr(0, 4), month = text.substr(5, 2), day = text.substr(8, 2);
    if (!digits(year) || !digits(month) || !digits(day)) return std::nullopt;
    const civil_date d{std::stoi(std::string(year)),
                       static_cast<unsigned>(std::stoi(std::string(month))),
                       static_cast<unsigned>(std::stoi(std::string(day)))};
    if (!to_ymd(d).ok()) return std::nullopt;
    return d;
}

civil_date date_in_zone(instant t, const date::time_zone& zone) {
    const auto local = zone.to_local(t);
    const date::year_month_day ymd(std::chrono::floor<date::days>(local));
    return {static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
            static_cast<unsigned>(ymd.day())};
}

exclusions parse_exclusions(const std::vector<std::string>& entries,
                            std::vector<exclusion_error>& errors) {
    exclusions out;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::string& entry = entries[i];
        if (!entry.empty() && std::isdigit(static_cast<unsigned char>(entry.front())) &&
            entry.find(' ') == std::string::npos) {
            if (auto d = parse_civil_date(entry)) {
                out.dates.push_back(*d);
            } else {
                errors.push_back({i, "\"" + entry + "\" is not a date YYYY-MM-DD"});
            }
            continue;
        }
        auto parsed = parse_schedule(entry);
        if (!parsed) {
            errors.push_back({i, "\"" + entry + "\": " + parsed.error().text});
        } else if (parsed->every) {
            errors.push_back({i, "\"" + entry + "\": @every names no dates"});
        } else {
            out.patterns.push_back(*parsed);
        }
    }
    return out;
}

bool excluded(const exclusions& e, const civil_date& day) {
    if (std::find(e.dates.begin(), e.dates.end(), day) != e.dates.end()) return true;
    return std::any_of(e.patterns.begin(), e.patterns.end(),
                       [&](const schedule& s) { return pattern_matches(s, day); });
}

} // namespace hpaplus::cron
