// cli/sim_command.cpp — run the simulated cluster until a signal arrives.
#include "cli/sim_command.hpp"

#include "controller/runtime/lifecycle.hpp"
#include "core/duration.hpp"
#include "core/quantity.hpp"
#include "net/listen_address.hpp"
#include "sim/cluster.hpp"

#include <boost/asio/io_context.hpp>

#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace hpaplus::cli {
namespace {

constexpr const char* sim_usage =
    "Usage: hpaplus sim [--listen ADDR:PORT] [--tls] [--kubeconfig-out FILE] [--scenario FILE]\n"
    "                   [--tick DURATION] [--node-cpu QUANTITY] [--node-memory QUANTITY]\n"
    "\n"
    "Runs the simulated Kubernetes cluster: an API server that behaves like the real one (CRUD,\n"
    "list/watch, status and scale subresources, discovery, tables, CRDs). Point kubectl at it:\n"
    "  hpaplus sim --kubeconfig-out /tmp/sim.kubeconfig &\n"
    "  kubectl --kubeconfig /tmp/sim.kubeconfig get namespaces\n"
    "\n"
    "  --listen ADDR:PORT    address to listen on (default 127.0.0.1:0, any free port)\n"
    "  --tls                 serve HTTPS with a fresh self-signed CA (written into the "
    "kubeconfig)\n"
    "  --kubeconfig-out FILE write a kubeconfig for this cluster\n"
    "  --scenario FILE       objects to create and a load schedule to play (JSON, see "
    "docs/sim.md)\n"
    "  --tick DURATION       how often the simulated controllers and pods advance (default 100ms;\n"
    "                        the benchmarks use 5s for clusters of 100,000 pods)\n"
    "  --node-cpu QUANTITY   allocatable CPU of the one node (default 16)\n"
    "  --node-memory QUANTITY allocatable memory of the one node (default 64Gi)\n"
    "\n"
    "Prints 'listening on URL' once it accepts connections; stops on SIGINT or SIGTERM.\n";

// --tick, --node-cpu and --node-memory; the error says what was wrong.
std::optional<std::string> set_workload_option(std::string_view flag, std::string_view value,
                                               sim::workload_options& w) {
    if (flag == "--tick") {
        const auto d = core::parse_go_duration(value);
        if (!d || d->count() <= 0)
            return "want a positive duration such as 100ms or 1s, got \"" + std::string(value) +
                   "\"";
        w.tick = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
        if (w.tick.count() == 0) w.tick = std::chrono::milliseconds(1);
        return std::nullopt;
    }
    const auto q = core::quantity::parse(value);
    if (!q || q->milli_value() <= 0)
        return "want a positive quantity such as 64 or 256Gi, got \"" + std::string(value) + "\"";
    if (flag == "--node-cpu")
        w.node_cpu_milli = q->milli_value();
    else
        w.node_memory_bytes = q->milli_value() / 1000;
    return std::nullopt;
}

} // namespace

int run_sim(int argc, char** argv) {
    sim::cluster_options options;
    std::string kubeconfig_out;
    std::string scenario_file;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::fputs(sim_usage, stdout);
            return 0;
        }
        if (arg == "--tls") {
            options.tls = true;
        } else if ((arg == "--listen" || arg == "--kubeconfig-out" || arg == "--scenario" ||
                    arg == "--tick" || arg == "--node-cpu" || arg == "--node-memory") &&
                   i + 1 < argc) {
            const std::string_view value = argv[++i];
            if (arg == "--tick" || arg == "--node-cpu" || arg == "--node-memory") {
                if (auto error = set_workload_option(arg, value, options.workload)) {
                    std::fprintf(stderr, "hpaplus sim: %s: %s\n", std::string(arg).c_str(),
                                 error->c_str());
                    return 2;
                }
            } else if (arg == "--kubeconfig-out") {
                kubeconfig_out = value;
            } else if (arg == "--scenario") {
                scenario_file = value;
            } else if (!net::split_listen(value, options.address, options.port)) {
                std::fprintf(stderr, "hpaplus sim: --listen: expected ADDR:PORT, got '%s'\n",
                             argv[i]);
                return 2;
            }
        } else {
            std::fprintf(
                stderr,
                "hpaplus sim: unknown or incomplete option '%s' (see 'hpaplus sim --help')\n",
                argv[i]);
            return 2;
        }
    }
    std::optional<sim::scenario> scenario;
    if (!scenario_file.empty()) {
        std::ifstream in(scenario_file, std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "hpaplus sim: %s: cannot open the file\n", scenario_file.c_str());
            return 2;
        }
        std::stringstream text;
        text << in.rdbuf();
        auto parsed = sim::parse_scenario(text.str());
        if (!parsed) {
            std::fprintf(stderr, "hpaplus sim: %s: %s\n", scenario_file.c_str(),
                         parsed.error().text.c_str());
            return 2;
        }
        scenario = std::move(*parsed);
    }
    try {
        boost::asio::io_context io(1);
        sim::cluster cluster(io, options);
        if (scenario) {
            if (auto error = cluster.play(*scenario)) {
                std::fprintf(stderr, "hpaplus sim: %s: %s\n", scenario_file.c_str(),
                             error->c_str());
                return 2;
            }
        }
        if (!kubeconfig_out.empty()) {
            std::ofstream out(kubeconfig_out, std::ios::binary | std::ios::trunc);
            out << cluster.kubeconfig();
            if (!out) {
                std::fprintf(stderr, "hpaplus sim: cannot write %s\n", kubeconfig_out.c_str());
                return 1;
            }
        }
        controller::stop_signal signals(io, [&] {
            cluster.stop();
            io.stop();
        });
        cluster.start();
        std::printf("listening on %s\n", cluster.url().c_str());
        std::fflush(stdout);
        io.run();
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hpaplus sim: %s\n", e.what());
        return 1;
    }
}

} // namespace hpaplus::cli
