// controller/runtime/lane_scratch.hpp — what the passes of one lane reuse from one to the next
// (Envoy keeps such per-thread state in slots its workers own): the lane creates it, owns it and
// hands it to its passes. A lane's passes run on its one thread and use it between two waits
// only, so nothing here is shared or locked. Nothing in it outlives the lane.
#pragma once

#include "kinds/hpaplus_status.hpp"
#include "policy/decision.hpp"

#include <vector>

namespace hpaplus::controller {

struct lane_scratch {
    /// Decisions whose pass has ended, for later passes to decide into (policy::decide's `into`):
    /// their strings and vectors keep their capacity, so a steady pass allocates nothing to copy
    /// the status and history. A pass takes and gives back without waiting in between, so a few
    /// serve a lane; the cap bounds them after a burst of writes.
    std::vector<policy::decision> spare_decisions;
    static constexpr std::size_t max_spare_decisions = 16;
    /// The JSON pool and texts a status is built in.
    kinds::status_scratch status;

    policy::decision take_decision() {
        if (spare_decisions.empty()) return {};
        policy::decision d = std::move(spare_decisions.back());
        spare_decisions.pop_back();
        return d;
    }
    void give_back(policy::decision&& d) {
        if (spare_decisions.size() < max_spare_decisions) spare_decisions.push_back(std::move(d));
    }
};

} // namespace hpaplus::controller
