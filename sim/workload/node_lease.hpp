// sim/workload/node_lease.hpp — the node's heartbeat, as the kubelet keeps it: a Lease named after
// the node in `kube-node-lease` (holderIdentity the node, leaseDurationSeconds 40, owned by the
// Node), its renewTime written every workload_options::node_lease_renewal (10 s, as the kubelet:
// a quarter of the 40 s duration).
#pragma once

#include "sim/store.hpp"

#include <chrono>
#include <string>

namespace hpaplus::sim {

/// Creates the node's Lease, or writes its renewTime as `now` (RFC 3339 with microseconds, a
/// MicroTime). Nothing when the namespace or the node is missing.
void renew_node_lease(object_store& store, const std::string& node, const std::string& now);

} // namespace hpaplus::sim
