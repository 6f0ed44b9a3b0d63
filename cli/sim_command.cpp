// cli/sim_command.cpp — run the simulated cluster until a signal arrives.
#include "cli/sim_command.hpp"

#include "cli/flags.hpp"
#include "controller/runtime/lifecycle.hpp"
#include "core/quantity.hpp"
#include "net/listen_address.hpp"
#include "sim/cluster.hpp"

#include <boost/asio/io_context.hpp>

#include <cstdint>
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
    "                   [--storage-quota QUANTITY]\n"
    "\n"
    "Runs the simulated Kubernetes cluster: an API server that behaves like the real one (CRUD,\n"
    "list/watch, status and scale subresources, discovery, tables, CRDs). Point kubectl at it:\n"
    "  hpaplus sim --kubeconfig-out /tmp/sim.kubeconfig &\n"
    "  kubectl --kubeconfig /tmp/sim.kubeconfig get namespaces\n"
    "Prints 'listening on URL' once it accepts connections; stops on SIGINT or SIGTERM.\n"
    "\n"
    "Flags (--name=value or --name value):\n";

struct sim_flags {
    std::string listen = "127.0.0.1:0";
    bool tls = false;
    std::string kubeconfig_out;
    std::string scenario_file;
};

// --node-cpu and --node-memory: a positive quantity, kept as milli-units.
flag_table::setter positive_quantity(std::int64_t& milli) {
    return [&milli](std::string_view value) -> std::optional<std::string> {
        const auto q = core::quantity::parse(value);
        if (!q || q->milli_value() <= 0)
            return "want a positive quantity such as 64 or 256Gi, got \"" + std::string(value) +
                   "\"";
        milli = q->milli_value();
        return std::nullopt;
    };
}

} // namespace

int run_sim(int argc, char** argv) {
    sim::cluster_options options;
    sim_flags f;
    std::int64_t node_cpu_milli = options.workload.node_cpu_milli;
    std::int64_t node_memory_milli = options.workload.node_memory_bytes * 1000;
    flag_table flags("hpaplus sim");
    flags.listen("listen", "address to listen on (port 0 = any free port)", f.listen,
                 "127.0.0.1:8080", false);
    flags.boolean("tls", "serve HTTPS with a fresh self-signed CA (written into the kubeconfig)",
                  f.tls);
    flags.text("kubeconfig-out", "write a kubeconfig for this cluster", f.kubeconfig_out, false);
    flags.text("scenario", "objects to create and a load schedule to play (JSON, see docs/sim.md)",
               f.scenario_file, false);
    flags.duration("tick",
                   "how often the simulated controllers and pods advance (the benchmarks use 5s "
                   "for clusters of 100,000 pods)",
                   options.workload.tick);
    flags.custom("node-cpu", "allocatable CPU of the one node", "16",
                 positive_quantity(node_cpu_milli));
    flags.custom("node-memory", "allocatable memory of the one node", "64Gi",
                 positive_quantity(node_memory_milli));
    std::int64_t quota_milli = static_cast<std::int64_t>(options.storage_quota_bytes) * 1000;
    flags.custom("storage-quota",
                 "etcd's quota: once the stored objects' JSON reaches it, creations fail with "
                 "\"database space exceeded\"",
                 "128Mi", positive_quantity(quota_milli));
    const auto help = flags.parse(std::vector<std::string>(argv, argv + argc));
    if (!help) return usage_error("hpaplus sim", help.error().text);
    if (*help) {
        std::printf("%s%s", sim_usage, flags.help().c_str());
        return 0;
    }
    options.tls = f.tls;
    options.workload.node_cpu_milli = node_cpu_milli;
    options.workload.node_memory_bytes = node_memory_milli / 1000;
    options.storage_quota_bytes = static_cast<std::size_t>(quota_milli / 1000);
    net::split_listen(f.listen, options.address, options.port); // checked by --listen
    const std::string& scenario_file = f.scenario_file;
    const std::string& kubeconfig_out = f.kubeconfig_out;
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
