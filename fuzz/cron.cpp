// CronHPA schedules and exclusions: the first line is a schedule, each further line an exclusion
// entry. Parsing never crashes; a schedule's next fire times come in order, after the start, in a
// bounded walk; exclusion checks work on any parsed set.
#include "cron/exclusions.hpp"
#include "cron/next_fire.hpp"
#include "cron/schedule.hpp"
#include "fuzz/fuzz.hpp"

#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hpaplus::cron;
    const std::string_view input = hpaplus::fuzz::text(data, size);
    std::vector<std::string> lines;
    for (std::size_t start = 0; start <= input.size();) {
        const std::size_t end = std::min(input.find('\n', start), input.size());
        lines.emplace_back(input.substr(start, end - start));
        start = end + 1;
    }
    static const date::time_zone* zone = find_zone("Europe/London");
    const instant from{std::chrono::sys_days{std::chrono::year{2026} / 3 / 29}};
    if (const auto s = parse_schedule(lines.front())) {
        instant previous = from;
        for (const instant t : next_fires(*s, *zone, from, 3)) {
            hpaplus::fuzz::require(t > previous, "fire times increase");
            previous = t;
        }
        if (const auto last = last_fire(*s, *zone, from - std::chrono::days(40), from))
            hpaplus::fuzz::require(*last <= from, "the last fire time is not after `until`");
        (void)format_in_zone(previous, *zone);
    }
    std::vector<exclusion_error> errors;
    const exclusions e =
        parse_exclusions(std::vector<std::string>(lines.begin() + 1, lines.end()), errors);
    (void)excluded(e, date_in_zone(from, *zone));
    return 0;
}
