// policy/rollout.cpp — rollout detection after kubectl's DeploymentStatusViewer.
#include "policy/rollout.hpp"

namespace hpaplus::policy {

rollout_state assess_rollout(const workload_rollout_status& w) {
    if (w.generation > w.observed_generation)
        return {true, "waiting for the spec update to be observed"};
    if (w.progress_deadline_exceeded) return {false, "the rollout exceeded its progress deadline"};
    if (w.spec_replicas && w.updated_replicas < *w.spec_replicas) {
        return {true, std::to_string(w.updated_replicas) + " out of " +
                          std::to_string(*w.spec_replicas) + " new replicas have been updated"};
    }
    if (w.replicas > w.updated_replicas) {
        return {true, std::to_string(w.replicas - w.updated_replicas) +
                          " old replicas are pending termination"};
    }
    if (w.available_replicas < w.updated_replicas) {
        return {true, std::to_string(w.available_replicas) + " of " +
                          std::to_string(w.updated_replicas) + " updated replicas are available"};
    }
    return {false, "successfully rolled out"};
}

} // namespace hpaplus::policy
