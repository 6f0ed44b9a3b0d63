// The fixture of the controller's integration tests: a simulated cluster with the CRDs, manifests
// for workloads and HPAPlus objects, and readers of what the controller wrote.
#pragma once

#include "controller/runtime/manager.hpp"
#include "support/controller_fixture.hpp"
#include "support/json_access.hpp"

#include <gtest/gtest.h>

namespace hpaplus::test {

using namespace std::chrono_literals;

inline const std::string deployments = "/apis/apps/v1/namespaces/default/deployments/";
inline const std::string hpapluses =
    "/apis/autoscaling.hpaplus.io/v1alpha1/namespaces/default/hpapluses/";

inline std::string deployment(const std::string& name, int replicas, const std::string& load) {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
           "\n  namespace: default\n  annotations: {sim.hpaplus.io/cpu-load: \"" + load +
           "\"}\nspec:\n  replicas: " + std::to_string(replicas) +
           "\n  selector: {matchLabels: {app: " + name +
           "}}\n  template:\n    metadata: {labels: {app: " + name +
           "}}\n    spec:\n      containers:\n      - name: app\n        image: nginx\n"
           "        resources: {requests: {cpu: 500m}}\n";
}

// An HPAPlus on Deployment `name` at 50 % CPU; `extra` is more spec YAML (two-space indent).
inline std::string hpaplus(const std::string& name, const std::string& extra, int min = 1,
                           int max = 10) {
    return "apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: HPAPlus\nmetadata:\n  name: " +
           name +
           "\n  namespace: default\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: "
           "Deployment, name: " +
           name + "}\n  minReplicas: " + std::to_string(min) +
           "\n  maxReplicas: " + std::to_string(max) +
           "\n  metrics:\n  - type: Resource\n    resource: {name: cpu, target: {type: "
           "Utilization, averageUtilization: 50}}\n" +
           extra;
}

inline const std::string hpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/";

// An autoscaling/v2 HPA on Deployment `name` at 50 % CPU; `annotations` is a YAML flow map's
// content, `behavior` more spec YAML (two-space indent).
inline std::string hpa(const std::string& name, const std::string& annotations = "",
                       const std::string& behavior = "", int min = 1, int max = 10) {
    return "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: " + name +
           "\n  namespace: default\n  annotations: {" + annotations +
           "}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: " + name +
           "}\n  minReplicas: " + std::to_string(min) + "\n  maxReplicas: " + std::to_string(max) +
           "\n  metrics:\n  - type: Resource\n    resource: {name: cpu, target: {type: "
           "Utilization, averageUtilization: 50}}\n" +
           behavior;
}

class ControllerTest : public ::testing::Test {
  protected:
    explicit ControllerTest(sim::cluster_options options = fast_cluster()) : sim(options) {
        apply_manifest(sim, read_source_file("crds/hpaplus.yaml"));
        apply_manifest(sim, read_source_file("crds/cronhpa.yaml"));
    }

    static sim::cluster_options fast_cluster() {
        sim::cluster_options o;
        o.api.bookmark_interval = 300ms;
        return o;
    }

    int replicas(const std::string& name) {
        const auto doc = get_json(sim, deployments + name);
        return doc.IsObject() ? std::stoi(str(doc, "/spec/replicas")) : -1;
    }
    int available(const std::string& name) {
        const auto doc = get_json(sim, deployments + name);
        const std::string n = doc.IsObject() ? str(doc, "/status/availableReplicas") : "";
        return n.empty() || n[0] == '<' ? 0 : std::stoi(n);
    }
    std::string status(const std::string& name, const char* pointer) {
        const auto doc = get_json(sim, hpapluses + name);
        return doc.IsObject() ? str(doc, pointer) : "<missing>";
    }
    std::string condition(const std::string& name, const std::string& type) {
        return condition_at(hpapluses + name, type);
    }
    /// "Status Reason" of the condition `type` of the object at `path` ("" when it has none).
    std::string condition_at(const std::string& path, const std::string& type) {
        const auto doc = get_json(sim, path);
        if (!doc.IsObject() || !doc.HasMember("status") || !doc["status"].HasMember("conditions"))
            return "";
        for (const auto& c : doc["status"]["conditions"].GetArray())
            if (type == c["type"].GetString())
                return std::string(c["status"].GetString()) + " " + c["reason"].GetString();
        return "";
    }
    void set_load(const std::string& name, const std::string& load) {
        const auto r = sim.request("PATCH", deployments + name,
                                   R"({"metadata":{"annotations":{"sim.hpaplus.io/cpu-load":")" +
                                       load + R"("}}})",
                                   "application/merge-patch+json");
        ASSERT_EQ(r.status, 200) << r.body;
    }
    bool has_event(const std::string& object, const std::string& reason) {
        const auto doc = get_json(sim, "/api/v1/namespaces/default/events");
        if (!doc.IsObject()) return false;
        for (const auto& e : doc["items"].GetArray())
            if (object == e["involvedObject"]["name"].GetString() &&
                reason == e["reason"].GetString())
                return true;
        return false;
    }
    bool reconciled(const std::string& name) {
        return status(name, "/status/observedGeneration") != "<missing>";
    }

    sim_fixture sim;
};

} // namespace hpaplus::test
