// cli/cron_command.cpp — `hpaplus cron next`.
#include "cli/cron_command.hpp"

#include "cli/flags.hpp"
#include "core/time.hpp"
#include "cron/next_fire.hpp"

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
    "A schedule that never fires (0 0 30 2 *) prints nothing after searching five years.\n"
    "Exit codes: 0 ok, 2 bad usage or an invalid expression (the message names the field).\n";

} // namespace

int run_cron(int argc, char** argv) {
    std::string expression;
    std::string zone_name = "UTC";
    std::optional<cron::instant> from;
    int count = 1;
    flag_table flags("hpaplus cron next");
    flags.text("schedule", "the cron expression (quote it)", expression, false);
    flags.text("time-zone", "an IANA time zone such as Europe/London", zone_name);
    flags.custom(
        "from", "start after this RFC 3339 time", "now",
        [&from](std::string_view value) -> std::optional<std::string> {
            const auto t = core::parse_rfc3339(value);
            if (!t && t.error() == boost::system::errc::value_too_large)
                return "\"" + std::string(value) +
                       "\" is outside the times HPAPlus handles (1677-09-21 to 2262-04-11)";
            if (!t) return "\"" + std::string(value) + "\" is not an RFC 3339 time";
            from = std::chrono::floor<std::chrono::seconds>(*t);
            return std::nullopt;
        });
    flags.integer("count", "how many fire times", count, 1, 10000);
    const std::string_view verb = argc >= 2 ? argv[1] : "";
    const bool asks_help = verb == "--help" || verb == "-h";
    if (!asks_help && verb != "next") {
        std::fputs(cron_usage, stderr);
        return 2;
    }
    // argv[1] is "next": the flags follow it.
    const auto help = asks_help ? core::outcome<bool>(true)
                                : flags.parse(std::vector<std::string>(argv + 1, argv + argc));
    if (!help) return usage_error("hpaplus cron next", help.error().text);
    if (*help) {
        std::printf("%s\nFlags:\n%s", cron_usage, flags.help().c_str());
        return 0;
    }
    if (!flags.given("schedule")) return usage_error("hpaplus cron next", "--schedule is required");
    const auto schedule = cron::parse_schedule(expression);
    if (!schedule) return usage_error("hpaplus cron next", "--schedule: " + schedule.error().text);
    const date::time_zone* zone = cron::find_zone(zone_name);
    if (!zone)
        return usage_error(
            "hpaplus cron next",
            "--time-zone: \"" + zone_name +
                "\" is not a time zone of the system's tz database (e.g. Europe/London)");
    const cron::instant start =
        from.value_or(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
    for (const auto& t : cron::next_fires(*schedule, *zone, start, static_cast<std::size_t>(count)))
        std::printf("%s\n", cron::format_in_zone(t, *zone).c_str());
    return 0;
}

} // namespace hpaplus::cli
