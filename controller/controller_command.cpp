// controller/controller_command.cpp — flags, configuration, signals, exit codes.
#include "controller/controller_command.hpp"

#include "controller/controller_process.hpp"
#include "controller/options.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <vector>

extern char** environ;

namespace hpaplus::controller {
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

std::map<std::string, std::string> environment() {
    std::map<std::string, std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry = *e;
        const auto eq = entry.find('=');
        if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    return env;
}

void configure_logging() {
    auto logger = spdlog::stderr_logger_mt("hpaplus");
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
    spdlog::set_default_logger(logger);
    if (const char* level = std::getenv("HPAPLUS_LOG_LEVEL"))
        spdlog::set_level(spdlog::level::from_str(level));
}

int run_controller(int argc, char** argv) {
    const std::vector<std::string> args(argv, argv + argc);
    bool help = false;
    auto options = parse_controller_flags(args, help);
    if (help) {
        std::printf("%s%s", controller_usage, controller_flags_help().c_str());
        return 0;
    }
    if (!options) {
        std::fprintf(stderr, "hpaplus controller: %s\n", options.error().text.c_str());
        return 2;
    }
    auto config = options->context.empty() || options->kubeconfig.empty()
                      ? kube::load_config(options->kubeconfig, environment())
                      : kube::load_kubeconfig(options->kubeconfig, options->context);
    if (!config) {
        std::fprintf(stderr, "hpaplus controller: %s\n", config.error().text.c_str());
        return 2;
    }
    configure_logging();
    try {
        boost::asio::io_context io(1);
        controller_process process(io, std::move(*config), std::move(*options));
        int exit_code = 0;
        boost::asio::signal_set signals(io, SIGINT, SIGTERM);
        signals.async_wait([&](const boost::system::error_code& ec, int) {
            if (!ec) process.shutdown();
        });
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

} // namespace hpaplus::controller
