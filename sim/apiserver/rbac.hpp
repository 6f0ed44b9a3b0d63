// sim/apiserver/rbac.hpp — who the caller is and what RBAC lets them do, as kube-apiserver's
// authentication, impersonation and RBAC authorizer decide it: the request's attributes (verb,
// group, resource, subresource, namespace, name, or a non-resource path), the rules of the Roles
// and ClusterRoles bound to the user, its groups or its ServiceAccount, and the 403 Status of a
// refusal. Pure: it reads the store's RBAC objects and nothing else.
#pragma once

#include "net/http_server.hpp"
#include "sim/store.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hpaplus::sim {

/// Who sends a request to the simulated cluster.
struct sim_user {
    std::string name;
    std::vector<std::string> groups;
    std::string uid;
    /// user.extra: a pod-bound ServiceAccount token's `authentication.kubernetes.io/pod-name`
    /// and `pod-uid`, or what Impersonate-Extra-* headers set.
    std::map<std::string, std::vector<std::string>> extra;
};

/// `system:serviceaccount:NS:NAME`, and its groups (`system:serviceaccounts`,
/// `system:serviceaccounts:NS`, `system:authenticated`).
std::string service_account_user(const std::string& ns, const std::string& name);
sim_user service_account(const std::string& ns, const std::string& name);
/// The namespace and name of a `system:serviceaccount:NS:NAME` user; nullopt for any other.
std::optional<std::pair<std::string, std::string>> service_account_of(const std::string& user);

/// What a request asks to do (apiserver's RequestInfo, as authorizer.Attributes carries it).
struct access_request {
    std::string verb;
    bool resource_request = false;
    std::string api_group, resource, subresource, ns, name;
    std::string path; ///< a non-resource request's path
};

/// The attributes of an HTTP request, as apiserver's RequestInfoFactory reads its path, method
/// and list options (a list or watch with `fieldSelector=metadata.name=X` is about X).
access_request access_of(const net::http_request& r);

/// One PolicyRule.
struct policy_rule {
    std::vector<std::string> verbs, api_groups, resources, resource_names, non_resource_urls;
};
policy_rule rule_of(const json& rule);
/// The rule as one line (`apiGroups=[apps] resources=[deployments] verbs=[list,watch]`), fields
/// in that order and empty ones left out: how usage() and its readers name a rule.
std::string rule_text(const policy_rule& rule);

/// RBAC's RuleAllows: verbs, groups, resources (`*`, `*/scale`), names and non-resource URLs
/// (`/apis/*`) with upstream's wildcards.
bool rule_allows(const policy_rule& rule, const access_request& a);

struct access_decision {
    bool allowed = false;
    /// `RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to ServiceAccount "sa/ns"`, or
    /// for a refusal the errors met (a binding to a role that does not exist), or "".
    std::string reason;
};

/// A role's rule as a binding grants it, for SelfSubjectRulesReview and for the usage record.
struct granted_rule {
    std::string role;    ///< `ClusterRole/NAME` or `Role/NS/NAME`
    std::string binding; ///< upstream's description of the binding and subject
    const policy_rule* rule = nullptr;
};

/// The RBAC objects of the store, parsed once per change of any of them (ClusterRoles with an
/// `aggregationRule` hold their own rules and those of every ClusterRole its selectors match, as
/// the aggregation controller would write them).
class rbac_authorizer {
  public:
    explicit rbac_authorizer(object_store& store) : store_(store) {}

    /// Called for every write of an RBAC object.
    void invalidate() { built_ = false; }

    /// system:masters may do anything; otherwise ClusterRoleBindings, then the RoleBindings of
    /// the request's namespace. `record`: counted in usage() (requests are; reviews are not).
    access_decision authorize(const sim_user& user, const access_request& a, bool record = true);

    /// Every rule that applies to `user` in namespace `ns` ("" = cluster-wide only); `errors`
    /// gets upstream's texts for bindings whose role is missing.
    std::vector<granted_rule> rules_for(const sim_user& user, const std::string& ns,
                                        std::vector<std::string>* errors = nullptr);

    /// Requests allowed by exactly one rule of a role bound to a user outside system:masters,
    /// counted by that rule (`ClusterRole/NAME: RULE TEXT`): a rule with no such request is one
    /// the callers could lose without a refusal. Fed by authorize().
    struct rule_use {
        std::uint64_t sole = 0;         ///< allowed by this rule alone
        std::uint64_t any = 0;          ///< allowed by it, maybe by others too
        std::vector<std::string> verbs; ///< the verbs of the requests it allowed alone
        std::string example;            ///< the first request it allowed alone
    };
    const std::map<std::string, rule_use>& usage() const { return usage_; }

    /// Requests refused with 403, by user: how many, and the first one's message.
    struct refusal {
        std::uint64_t count = 0;
        std::string first;
    };
    void note_refusal(const std::string& user, const std::string& message) {
        refusal& r = refusals_[user];
        if (r.count++ == 0) r.first = message;
    }
    const std::map<std::string, refusal>& refusals() const { return refusals_; }

    void clear_usage() {
        usage_.clear();
        refusals_.clear();
    }

  private:
    struct role {
        std::vector<policy_rule> rules;
    };
    struct subject {
        std::string kind, name, ns;
    };
    struct binding {
        std::string name, ns; ///< ns "" = a ClusterRoleBinding
        std::string role_kind, role_name;
        std::vector<subject> subjects;
    };
    void build();
    const role* role_of(const binding& b, std::string& error) const;
    template <class Visit> void visit(const sim_user& user, const std::string& ns, Visit&& visit);

    object_store& store_;
    bool built_ = false;
    std::uint64_t restores_seen_ = 0;
    std::map<std::string, role> cluster_roles_;
    std::map<std::string, role> roles_; ///< by "NS/NAME"
    std::vector<binding> cluster_bindings_;
    std::map<std::string, std::vector<binding>> role_bindings_; ///< by namespace
    std::map<std::string, rule_use> usage_;
    std::map<std::string, refusal> refusals_;
};

/// The 403 Status of a refused request (responsewriters.Forbidden): `deployments.apps "web" is
/// forbidden: User "u" cannot delete resource "deployments" in API group "apps" in the namespace
/// "default"`, with `: REASON` when the authorizer gave one.
api_error forbidden(const sim_user& user, const access_request& a, const std::string& reason);

/// The ClusterRoles, ClusterRoleBindings and Roles every cluster is bootstrapped with that
/// clients and our manifests rely on: cluster-admin (bound to system:masters), system:discovery,
/// system:public-info-viewer, system:basic-user, system:auth-delegator, and
/// kube-system/extension-apiserver-authentication-reader. Each is "apiVersion/kind" and its JSON.
std::vector<std::string> bootstrap_rbac_objects();

} // namespace hpaplus::sim
