// sim/workload/readiness.hpp — readiness under load: a workload annotated
//   kubectl annotate deployment worker sim.hpaplus.io/unready-above=800m
// spreads its sim.hpaplus.io/cpu-load over its Running pods (busy whether Ready or not, as a
// queue worker is) and its pods fail readiness while their share is above that CPU (they shed
// traffic under load), becoming Ready again once it is not. The model of a readiness collapse
// (docs/readiness-collapse.md): an upstream HPA on a Value target then sees no Ready pod.
#pragma once

#include "sim/store.hpp"

#include <cstdint>
#include <string>

namespace hpaplus::sim {

/// The workload's sim.hpaplus.io/unready-above in milli-CPU; 0 when it has none.
std::int64_t unready_above_milli(const stored_object& workload);

/// Writes a running pod's readiness as the kubelet reports a probe's change: the Ready and
/// ContainersReady conditions (lastTransitionTime `now`) and each container status's `ready`.
void write_pod_ready(object_store& store, collection& pods, const stored_object& pod, bool ready,
                     const std::string& now);

} // namespace hpaplus::sim
