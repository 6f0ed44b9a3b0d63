// tests/support/shipped_identity.hpp — the identities deploy/ ships, for tests that run the
// controller, the adapter or the webhook: the Namespace, ServiceAccounts and RBAC objects that
// `kubectl apply -k deploy/OVERLAY` applies (rendered by `kubectl kustomize`, not copied), and a
// token of one of those ServiceAccounts, so a rule missing from deploy/ is a 403 in a test.
#pragma once

#include <string>
#include <vector>

namespace hpaplus::test {

/// The ServiceAccounts deploy/ ships (namespace hpaplus-system).
inline const std::string controller_account = "hpaplus-controller";
inline const std::string adapter_account = "hpaplus-adapter";
inline const std::string shipped_namespace = "hpaplus-system";

/// The YAML documents of `kubectl kustomize deploy/OVERLAY` ("complete": base, webhook and
/// adapter; "sharded") whose kind is Namespace, ServiceAccount, Role, ClusterRole, RoleBinding or
/// ClusterRoleBinding, in the rendered order. Rendered once per process and overlay; a failure to
/// render throws.
const std::vector<std::string>& shipped_rbac_documents(const std::string& overlay = "complete");

/// End-to-end: applies those documents with kubectl through `DIR/kubeconfig` (the admin's),
/// creates a token of `account` (a TokenRequest), and writes `DIR/ACCOUNT.kubeconfig`:
/// the admin kubeconfig with that token. Returns its path; throws when a step fails.
/// With `pod`, the token is bound to a pod of that name in the shipped namespace (created here,
/// as the kubelet's projected tokens are bound to theirs): the sim's audit log then names the pod
/// in user.extra, which tells replicas of one ServiceAccount apart. The file is
/// `DIR/ACCOUNT-POD.kubeconfig`.
std::string shipped_kubeconfig(const std::string& dir, const std::string& account,
                               const std::string& overlay = "complete",
                               const std::string& pod = "");

/// End-to-end: what the simulated cluster refused `account` (403) since it started, as
/// `{"count":N,"first":"MESSAGE"}` ("" = nothing), read through `DIR/kubeconfig`.
std::string shipped_refusals(const std::string& dir, const std::string& account);

/// With $HPAPLUS_RBAC_USAGE_DIR set (scripts/test.sh sets it for the sanitized run), writes a
/// simulated cluster's /sim/v1/rbac-usage answer there, one file per call: tests/rbac_usage_check
/// then shows that every rule deploy/ ships is the only grant of some request of the suite.
void record_rbac_usage(const std::string& usage_json);
/// End-to-end: the same for the simulated cluster behind `DIR/kubeconfig`.
void record_rbac_usage_of(const std::string& dir);

} // namespace hpaplus::test
