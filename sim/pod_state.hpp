// sim/pod_state.hpp — small readings of pod and object state shared by the workload model and the
// metrics APIs.
#pragma once

#include "sim/store.hpp"

#include <string>
#include <string_view>

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
/// An annotation's value, or "".
std::string annotation(const json& obj, const std::string& key);
/// The same, viewed in the document (valid while the document is unchanged).
std::string_view annotation_text(const json& obj, std::string_view key);

} // namespace hpaplus::sim
