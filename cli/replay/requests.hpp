// cli/replay/requests.hpp — `hpaplus replay --vertical FILE`: the recorded usage of a workload's
// containers (the input of `hpaplus recommend`) walked in time order through the controller's
// histories; every step the recommendation VPAPlus would have written, and what requests would
// have cost against the requests the pods had. Pure: no I/O.
#pragma once

#include "cli/recommend/usage_history.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace hpaplus::cli {

struct container_requests {
    std::string container;
    /// The target after each step at which it existed (cpu/memory 0 where not controlled).
    struct point {
        core::time_point at;
        std::int64_t cpu_milli = 0;
        std::int64_t memory_bytes = 0;
    };
    std::vector<point> targets;
    /// Over the recording, each sample counted for the time to its pod's next sample (at most
    /// an hour): what the container used, what it requested, and what it would have requested
    /// with VPAPlus (its request until the first recommendation, and for resources VPAPlus does
    /// not control). Core-hours and GiB-hours.
    double cpu_used = 0, cpu_requested = 0, cpu_recommended = 0;
    double memory_used = 0, memory_requested = 0, memory_recommended = 0;
    bool cpu_requests_known = false; ///< the samples carried cpuRequest
    bool memory_requests_known = false;
    bool cpu_recommended_known = false; ///< a target or a request counted at some sample
    bool memory_recommended_known = false;
    /// Each sample as the chart draws it: time, usage, request (NaN when unknown).
    struct sample {
        core::time_point at;
        double cpu_cores, memory_bytes, cpu_request_cores, memory_request_bytes;
    };
    std::vector<sample> usage;
};

struct requests_replay {
    core::time_point from{}, to{};
    std::chrono::seconds step{3600};
    std::vector<container_requests> containers; ///< by container name
};

requests_replay replay_requests(const recorded_history& history, std::chrono::seconds step);

/// The table `hpaplus replay` prints for it, its part of the summary JSON (an object), and its
/// HTML section (a table and one chart per container).
std::string requests_table(const requests_replay& r);
std::string requests_json(const requests_replay& r);
std::string requests_html(const requests_replay& r);

} // namespace hpaplus::cli
