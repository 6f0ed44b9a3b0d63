// sim/workload/scenario.hpp — what the simulated cluster starts with (`hpaplus sim --scenario
// FILE`): objects to create, and a load schedule for Deployments. Format (JSON):
//   {"objects": [ <Kubernetes objects> ],
//    "load": [ {"at": 0, "namespace": "default", "deployment": "web", "cpu": "500m"}, ... ],
//    "repeatSeconds": 60}
// `at` is seconds after start; each step sets the Deployment's sim.hpaplus.io/cpu-load. With
// `repeatSeconds` (after the last step's `at`) the schedule starts over every so many seconds.
#pragma once

#include "core/outcome.hpp"

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::sim {

struct load_step {
    std::chrono::milliseconds at{0};
    std::string namespace_ = "default";
    std::string deployment;
    std::string cpu; ///< a quantity
};

struct scenario {
    std::vector<std::string> objects;    ///< each a JSON object, in creation order
    std::vector<load_step> load;         ///< sorted by `at`
    std::chrono::milliseconds repeat{0}; ///< the load's period (0: played once)
};

/// Parses and checks a scenario; the error names the field (`load[2].cpu: ...`).
core::outcome<scenario> parse_scenario(std::string_view text);

} // namespace hpaplus::sim
