// sim/workload/controllers.hpp — the simulated cluster's workload controllers, as
// kube-controller-manager runs them:
// - Deployments own one ReplicaSet per pod template (named `<deployment>-<pod-template-hash>`) and
//   roll from old to new ones by maxSurge and maxUnavailable, as upstream's rolling update does;
// - ReplicaSets own pods (`<replicaset>-xxxxx`) and keep their count, removing unready and newest
//   pods first;
// - StatefulSets own pods `<set>-0` … `<set>-N-1`, created in order and removed in reverse
//   (OrderedReady: each waits for the ones before it to be Ready; Parallel: all at once), and
//   roll updates from the highest ordinal down to the partition;
// - DaemonSets own one pod per node their nodeSelector matches, pinned by node affinity;
// - both create at most `burst_replicas` pods per sync, in slow-start batches (1, 2, 4, …) that
// stop
//   at the first refusal, as upstream's ReplicaSet controller does: a workload scaled to
//   2147483647 grows by steps while the API server keeps answering;
// - a garbage collector removes what lost its controller.
// Each writes the status its upstream controller writes (counters, revisions, conditions).
#pragma once

#include "sim/store.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace hpaplus::sim {

/// How controllers make pods: the workload model sends them through the mutating webhooks.
class pod_factory {
  public:
    virtual ~pod_factory() = default;
    /// Creates `pod` for `owner` (a refusal becomes a FailedCreate Event on `owner`). Creations
    /// still in flight are counted under `key`. False when the store refused it at once.
    virtual bool create_pod(const stored_object& owner, json_doc pod, const std::string& key) = 0;
    /// Pods under `key` being admitted: they count as existing, as the controllers' expectations
    /// do, so none is made twice.
    virtual std::int64_t creating(const std::string& key) const = 0;
    /// Why the last create under `key` was refused ("" when it was not): the controller's
    /// ReplicaFailure condition.
    virtual std::string create_failure(const std::string& key) const = 0;
};

/// Pods and ReplicaSets by the uid of their controller, kept up to date from the store's changes
/// (track) so that a step looks up what a workload owns instead of passing over every pod.
class owned_objects {
  public:
    /// Indexes every pod and ReplicaSet the store holds now (a start or a restored store).
    void rebuild(object_store& store);
    /// Follows one change of a pod (`pod`) or ReplicaSet.
    void track(bool pod, const watch_event& e);
    /// In key order.
    std::vector<object_ptr> pods(const std::string& owner_uid) const;
    std::vector<object_ptr> replica_sets(const std::string& owner_uid) const;

  private:
    using index = std::unordered_map<std::string, std::map<std::string, object_ptr>>;
    index pods_, replica_sets_;
};

/// Upstream's `BurstReplicas`: the most pods one sync of a ReplicaSet (or StatefulSet) creates.
inline constexpr std::int64_t burst_replicas = 500;

void reconcile_deployment(object_store& store, const owned_objects& owned,
                          const object_ptr& deployment);
void reconcile_replica_set(object_store& store, const owned_objects& owned, pod_factory& pods,
                           const object_ptr& replica_set);
void reconcile_stateful_set(object_store& store, const owned_objects& owned, pod_factory& pods,
                            const object_ptr& set);
void reconcile_daemon_set(object_store& store, const owned_objects& owned, pod_factory& pods,
                          const object_ptr& set);

/// A pod or workload condition as the controllers write it.
json condition(const char* type, const char* status, const std::string& now, json_alloc& a,
               const char* reason = nullptr, const std::string& message = {});
/// The current time in RFC 3339 with nanoseconds.
std::string now_text();

} // namespace hpaplus::sim
