// sim/workload/controllers.hpp — the simulated cluster's workload controllers, as
// kube-controller-manager runs them:
// - Deployments own one ReplicaSet per pod template (named `<deployment>-<pod-template-hash>`) and
//   roll from old to new ones by maxSurge and maxUnavailable, as upstream's rolling update does;
// - ReplicaSets own pods (`<replicaset>-xxxxx`) and keep their count, removing unready and newest
//   pods first;
// - StatefulSets own pods `<set>-0` … `<set>-N-1`, created in order and removed in reverse
//   (OrderedReady: each waits for the ones before it to be Ready; Parallel: all at once), and
//   roll updates from the highest ordinal down to the partition;
// - a garbage collector removes what lost its controller.
// Each writes the status its upstream controller writes (counters, revisions, conditions).
#pragma once

#include "sim/store.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace hpaplus::sim {

/// How controllers make pods: the workload model sends them through the mutating webhooks.
class pod_factory {
  public:
    virtual ~pod_factory() = default;
    /// Creates `pod` for `owner` (a refusal becomes a FailedCreate Event on `owner`). Creations
    /// still in flight are counted under `key`.
    virtual void create_pod(const stored_object& owner, json_doc pod, const std::string& key) = 0;
    /// Pods under `key` being admitted: they count as existing, as the controllers' expectations
    /// do, so none is made twice.
    virtual std::int64_t creating(const std::string& key) const = 0;
};

/// Pods and ReplicaSets by the uid of their controller, taken once per tick, so that a tick costs
/// one pass over the pods instead of one per workload.
class owned_objects {
  public:
    explicit owned_objects(object_store& store);
    const std::vector<object_ptr>& pods(const std::string& owner_uid) const;
    const std::vector<object_ptr>& replica_sets(const std::string& owner_uid) const;

  private:
    std::unordered_map<std::string, std::vector<object_ptr>> pods_, replica_sets_;
};

void reconcile_deployment(object_store& store, const owned_objects& owned,
                          const object_ptr& deployment);
void reconcile_replica_set(object_store& store, const owned_objects& owned, pod_factory& pods,
                           const object_ptr& replica_set);
void reconcile_stateful_set(object_store& store, const owned_objects& owned, pod_factory& pods,
                            const object_ptr& set);
/// Removes ReplicaSets and pods whose apps/v1 controller is gone (background cascading deletion).
void collect_garbage(object_store& store);

/// A pod or workload condition as the controllers write it.
json condition(const char* type, const char* status, const std::string& now, json_alloc& a,
               const char* reason = nullptr, const std::string& message = {});
/// The current time in RFC 3339 with nanoseconds.
std::string now_text();

} // namespace hpaplus::sim
