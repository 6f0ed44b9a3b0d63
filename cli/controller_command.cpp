// cli/controller_command.cpp — flags, configuration, signals, exit codes.
#include "cli/controller_command.hpp"

#include "cli/controller_flags.hpp"
#include "cli/flags.hpp"
#include "cli/log_flags.hpp"
#include "controller/runtime/lifecycle.hpp"
#include "controller/runtime/process.hpp"

#include <boost/asio/io_context.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <vector>

namespace hpaplus::cli {
namespace {

constexpr const char* controller_usage =
    "Usage: hpaplus controller [FLAGS]\n"
    "\n"
    "Runs the HPAPlus controller: one worker coroutine per HPAPlus object, each on its own\n"
    "syncPeriodSeconds. Needs the CRD (kubectl apply -f crds/hpaplus.yaml) and RBAC from deploy/.\n"
    "Stops gracefully on SIGTERM or SIGINT. Exit codes: 0 stopped, 1 runtime failure, 2 bad "
    "flags.\n"
    "\n"
    "Flags (--name=value or --name value):\n";

} // namespace

int run_controller(int argc, char** argv) {
    const std::vector<std::string> args(argv, argv + argc);
    bool help = false;
    auto options = parse_controller_flags(args, help);
    if (help) {
        std::printf("%s%s", controller_usage, controller_flags_help().c_str());
        return 0;
    }
    if (!options) return usage_error("hpaplus controller", options.error().text);
    auto config = options->context.empty() || options->kubeconfig.empty()
                      ? kube::load_config(options->kubeconfig, controller::environment())
                      : kube::load_kubeconfig(options->kubeconfig, options->context);
    if (!config) {
        std::fprintf(stderr, "hpaplus controller: %s\n", config.error().text.c_str());
        return 2;
    }
    if (!start_logging("hpaplus controller", options->log_level, options->log_format)) return 2;
    try {
        boost::asio::io_context io(1);
        controller::controller_process process(io, std::move(*config), std::move(*options));
        int exit_code = 0;
        controller::stop_signal signals(io, [&] { process.shutdown(); });
        process.start([&](int code) {
            exit_code = code;
            signals.cancel();
            io.stop();
        });
        if (!process.ops_url().empty())
            spdlog::info("serving /healthz, /readyz and /metrics on {}", process.ops_url());
        io.run();
        return exit_code;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hpaplus controller: %s\n", e.what());
        return 1;
    }
}

} // namespace hpaplus::cli
