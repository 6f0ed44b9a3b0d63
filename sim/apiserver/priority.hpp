// sim/apiserver/priority.hpp — scheduling.k8s.io PriorityClasses as kube-apiserver keeps them:
// the two system classes every cluster has, and the Priority admission plugin, which resolves a
// new pod's priorityClassName (or the global default) into spec.priority and refuses a second
// global default.
#pragma once

#include "sim/api_error.hpp"
#include "sim/json_util.hpp"
#include "sim/resource_type.hpp"
#include "sim/store.hpp"

#include <optional>

namespace hpaplus::sim {

/// system-cluster-critical and system-node-critical, as the API server creates them at start.
void bootstrap_priority_classes(object_store& store);

/// The Priority plugin on a pod create: spec.priorityClassName's class (the global default, or
/// priority 0, when none is named) sets spec.priority and spec.preemptionPolicy; an unknown class,
/// or a priority given that differs from the class's, is upstream's 403.
std::optional<api_error> admit_pod_priority(object_store& store, json_doc& pod);

/// The Priority plugin on a pod update: spec.priority and spec.preemptionPolicy stay the ones the
/// create set (`old`), whatever the update says.
void keep_pod_priority(const resource_type& type, json_doc& pod, const json& old);

/// The Priority plugin on a PriorityClass create (`old` null) or update: only one may be the
/// global default.
std::optional<api_error> admit_priority_class(object_store& store, const resource_type& type,
                                              const json& object, const json* old);

} // namespace hpaplus::sim
