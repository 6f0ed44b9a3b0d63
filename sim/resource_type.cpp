// sim/resource_type.cpp — the built-in resources (names as the real API server reports them).
#include "sim/resource_type.hpp"

#include <tuple>

namespace hpaplus::sim {
namespace {

struct builtin {
    const char* group;
    const char* plural;
    const char* kind;
    std::vector<std::string> short_names;
    std::vector<std::string> categories;
    bool namespaced;
    bool status_subresource;
    std::optional<scale_paths> scale = std::nullopt;
    const char* version = "v1";
};

resource_type make(const builtin& b) {
    const std::string singular = ascii_lower(b.kind);
    resource_type t;
    t.group = b.group;
    t.version = b.version;
    t.plural = b.plural;
    t.singular = std::move(singular);
    t.kind = b.kind;
    t.list_kind = std::string(b.kind) + "List";
    t.short_names = b.short_names;
    t.categories = b.categories;
    t.namespaced = b.namespaced;
    t.status_subresource = b.status_subresource;
    t.scale = b.scale;
    return t;
}

} // namespace

std::vector<resource_type> builtin_resource_types() {
    const scale_paths replicas{".spec.replicas", ".status.replicas", ""};
    std::vector<resource_type> t;
    t.push_back(make({"", "namespaces", "Namespace", {"ns"}, {}, false, true}));
    t.push_back(make({"", "pods", "Pod", {"po"}, {"all"}, true, true}));
    t.push_back(make({"", "nodes", "Node", {"no"}, {}, false, true}));
    t.push_back(make({"", "events", "Event", {"ev"}, {}, true, false}));
    t.back().converted = {{"events.k8s.io", "v1"}};
    t.push_back(make({"", "configmaps", "ConfigMap", {"cm"}, {}, true, false}));
    t.push_back(make({"", "secrets", "Secret", {}, {}, true, false}));
    // What bounds pods' resources (sim/apiserver/pod_limits: LimitRanger and ResourceQuota).
    t.push_back(make({"", "limitranges", "LimitRange", {"limits"}, {}, true, false}));
    t.push_back(make({"", "resourcequotas", "ResourceQuota", {"quota"}, {}, true, true}));
    // Stored as given (defaulted where the real server defaults): what `kubectl apply -k deploy/`
    // installs beside the workloads.
    t.push_back(make({"", "serviceaccounts", "ServiceAccount", {"sa"}, {}, true, false}));
    t.push_back(make({"", "services", "Service", {"svc"}, {"all"}, true, true}));
    // Where the aggregation layer sends an APIService's requests (no endpoints controller: they
    // are written by hand, and may point at 127.0.0.1).
    t.push_back(make({"", "endpoints", "Endpoints", {"ep"}, {}, true, false}));
    t.push_back(make({"discovery.k8s.io", "endpointslices", "EndpointSlice", {}, {}, true, false}));
    t.push_back(make({"apiregistration.k8s.io",
                      "apiservices",
                      "APIService",
                      {},
                      {"api-extensions"},
                      false,
                      true}));
    for (const auto& [group, plural, kind, namespaced] :
         {std::tuple{"authentication.k8s.io", "tokenreviews", "TokenReview", false},
          std::tuple{"authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview", false},
          std::tuple{"authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", false},
          std::tuple{"authorization.k8s.io", "localsubjectaccessreviews",
                     "LocalSubjectAccessReview", true},
          std::tuple{"authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview",
                     false},
          std::tuple{"authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview",
                     false}}) {
        t.push_back(make({group, plural, kind, {}, {}, namespaced, false}));
        t.back().create_only = true;
    }
    for (const auto& [plural, kind, namespaced] :
         {std::tuple{"roles", "Role", true}, std::tuple{"rolebindings", "RoleBinding", true},
          std::tuple{"clusterroles", "ClusterRole", false},
          std::tuple{"clusterrolebindings", "ClusterRoleBinding", false}})
        t.push_back(make({"rbac.authorization.k8s.io", plural, kind, {}, {}, namespaced, false}));
    t.push_back(
        make({"flowcontrol.apiserver.k8s.io", "flowschemas", "FlowSchema", {}, {}, false, true}));
    t.push_back(
        make({"apps", "deployments", "Deployment", {"deploy"}, {"all"}, true, true, replicas}));
    t.push_back(make({"apps", "replicasets", "ReplicaSet", {"rs"}, {"all"}, true, true, replicas}));
    t.push_back(
        make({"apps", "statefulsets", "StatefulSet", {"sts"}, {"all"}, true, true, replicas}));
    t.push_back(make({"apps", "daemonsets", "DaemonSet", {"ds"}, {"all"}, true, true}));
    // A StatefulSet's (and a DaemonSet's) past templates, written by its controller.
    t.push_back(make({"apps", "controllerrevisions", "ControllerRevision", {}, {}, true, false}));
    t.push_back(make({"batch", "jobs", "Job", {}, {"all"}, true, true}));
    t.push_back(make(
        {"networking.k8s.io", "networkpolicies", "NetworkPolicy", {"netpol"}, {}, true, false}));
    t.push_back(
        make({"scheduling.k8s.io", "priorityclasses", "PriorityClass", {"pc"}, {}, false, false}));
    t.push_back(
        make({"policy", "poddisruptionbudgets", "PodDisruptionBudget", {"pdb"}, {}, true, true}));
    t.push_back(make({"admissionregistration.k8s.io",
                      "mutatingwebhookconfigurations",
                      "MutatingWebhookConfiguration",
                      {},
                      {"api-extensions"},
                      false,
                      false}));
    t.push_back(make({"coordination.k8s.io", "leases", "Lease", {}, {}, true, false}));
    // Stored as v2 and served as v1 too (sim/apiserver/hpa_versions).
    t.push_back(make({"autoscaling",
                      "horizontalpodautoscalers",
                      "HorizontalPodAutoscaler",
                      {"hpa"},
                      {"all"},
                      true,
                      true,
                      std::nullopt,
                      "v2"}));
    t.back().converted = {{"autoscaling", "v1"}};
    t.push_back(make({"apiextensions.k8s.io",
                      "customresourcedefinitions",
                      "CustomResourceDefinition",
                      {"crd", "crds"},
                      {},
                      false,
                      true}));
    return t;
}

} // namespace hpaplus::sim
