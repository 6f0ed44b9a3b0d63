// sim/resource_type.cpp — the built-in resources (names as the real API server reports them).
#include "sim/resource_type.hpp"

namespace hpaplus::sim {

std::vector<resource_type> builtin_resource_types() {
    std::vector<resource_type> t;
    t.push_back({"",
                 "v1",
                 "namespaces",
                 "namespace",
                 "Namespace",
                 "NamespaceList",
                 {"ns"},
                 {},
                 false,
                 true,
                 {},
                 {},
                 false});
    t.push_back(
        {"", "v1", "pods", "pod", "Pod", "PodList", {"po"}, {"all"}, true, true, {}, {}, false});
    t.push_back({"",
                 "v1",
                 "events",
                 "event",
                 "Event",
                 "EventList",
                 {"ev"},
                 {},
                 true,
                 false,
                 {},
                 {},
                 false});
    t.push_back({"",
                 "v1",
                 "configmaps",
                 "configmap",
                 "ConfigMap",
                 "ConfigMapList",
                 {"cm"},
                 {},
                 true,
                 false,
                 {},
                 {},
                 false});
    t.push_back({"apps",
                 "v1",
                 "deployments",
                 "deployment",
                 "Deployment",
                 "DeploymentList",
                 {"deploy"},
                 {"all"},
                 true,
                 true,
                 scale_paths{".spec.replicas", ".status.replicas", ""},
                 {},
                 false});
    t.push_back({"coordination.k8s.io",
                 "v1",
                 "leases",
                 "lease",
                 "Lease",
                 "LeaseList",
                 {},
                 {},
                 true,
                 false,
                 {},
                 {},
                 false});
    t.push_back({"autoscaling",
                 "v2",
                 "horizontalpodautoscalers",
                 "horizontalpodautoscaler",
                 "HorizontalPodAutoscaler",
                 "HorizontalPodAutoscalerList",
                 {"hpa"},
                 {"all"},
                 true,
                 true,
                 {},
                 {},
                 false});
    t.push_back({"apiextensions.k8s.io",
                 "v1",
                 "customresourcedefinitions",
                 "customresourcedefinition",
                 "CustomResourceDefinition",
                 "CustomResourceDefinitionList",
                 {"crd", "crds"},
                 {},
                 false,
                 true,
                 {},
                 {},
                 false});
    return t;
}

} // namespace hpaplus::sim
