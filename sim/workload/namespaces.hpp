// sim/workload/namespaces.hpp — the namespace controller, as kube-controller-manager runs it: a
// namespace the API server marked Terminating loses its contents (pods gracefully, through their
// kubelet; everything else at once), and once nothing is left in it, the namespace itself goes.
// Until then the API server refuses anything new in it (store.cpp, NamespaceLifecycle).
#pragma once

#include "core/time.hpp"
#include "sim/store.hpp"

namespace hpaplus::sim {

/// One pass over every Terminating namespace.
void finalize_terminating_namespaces(object_store& store, core::time_point now);

} // namespace hpaplus::sim
