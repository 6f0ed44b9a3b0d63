// cli/demo_command.cpp — `hpaplus demo`: flags and usage; the scenario and report are demo/'s.
#include "cli/demo_command.hpp"

#include "cli/flags.hpp"
#include "demo/demo.hpp"
#include "net/listen_address.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace hpaplus::cli {
namespace {

constexpr const char* demo_usage =
    "Usage: hpaplus demo [--duration SECONDS] [--report FILE] [--summary-json FILE]\n"
    "                    [--listen ADDR:PORT] [--vertical] [--predictive]\n"
    "\n"
    "Runs HPAPlus end to end on the embedded simulated cluster: installs the CRDs, creates a\n"
    "Deployment 'web' with an HPAPlus (CPU 60 % of requests) and a CronHPA that pre-warms it\n"
    "before the load rises, plays a load that rises and falls, and runs the real controller\n"
    "against the cluster over HTTP. While it runs, kubectl works:\n"
    "  kubectl --server http://127.0.0.1:PORT get hpap,chpa,deploy,pods\n"
    "Exit codes: 0 the scenario completed, 1 runtime failure, 2 bad usage.\n"
    "\n"
    "Flags (--name=value or --name value):\n";

} // namespace

int run_demo(int argc, char** argv) {
    demo::demo_options options;
    std::string listen = options.address + ":" + std::to_string(options.port);
    flag_table flags("hpaplus demo");
    flags.integer("duration", "length of the scenario in seconds", options.duration, 30, 86400);
    flags.text("report", "chart of load and replicas: .svg for the chart alone, otherwise HTML",
               options.report);
    flags.text("summary-json", "machine-readable summary (scaleUps, scaleDowns, maxReplicas, ...)",
               options.summary_json, false);
    flags.listen("listen", "where the simulated API server listens (port 0 = any free port)",
                 listen, "127.0.0.1:8080", false);
    flags.boolean("vertical",
                  "also run the vertical module: a Deployment 'api' whose pods use more than they "
                  "request, and a VPAPlus that resizes them in place",
                  options.vertical);
    flags.boolean("predictive",
                  "also run a predictive HPAPlus: a Deployment 'shop' whose load rises for 6 s of "
                  "every 20 s, scaled ahead of each rise once two cycles are recorded",
                  options.predictive);
    const auto help = flags.parse(std::vector<std::string>(argv, argv + argc));
    if (!help) return usage_error("hpaplus demo", help.error().text);
    if (*help) {
        std::printf("%s%s", demo_usage, flags.help().c_str());
        return 0;
    }
    net::split_listen(listen, options.address, options.port); // checked by --listen
    return demo::run_demo(options);
}

} // namespace hpaplus::cli
