// bench/bare_client.hpp — the baseline every ratio is measured against: a bare Boost.Beast
// HTTP/1.1 client on one thread doing what one reconcile's I/O does (GET a PodMetrics list and
// parse it with RapidJSON) as fast as it can over a fixed number of keep-alive connections. No
// rate limit, no retries, no decoding beyond the parse: the machine's limit for that traffic.
#pragma once

#include "core/latency_histogram.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace hpaplus::bench {

struct bare_result {
    std::uint64_t requests = 0;
    std::uint64_t failures = 0;
    double seconds = 0;
    double cpu_seconds = 0; ///< of this process while it ran
    core::latency_histogram latency;
    double rate() const { return seconds > 0 ? static_cast<double>(requests) / seconds : 0; }
    double cpu_per_request() const {
        return requests ? cpu_seconds / static_cast<double>(requests) : 0;
    }
};

/// Runs for `duration` on `connections` connections to host:port; request k GETs target(k).
bare_result run_bare_client(const std::string& host, const std::string& port, int connections,
                            std::chrono::milliseconds duration,
                            const std::function<std::string(std::uint64_t)>& target);

/// As above at a fixed total rate (requests per second, spread evenly), for the latency of a GET
/// that does not queue behind others.
bare_result run_bare_client_paced(const std::string& host, const std::string& port, double rate,
                                  std::chrono::milliseconds duration,
                                  const std::function<std::string(std::uint64_t)>& target);

} // namespace hpaplus::bench
