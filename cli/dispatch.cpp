// cli/dispatch.cpp — subcommand dispatch.
#include "cli/dispatch.hpp"

#include "cli/adapter_command.hpp"
#include "cli/controller_command.hpp"
#include "cli/cron_command.hpp"
#include "cli/demo_command.hpp"
#include "cli/evaluate_command.hpp"
#include "cli/migrate_command.hpp"
#include "cli/recommend_command.hpp"
#include "cli/replay_command.hpp"
#include "cli/sim_command.hpp"
#include "cli/why_command.hpp"
#include "controller/runtime/logging.hpp"
#include "core/build_info.hpp"

#include <spdlog/formatter.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string_view>

namespace hpaplus::cli {
namespace {

constexpr const char* usage =
    "Usage: hpaplus COMMAND [ARGS]\n"
    "\n"
    "HPAPlus: a horizontal autoscaler for Kubernetes that gives every autoscaler its own "
    "coroutine.\n"
    "\n"
    "Commands:\n"
    "  adapter           serve external/custom metrics APIs from the metric backends (TLS)\n"
    "  controller        run the autoscaler against a cluster (see --help for its flags)\n"
    "  cron next         the next fire times of a cron schedule in a time zone\n"
    "  demo              run the whole thing on the simulated cluster and write a report\n"
    "  evaluate FILE|-   run one reconcile offline on a snapshot and print the decision (JSON,\n"
    "                    or in words with --explain)\n"
    "  migrate [FILE]... HorizontalPodAutoscalers in, equivalent HPAPlus objects out (JSON)\n"
    "  recommend FILE|-  run the VPAPlus recommender offline on recorded usage (JSON)\n"
    "  replay            replay autoscalers and variants over recorded load (what-if)\n"
    "  sim               run the simulated Kubernetes cluster (kubectl can talk to it)\n"
    "  version           print the version, the git commit and its date\n"
    "  why NS/NAME       a live object's decision explained (from the controller's ops port)\n"
    "\n"
    "Run 'hpaplus COMMAND --help' for a command's options.\n"
    "Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad input.\n";

} // namespace

int run_cli(int argc, char** argv) {
    if (argc < 2) {
        std::fputs(usage, stderr);
        return 2;
    }
    const std::string_view command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
        std::fputs(usage, stdout);
        return 0;
    }
    if (command == "version" || command == "--version") {
        std::printf("%s\n", core::version_line().c_str());
        return 0;
    }
    // Every command's log lines escape what users wrote (the controller's and the demo's logger
    // take the same formatter in configure_logging).
    spdlog::set_formatter(controller::log_formatter());
    if (command == "adapter") return run_adapter(argc - 1, argv + 1);
    if (command == "controller") return run_controller(argc - 1, argv + 1);
    if (command == "cron") return run_cron(argc - 1, argv + 1);
    if (command == "demo") return run_demo(argc - 1, argv + 1);
    if (command == "evaluate") return run_evaluate(argc - 1, argv + 1);
    if (command == "migrate") return run_migrate(argc - 1, argv + 1);
    if (command == "recommend") return run_recommend(argc - 1, argv + 1);
    if (command == "replay") return run_replay(argc - 1, argv + 1);
    if (command == "sim") return run_sim(argc - 1, argv + 1);
    if (command == "why") return run_why(argc - 1, argv + 1);
    std::fprintf(stderr, "hpaplus: unknown command '%.*s' (see 'hpaplus --help')\n",
                 static_cast<int>(command.size()), command.data());
    return 2;
}

} // namespace hpaplus::cli
