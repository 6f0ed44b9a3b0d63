// sim/pod_state.hpp — small readings of pod and object state shared by the workload model and the
// metrics APIs.
#pragma once

#include "core/quantity.hpp"
#include "sim/store.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::sim {

/// The pod's Ready condition is True.
bool pod_ready(const stored_object& pod);
/// The uid of the object's controller (the owner reference with `controller: true`), or "".
std::string controller_uid(const stored_object& object);
/// The store key ("namespace/name") of the object's controller when that is an apps/v1 `kind`
/// (Deployment, ReplicaSet, StatefulSet), else "". Read from the reference, not checked.
std::string controller_key(const stored_object& object, std::string_view kind);
/// The workload a pod belongs to and that carries the sim's load annotations: its StatefulSet, or
/// the Deployment that owns its ReplicaSet (or that ReplicaSet, when no Deployment owns it);
/// nullptr for a pod without such an owner.
object_ptr workload_of(object_store& store, const stored_object& pod);
/// The object names an apps/v1 controller (Deployment, ReplicaSet, StatefulSet) that is gone.
bool orphaned(object_store& store, const stored_object& object);
/// A container's `resources.KIND.NAME` (kind: requests, limits), or nullptr.
const json* container_resource(const json& container, const char* kind, const char* name);
/// A quantity string, parsed; nullopt when absent or not one.
std::optional<core::quantity> quantity_of(const json* v);
/// The pod's containers and init containers.
std::vector<const json*> all_containers(const json& pod);
/// The QoS class the API server gives a pod at creation (upstream's GetPodQOS): BestEffort
/// without any CPU or memory request or limit, Guaranteed when every container's limits equal
/// its requests for both, else Burstable.
std::string qos_class(const json& pod);

/// The pod carries a deletionTimestamp: Terminating until its kubelet is done.
bool pod_terminating(const stored_object& pod);

/// What deleting a pod did: marked it Terminating (`removed` false), or removed it.
struct pod_deletion {
    object_ptr pod;
    bool removed = false;
};
/// Deletes a pod as the API server's pod strategy does: a pod bound to a node and not finished
/// goes Terminating for its grace period (`grace_seconds`, else its
/// terminationGracePeriodSeconds, default 30): deletionTimestamp now + period and
/// deletionGracePeriodSeconds; the simulated kubelet removes it once its containers stopped. A
/// pod not bound or finished, or a grace of 0, goes at once; a second delete only shortens the
/// period.
api_result<pod_deletion> delete_pod(object_store& store, collection& pods, const object_ptr& pod,
                                    std::optional<std::int64_t> grace_seconds,
                                    core::time_point now);

/// An annotation's value, or "".
std::string annotation(const json& obj, const std::string& key);
/// The same, viewed in the document (valid while the document is unchanged).
std::string_view annotation_text(const json& obj, std::string_view key);

} // namespace hpaplus::sim
