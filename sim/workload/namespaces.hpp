// sim/workload/namespaces.hpp — the namespace controller, as kube-controller-manager runs it: a
// namespace the API server marked Terminating loses its contents (pods gracefully, through their
// kubelet; everything else at once), and once nothing is left in it, the namespace itself goes.
// Until then the API server refuses anything new in it (store.cpp, NamespaceLifecycle).
#pragma once

#include "core/time.hpp"
#include "sim/store.hpp"

namespace hpaplus::sim {

/// What kube-controller-manager keeps in every active namespace: the `default` ServiceAccount
/// (the serviceaccount controller) and the `kube-root-ca.crt` ConfigMap holding `root_ca_pem`
/// under `ca.crt` (the root-ca-cert-publisher; none when `root_ca_pem` is empty). Either one is
/// made again when deleted, and the ConfigMap's data put back when changed.
void publish_namespace_defaults(object_store& store, const std::string& root_ca_pem);

/// Whether the namespace is marked for deletion (the API server's Terminating).
bool namespace_terminating(const stored_object& ns);

/// One pass of the namespace controller over `ns`: deletes what it holds and, once nothing is
/// left, the namespace. True when the namespace is gone (or was never there).
bool finalize_namespace(object_store& store, const std::string& ns, core::time_point now);

} // namespace hpaplus::sim
