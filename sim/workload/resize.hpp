// sim/workload/resize.hpp — the simulated kubelet's reading of an in-place resize (pods/resize):
// whether a pod's spec asks for resources its containers do not have yet, whether the node can
// give them (PodResizePending Infeasible or Deferred, in the kubelet's words), and the actuation:
// actual = desired, a RestartContainer policy on a changed resource restarting that container.
#pragma once

#include "sim/store.hpp"

#include <cstdint>
#include <string>
#include <utility>

namespace hpaplus::sim {

/// A quantity's text in milli-units (`fallback` when it is not a quantity).
std::int64_t quantity_milli(std::string_view text, std::int64_t fallback);

/// Requests of a pod's containers (and sidecars) from its spec, in milli-CPU and bytes.
std::pair<std::int64_t, std::int64_t> pod_requests(const json& pod);

/// Whether the spec's resources of some container differ from its status's.
bool resize_wanted(const json& pod);

/// Why the node cannot resize `pod` now: {"Infeasible" | "Deferred", message}, or {"", ""} when it
/// can (the other pods on `node` count with their requests).
std::pair<std::string, std::string> resize_pending(const collection& pods, const stored_object& pod,
                                                   const std::string& node,
                                                   std::int64_t node_cpu_milli,
                                                   std::int64_t node_memory_bytes);

/// In `pod` (a copy being written): every container status takes its spec's resources.
void actuate_resize_of(json_doc& pod, const json& containers);

} // namespace hpaplus::sim
