// cli/cron_command.cpp — `hpaplus cron next`.
#include "cli/cron_command.hpp"

#include "core/time.hpp"
#include "cron/next_fire.hpp"

#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>

namespace hpaplus::cli {
namespace {

constexpr const char* cron_usage =
    "Usage: hpaplus cron next --schedule EXPR [--time-zone IANA] [--from RFC3339] [--count N]\n"
    "\n"
    "Prints the next N fire times of EXPR strictly after --from (default: now), one RFC 3339\n"
    "timestamp with the zone's offset per line. EXPR has 5 fields (minute hour day-of-month month\n"
    "day-of-week) or 6 (seconds first), or is @yearly, @monthly, @weekly, @daily, @hourly or\n"
    "@every DURATION. Fields are matched on the zone's wall clock: a time skipped by a DST gap\n"
    "fires once right after the gap; a time repeated by a DST overlap fires once, the first time.\n"
    "\n"
    "  --schedule EXPR    the cron expression (quote it)\n"
    "  --time-zone IANA   e.g. Europe/London (default UTC)\n"
    "  --from RFC3339     start after this time (default: now)\n"
    "  --count N          how many fire times, 1 to 10000 (default 1)\n"
    "\n"
    "A schedule that never fires (0 0 30 2 *) prints nothing after searching five years.\n"
    "Exit codes: 0 ok, 2 bad usage or an invalid expression (the message names the field).\n";

int usage_error(const std::string& message) {
    std::fprintf(stderr, "hpaplus cron next: %s\n", message.c_str());
    return 2;
}

} // namespace

int run_cron(int argc, char** argv) {
    if (argc >= 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
        std::fputs(cron_usage, stdout);
        return 0;
    }
    if (argc < 2 || std::string_view(argv[1]) != "next") {
        std::fputs(cron_usage, stderr);
        return 2;
    }
    std::string expression;
    bool have_schedule = false;
    std::string zone_name = "UTC";
    std::optional<cron::instant> from;
    long count = 1;
    for (int i = 2; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::fputs(cron_usage, stdout);
            return 0;
        }
        if (i + 1 >= argc) return usage_error(std::string(arg) + ": a value is required");
        const std::string value = argv[++i];
        if (arg == "--schedule") {
            expression = value;
            have_schedule = true;
        } else if (arg == "--time-zone") {
            zone_name = value;
        } else if (arg == "--from") {
            const auto t = core::parse_rfc3339(value);
            if (!t) return usage_error("--from: \"" + value + "\" is not an RFC 3339 time");
            from = std::chrono::floor<std::chrono::seconds>(*t);
        } else if (arg == "--count") {
            const auto [end, ec] =
                std::from_chars(value.data(), value.data() + value.size(), count);
            if (ec != std::errc{} || end != value.data() + value.size() || count < 1 ||
                count > 10000)
                return usage_error("--count: want 1 to 10000, got \"" + value + "\"");
        } else {
            return usage_error("unknown option '" + std::string(arg) +
                               "' (see 'hpaplus cron --help')");
        }
    }
    if (!have_schedule) return usage_error("--schedule is required");
    const auto schedule = cron::parse_schedule(expression);
    if (!schedule) return usage_error("--schedule: " + schedule.error().text);
    const date::time_zone* zone = cron::find_zone(zone_name);
    if (!zone)
        return usage_error(
            "--time-zone: \"" + zone_name +
            "\" is not a time zone of the system's tz database (e.g. Europe/London)");
    const cron::instant start =
        from.value_or(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
    for (const auto& t : cron::next_fires(*schedule, *zone, start, static_cast<std::size_t>(count)))
        std::printf("%s\n", cron::format_in_zone(t, *zone).c_str());
    return 0;
}

} // namespace hpaplus::cli
