// policy/rollout.hpp — is the scale target rolling out? Decided the way `kubectl rollout status`
// decides for a Deployment or a StatefulSet, so users and HPAPlus agree on what "rolling out"
// means.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace hpaplus::policy {

enum class workload_kind { deployment, stateful_set };

/// The workload fields rollout detection reads (apps/v1 Deployment or StatefulSet metadata, spec
/// and status).
struct workload_rollout_status {
    std::int64_t generation = 0;
    std::int64_t observed_generation = 0;
    std::optional<std::int32_t> spec_replicas;
    std::int32_t replicas = 0;
    std::int32_t updated_replicas = 0;
    std::int32_t available_replicas = 0;
    bool progress_deadline_exceeded = false; ///< Deployments
    workload_kind kind = workload_kind::deployment;
    // StatefulSets:
    std::int32_t ready_replicas = 0;
    bool rolling_update = true;            ///< updateStrategy RollingUpdate (not OnDelete)
    std::optional<std::int32_t> partition; ///< updateStrategy.rollingUpdate.partition
    std::string current_revision;
    std::string update_revision;
};

struct rollout_state {
    bool in_progress = false;
    std::string message; ///< kubectl's wording
};

/// A rollout whose progress deadline passed counts as not in progress, so a stuck rollout does not
/// freeze scaling forever.
rollout_state assess_rollout(const workload_rollout_status& w);

} // namespace hpaplus::policy
