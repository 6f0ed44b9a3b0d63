// cli/replay_command.cpp — `hpaplus replay`: reads the autoscaler and its variants and the load
// (a metrics file or Prometheus), replays each variant (policy::replay), prints the summaries and
// writes the report, the summary JSON and, on request, every decision as an evaluate snapshot.
#include "cli/replay_command.hpp"

#include "cli/evaluate/decision_json.hpp"
#include "cli/flags.hpp"
#include "cli/read_input.hpp"
#include "cli/recommend/usage_history.hpp"
#include "cli/replay/prometheus_load.hpp"
#include "cli/replay/recording.hpp"
#include "cli/replay/report.hpp"
#include "cli/replay/requests.hpp"
#include "core/duration.hpp"
#include "core/time.hpp"
#include "kinds/evaluate_input.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace hpaplus::cli {
namespace {

constexpr const char* command = "hpaplus replay";

constexpr const char* replay_usage =
    "Usage: hpaplus replay --autoscaler FILE [--variant FILE]...\n"
    "                      (--metrics FILE | --prometheus URL --from RFC3339 --to RFC3339 "
    "[--step D])\n"
    "                      [--vertical FILE [--vertical-step D]]\n"
    "                      [--report FILE.html|FILE.svg] [--summary-json FILE]\n"
    "       hpaplus replay --vertical FILE [--vertical-step D] [--report FILE.html] "
    "[--summary-json FILE]\n"
    "\n"
    "Replays the decision core over recorded load: the autoscaler (an HPAPlus or an "
    "autoscaling/v2\n"
    "HorizontalPodAutoscaler, YAML or JSON) and each variant decide once per syncPeriodSeconds, "
    "on\n"
    "a workload whose pods come and go as they decide. Resource, ContainerResource and Pods "
    "series\n"
    "are the workload's total usage, spread over the pods that are ready (new pods become ready\n"
    "after --readiness-delay); Object and External series are the metric as it was. Prints one\n"
    "line per variant: rescales, scale-ups, scale-downs, the largest replica count, the cost\n"
    "(replica-seconds) and the risk (seconds any metric was above its target). Deterministic: the\n"
    "same input gives the same output. With --vertical (recorded usage per container, as\n"
    "`hpaplus recommend` reads it) it also replays the VPAPlus recommender over that usage and\n"
    "shows what the requests would have cost against the requests the pods had. See\n"
    "docs/replay.md.\n"
    "\n"
    "Exit codes: 0 replayed, 1 Prometheus could not be read, 2 bad usage or bad input.\n";

bool write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return static_cast<bool>(out);
}

std::optional<std::string> time_flag(std::string_view value, core::time_point& field) {
    const auto t = core::parse_rfc3339(value);
    if (!t) return "\"" + std::string(value) + "\" is not an RFC 3339 time";
    field = *t;
    return std::nullopt;
}

std::optional<std::string> resources_flag(std::string_view value, core::resource_list& field) {
    field.clear();
    while (!value.empty()) {
        const auto comma = value.find(',');
        const std::string_view item = value.substr(0, comma);
        value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
        const auto eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0)
            return "want NAME=QUANTITY[,NAME=QUANTITY...] such as cpu=500m,memory=256Mi";
        const auto q = core::quantity::parse(item.substr(eq + 1));
        if (!q) return "\"" + std::string(item.substr(eq + 1)) + "\" is not a quantity";
        field.emplace_back(std::string(item.substr(0, eq)), *q);
    }
    return std::nullopt;
}

struct replay_flags {
    std::string autoscaler;
    std::vector<std::string> variants;
    std::string metrics;
    prometheus_range prometheus;
    std::string report;
    std::string summary_json;
    std::string snapshots;
    std::string vertical;
    std::chrono::seconds vertical_step{3600};
    std::chrono::seconds readiness_delay{30};
    int initial_replicas = 1;
    core::resource_list requests;
    core::resource_list limits;
};

core::outcome<replay_autoscaler> read_autoscaler(const std::string& path) {
    auto text = read_input(path);
    if (!text) return core::error_message(path + ": " + text.error().text);
    auto a = decode_replay_autoscaler(*text);
    if (!a) return core::error_message(path + ": " + a.error().text);
    return a;
}

