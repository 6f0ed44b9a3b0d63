// cli/why_command.cpp — `hpaplus why`: fetch /debug/objects/NAMESPACE/NAME from the controller's
// ops port, run the same decision on it as `evaluate`, and print it explained.
#include "cli/why_command.hpp"

#include "cli/evaluate_command.hpp"
#include "cli/flags.hpp"
#include "net/http_client.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace hpaplus::cli {
namespace {

constexpr const char* why_usage =
    "Usage: hpaplus why NAMESPACE/NAME [--ops-url URL] [--kind KIND] [--timeout SECONDS] "
    "[--snapshot FILE]\n"
    "\n"
    "Asks the controller (its ops port: /debug/objects/NAMESPACE/NAME) for the input the object's\n"
    "next pass decides from, runs the same decision on it as `hpaplus evaluate`, and prints it\n"
    "explained: each metric's proposal and which pods counted as ready, unready, missing or\n"
    "ignored and why, the tolerance band, the stabilization window, the rate-limit arithmetic,\n"
    "min/max, gates and fallbacks, and whether the controller decided the same.\n"
    "\n"
    "In a cluster, reach the ops port first, e.g.\n"
    "  kubectl -n hpaplus-system port-forward deploy/hpaplus-controller 8080 &\n"
    "  hpaplus why default/web\n"
    "(with leader election, the leader's pod; with shards, the pod holding the object's shard).\n"
    "As a kubectl plugin: kubectl hpaplus why default/web (kubectl-hpaplus on the PATH).\n"
    "\n"
    "Exit codes: 0 explained, 1 the controller did not answer, 2 bad usage or a bad answer.\n";

std::string fetch(const std::string& url, int timeout_seconds, std::string& error) {
    boost::asio::io_context io;
    net::client_request request;
    request.url = url;
    request.method = "GET";
    request.timeout = std::chrono::seconds(timeout_seconds + 10);
    auto future = boost::asio::co_spawn(io, net::send_once(io.get_executor(), std::move(request)),
                                        boost::asio::use_future);
    io.run();
    const net::client_response response = future.get();
    if (!response.error.empty()) {
        error = response.error;
        return {};
    }
    if (response.status != 200) {
        error = "HTTP " + std::to_string(response.status) + ": " + response.body;
        while (!error.empty() && error.back() == '\n')
            error.pop_back();
        return {};
    }
    return response.body;
}

} // namespace

int run_why(int argc, char** argv) {
    std::string ops_url = "http://127.0.0.1:8080";
    std::string kind;
    std::string snapshot_file;
    int timeout = 60;
    std::vector<std::string> positional;
    flag_table flags("hpaplus why");
    flags.text("ops-url", "the controller's ops server", ops_url);
    flags.text("kind", "HPAPlus or HorizontalPodAutoscaler (default: either)", kind, false);
    flags.integer("timeout", "seconds to wait for the object's next pass", timeout, 1, 600);
    flags.text("snapshot", "also write the fetched input here (for hpaplus evaluate)",
               snapshot_file, false);
    const auto help = flags.parse(std::vector<std::string>(argv, argv + argc), &positional);
    if (!help) return usage_error("hpaplus why", help.error().text);
    if (*help) {
        std::printf("%s\nFlags:\n%s", why_usage, flags.help().c_str());
        return 0;
    }
    const auto slash = positional.size() == 1 ? positional[0].find('/') : std::string::npos;
    if (slash == std::string::npos || slash == 0 || slash + 1 == positional[0].size())
        return usage_error("hpaplus why", "want one NAMESPACE/NAME");
    if (!kind.empty() && kind != "HPAPlus" && kind != "HorizontalPodAutoscaler")
        return usage_error("hpaplus why", "--kind: want HPAPlus or HorizontalPodAutoscaler");
    while (!ops_url.empty() && ops_url.back() == '/')
        ops_url.pop_back();
    const std::string url = ops_url + "/debug/objects/" + positional[0] +
                            "?timeout=" + std::to_string(timeout) +
                            (kind.empty() ? "" : "&kind=" + kind);
    std::string error;
    const std::string snapshot = fetch(url, timeout, error);
    if (!error.empty()) {
        std::fprintf(stderr, "hpaplus why: %s: %s\n", url.c_str(), error.c_str());
        return 1;
    }
    if (!snapshot_file.empty()) {
        std::ofstream out(snapshot_file, std::ios::binary);
        out << snapshot;
        if (!out) {
            std::fprintf(stderr, "hpaplus why: cannot write %s\n", snapshot_file.c_str());
            return 1;
        }
    }
    const evaluate_result result =
        evaluate_document(snapshot, core::wall_now(), evaluate_output::explanation);
    if (result.exit_code != 0) {
        std::fprintf(stderr, "hpaplus why: the controller's answer: %s\n", result.error.c_str());
        return result.exit_code;
    }
    std::fwrite(result.output.data(), 1, result.output.size(), stdout);
    return 0;
}

} // namespace hpaplus::cli
