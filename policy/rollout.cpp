// policy/rollout.cpp — rollout detection after kubectl's DeploymentStatusViewer.
#include "policy/rollout.hpp"

namespace hpaplus::policy {

namespace {

// kubectl's StatefulSetStatusViewer.
rollout_state assess_stateful_set(const workload_rollout_status& w) {
    if (!w.rolling_update)
        return {false, "rollout status is only available for RollingUpdate strategy type"};
    if (w.observed_generation == 0 || w.generation > w.observed_generation)
        return {true, "waiting for statefulset spec update to be observed"};
    if (w.spec_replicas && w.ready_replicas < *w.spec_replicas)
        return {true, "waiting for " + std::to_string(*w.spec_replicas - w.ready_replicas) +
                          " pods to be ready"};
    if (w.partition) {
        const std::int32_t wanted = w.spec_replicas ? *w.spec_replicas - *w.partition : 0;
        if (w.spec_replicas && w.updated_replicas < wanted)
            return {true, "waiting for partitioned roll out to finish: " +
                              std::to_string(w.updated_replicas) + " out of " +
                              std::to_string(wanted) + " new pods have been updated"};
        return {false, "partitioned roll out complete: " + std::to_string(w.updated_replicas) +
                           " new pods have been updated"};
    }
    if (w.update_revision != w.current_revision)
        return {true, "waiting for statefulset rolling update to complete " +
                          std::to_string(w.updated_replicas) + " pods at revision " +
                          w.update_revision};
    return {false, "statefulset rolling update complete " + std::to_string(w.replicas) +
                       " pods at revision " + w.current_revision};
}

} // namespace

rollout_state assess_rollout(const workload_rollout_status& w) {
    if (w.kind == workload_kind::stateful_set) return assess_stateful_set(w);
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