// Series that no variant can use are mistakes; metrics without a series fail at every step.
std::optional<std::string> check_series(const policy::recorded_load& load,
                                        const std::vector<replay_autoscaler>& autoscalers) {
    std::size_t most = 0;
    for (const auto& a : autoscalers)
        most = std::max(most, a.hpa.spec.metrics.size());
    for (const auto& [index, values] : load.series)
        if (index >= most)
            return "series \"" + std::to_string(index) + "\": no autoscaler has spec.metrics[" +
                   std::to_string(index) + "]";
    for (const auto& a : autoscalers) {
        for (std::size_t i = 0; i < a.hpa.spec.metrics.size(); ++i) {
            if (a.hpa.spec.metrics[i].type == policy::metric_source_type::formula) continue;
            if (!load.series.count(i))
                std::fprintf(stderr,
                             "%s: note: %s: spec.metrics[%zu] has no series; it fails at every "
                             "step\n",
                             command, a.hpa.name.c_str(), i);
        }
    }
    return std::nullopt;
}

} // namespace

int run_replay(int argc, char** argv) {
    replay_flags f;
    std::string step_text = "15s";
    flag_table flags(command);
    flags.text("autoscaler",
               "the autoscaler to replay (HPAPlus or autoscaling/v2 HPA, YAML or JSON)",
               f.autoscaler, false);
    flags.custom("variant", "another version of it to replay over the same load (repeatable)", "",
                 [&](std::string_view v) -> std::optional<std::string> {
                     f.variants.emplace_back(v);
                     return std::nullopt;
                 });
    flags.section("The load (one of)");
    flags.text("metrics", "the recorded load as JSON (docs/replay.md)", f.metrics, false);
    flags.text("prometheus", "read the load from this Prometheus (base URL) instead",
               f.prometheus.url, false);
    flags.custom("from", "--prometheus: the first instant (RFC 3339)", "",
                 [&](std::string_view v) { return time_flag(v, f.prometheus.from); });
    flags.custom("to", "--prometheus: the last instant (RFC 3339)", "",
                 [&](std::string_view v) { return time_flag(v, f.prometheus.to); });
    flags.duration("step", "--prometheus: the resolution of the series", f.prometheus.step,
                   std::chrono::seconds(1));
    flags.duration("rate-window",
                   "--prometheus: the range of rate() and of {{window}} (0: four steps, at least "
                   "1m)",
                   f.prometheus.rate_window, std::chrono::seconds(0));
    flags.integer("initial-replicas",
                  "--prometheus: replicas at the start (a metrics file says its own)",
                  f.initial_replicas, 0, 100000);
    flags.custom("pod-requests",
                 "--prometheus: each pod's requests, e.g. cpu=500m,memory=256Mi (a metrics file "
                 "says its own)",
                 "", [&](std::string_view v) { return resources_flag(v, f.requests); });
    flags.custom("pod-limits", "--prometheus: each pod's limits, as --pod-requests", "",
                 [&](std::string_view v) { return resources_flag(v, f.limits); });
    flags.section("Requests (VPAPlus)");
    flags.text("vertical",
               "recorded usage per container (the input of `hpaplus recommend`): replay the "
               "VPAPlus recommender over it and compare the requests",
               f.vertical, false);
    flags.duration("vertical-step", "how often the replayed recommendation is taken",
                   f.vertical_step, std::chrono::seconds(60));
    flags.section("The workload and the output");
    flags.duration("readiness-delay", "how long a new pod takes to become Ready and take load",
                   f.readiness_delay, std::chrono::seconds(0));
    flags.text("report", "write a chart of load, targets and replicas (.html or .svg)", f.report,
               false);
    flags.text("summary-json", "write the summaries as JSON", f.summary_json, false);
    flags.text("snapshots",
               "write every decision into this directory as an evaluate input "
               "(vN-STEP.input.json) and the decision replay took (vN-STEP.decision.json)",
               f.snapshots, false);

    const auto help = flags.parse(std::vector<std::string>(argv, argv + argc));
    if (!help) return usage_error(command, help.error().text);
    if (*help) {
        std::printf("%s\nFlags:\n%s", replay_usage, flags.help().c_str());
        return 0;
    }
    if (!f.report.empty() && !f.report.ends_with(".html") && !f.report.ends_with(".svg"))
        return usage_error(command, "--report must end in .html or .svg");
    std::optional<requests_replay> requests;
    if (!f.vertical.empty()) {
        auto text = read_input(f.vertical);
        if (!text) return usage_error(command, f.vertical + ": " + text.error().text);
        auto history = decode_recorded_history(*text, false);
        if (!history) return usage_error(command, f.vertical + ": " + history.error().text);
        requests = replay_requests(*history, f.vertical_step);
    }
    if (f.autoscaler.empty() && requests) {
        if (f.report.ends_with(".svg"))
            return usage_error(command, "--vertical alone: the report is HTML only");
        const std::string table = requests_table(*requests);
        std::fwrite(table.data(), 1, table.size(), stdout);
        if (!f.summary_json.empty() && !write_file(f.summary_json, summary_json({}, &*requests)))
            return usage_error(command, "--summary-json: cannot write " + f.summary_json);
        if (!f.report.empty() &&
            !write_file(f.report, render_replay_html(policy::recorded_load{}, {}, &*requests)))
            return usage_error(command, "--report: cannot write " + f.report);
        return 0;
    }
    if (f.autoscaler.empty())
        return usage_error(command, "--autoscaler is required (or --vertical alone)");
    const bool from_file = !f.metrics.empty();
    const bool from_prometheus = !f.prometheus.url.empty();
    if (from_file == from_prometheus)
        return usage_error(command, "give the load with --metrics FILE or with --prometheus URL");
    if (from_prometheus && (!flags.given("from") || !flags.given("to")))
        return usage_error(command, "--prometheus needs --from and --to");
    if (from_prometheus && f.prometheus.to <= f.prometheus.from)
        return usage_error(command, "--to must be after --from");
    if (from_prometheus && f.prometheus.to - f.prometheus.from > max_recording)
        return usage_error(command, "--from to --to is longer than 35 days");
    if (from_prometheus &&
        (!core::decidable(f.prometheus.from) || !core::decidable(f.prometheus.to)))
        return usage_error(command, "--from and --to must lie within the times a decision can be "
                                    "taken at (" +
                                        core::decidable_span() + ")");

    std::vector<replay_autoscaler> autoscalers;
    for (const std::string& path : [&] {
             std::vector<std::string> all{f.autoscaler};
             all.insert(all.end(), f.variants.begin(), f.variants.end());
             return all;
         }()) {
        auto a = read_autoscaler(path);
        if (!a) return usage_error(command, a.error().text);
        autoscalers.push_back(std::move(*a));
    }

    policy::recorded_load load;
    if (from_file) {
        auto text = read_input(f.metrics);
        if (!text) return usage_error(command, f.metrics + ": " + text.error().text);
        auto decoded = decode_recording(*text);
        if (!decoded) return usage_error(command, f.metrics + ": " + decoded.error().text);
        load = std::move(*decoded);
        if (flags.given("initial-replicas")) load.initial_replicas = f.initial_replicas;
        if (flags.given("pod-requests")) load.requests = f.requests;
        if (flags.given("pod-limits")) load.limits = f.limits;
    } else {
        load.initial_replicas = f.initial_replicas;
        load.requests = f.requests;
        load.limits = f.limits;
        auto read = load_from_prometheus(autoscalers.front().hpa, f.prometheus, load);
        if (!read) {
            std::fprintf(stderr, "%s: --prometheus: %s\n", command, read.error().text.c_str());
            return 1;
        }
    }
    load.readiness_delay = f.readiness_delay;
    if (auto problem = check_series(load, autoscalers)) return usage_error(command, *problem);
    if (!f.snapshots.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(f.snapshots, ec);
        if (ec) return usage_error(command, "--snapshots: " + ec.message());
    }

    std::vector<replayed_variant> variants;
    bool snapshots_written = true;
    for (std::size_t v = 0; v < autoscalers.size(); ++v) {
        const replay_autoscaler& a = autoscalers[v];
        policy::replay_observer observe;
        if (!f.snapshots.empty()) {
            observe = [&, v](std::size_t step, const policy::reconcile_input& in,
                             const policy::decision& d) {
                char name[64];
                std::snprintf(name, sizeof name, "/v%zu-%05zu", v, step);
                const std::string base = f.snapshots + name;
                snapshots_written &=
                    write_file(base + ".input.json", kinds::encode_evaluate_input(in, a.json));
                snapshots_written &= write_file(base + ".decision.json", encode_decision(d));
            };
        }
        variants.push_back({a.hpa, policy::replay(a.hpa, load, a.config, observe)});
    }
    if (!snapshots_written)
        return usage_error(command, "--snapshots: cannot write into " + f.snapshots);

    std::string table = summary_table(variants);
    if (requests) table += requests_table(*requests);
    std::fwrite(table.data(), 1, table.size(), stdout);
    const requests_replay* vertical = requests ? &*requests : nullptr;
    if (!f.summary_json.empty() && !write_file(f.summary_json, summary_json(variants, vertical)))
        return usage_error(command, "--summary-json: cannot write " + f.summary_json);
    if (!f.report.empty()) {
        const std::string report = f.report.ends_with(".svg")
                                       ? render_replay_svg(load, variants)
                                       : render_replay_html(load, variants, vertical);
        if (!write_file(f.report, report))
            return usage_error(command, "--report: cannot write " + f.report);
    }
    return 0;
}

} // namespace hpaplus::cli
