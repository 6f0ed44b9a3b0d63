// Integration tests: the simulated workload model (deployment controller, pod lifecycle, resource
// metrics) observed through the API, with a deadline on every wait.
#include "../support/json_access.hpp"
#include "../support/sim_fixture.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include <cstring>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

using test::eventually;
using test::parse;
using test::str;

using test::paths::deployments;
using test::paths::pods;

std::string deployment(int replicas, const std::string& image = "nginx") {
    return R"({"metadata":{"name":"web","labels":{"app":"web"}},"spec":{"replicas":)" +
           std::to_string(replicas) +
           R"(,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":")" +
           image + R"(","resources":{"requests":{"cpu":"500m"}}}]}}}})";
}

struct SimWorkload : ::testing::Test {
    test::sim_fixture sim;

    std::size_t ready_pods() {
        const auto list = parse(sim.get(pods + "?labelSelector=app%3Dweb").body);
        std::size_t ready = 0;
        for (const auto& p : list["items"].GetArray()) {
            const rapidjson::Value* conditions = rapidjson::Pointer("/status/conditions").Get(p);
            if (!conditions) continue;
            for (const auto& c : conditions->GetArray())
                if (std::string(c["type"].GetString()) == "Ready" &&
                    std::string(c["status"].GetString()) == "True")
                    ++ready;
        }
        return ready;
    }
    std::size_t pod_count() {
        return parse(sim.get(pods + "?labelSelector=app%3Dweb").body)["items"].Size();
    }
};

TEST_F(SimWorkload, DeploymentCreatesReadyPodsAndReportsStatus) {
    ASSERT_EQ(sim.request("POST", deployments, deployment(3)).status, 201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 3; }));
    ASSERT_TRUE(eventually([&] {
        return str(parse(sim.get(deployments + "/web").body), "/status/readyReplicas") == "3";
    }));
    const auto d = parse(sim.get(deployments + "/web").body);
    EXPECT_EQ(str(d, "/status/observedGeneration"), "1");
    EXPECT_EQ(str(d, "/status/updatedReplicas"), "3");
    EXPECT_EQ(str(d, "/status/availableReplicas"), "3");
    EXPECT_EQ(str(d, "/status/unavailableReplicas"), "<missing>"); // zero counters are omitted
    const auto pod = parse(sim.get(pods + "?labelSelector=app%3Dweb").body);
    const auto& first = pod["items"][0];
    EXPECT_EQ(str(first, "/status/phase"), "Running");
    EXPECT_NE(str(first, "/status/startTime"), "<missing>");
    EXPECT_EQ(str(first, "/spec/nodeName"), "sim-node-1");
    EXPECT_EQ(str(first, "/metadata/ownerReferences/0/kind"), "Deployment");
    EXPECT_EQ(str(first, "/spec/containers/0/resources/requests/cpu"), "500m");
}

TEST_F(SimWorkload, ScaleSubresourceDrivesPods) {
    ASSERT_EQ(sim.request("POST", deployments, deployment(2)).status, 201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 2; }));
    sim.request("PATCH", deployments + "/web/scale", R"({"spec":{"replicas":5}})",
                "application/merge-patch+json");
    EXPECT_TRUE(eventually([&] { return ready_pods() == 5; }));
    EXPECT_TRUE(eventually([&] {
        return str(parse(sim.get(deployments + "/web/scale").body), "/status/replicas") == "5";
    }));
    sim.request("PATCH", deployments + "/web/scale", R"({"spec":{"replicas":1}})",
                "application/merge-patch+json");
    EXPECT_TRUE(eventually([&] { return pod_count() == 1; }));
    sim.request("PATCH", deployments + "/web/scale", R"({"spec":{"replicas":0}})",
                "application/merge-patch+json");
    EXPECT_TRUE(eventually([&] { return pod_count() == 0; }));
}

TEST_F(SimWorkload, TemplateChangeRollsOut) {
    ASSERT_EQ(sim.request("POST", deployments, deployment(3)).status, 201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 3; }));
    const std::string old_hash =
        str(parse(sim.get(pods).body), "/items/0/metadata/labels/pod-template-hash");
    sim.request(
        "PATCH", deployments + "/web",
        R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:2"}]}}}})",
        "application/merge-patch+json");
    // mid-rollout the generation is ahead of the pods: never fewer than 3 - 25 % ready
    ASSERT_TRUE(eventually([&] {
        const auto d = parse(sim.get(deployments + "/web").body);
        return str(d, "/status/updatedReplicas") == "3" && str(d, "/status/replicas") == "3" &&
               str(d, "/status/readyReplicas") == "3" &&
               str(d, "/status/observedGeneration") == "2";
    }));
    const auto list = parse(sim.get(pods).body);
    for (const auto& p : list["items"].GetArray())
        EXPECT_NE(str(p, "/metadata/labels/pod-template-hash"), old_hash);
    EXPECT_EQ(str(parse(sim.get(deployments + "/web").body), "/status/conditions/1/reason"),
              "NewReplicaSetAvailable");
}

TEST_F(SimWorkload, ResourceMetricsFollowTheLoad) {
    ASSERT_EQ(sim.request("POST", deployments, deployment(2)).status, 201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 2; }));
    sim.request(
        "PATCH", deployments + "/web",
        R"({"metadata":{"annotations":{"sim.hpaplus.io/cpu-load":"1500m","sim.hpaplus.io/memory-per-pod":"128Mi"}}})",
        "application/merge-patch+json");
    const auto metrics = parse(
        sim.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dweb")
            .body);
    ASSERT_EQ(str(metrics, "/kind"), "PodMetricsList");
    ASSERT_EQ(metrics["items"].Size(), 2u);
    EXPECT_EQ(str(metrics, "/items/0/containers/0/usage/cpu"),
              "750000000n"); // 1.5 CPU over 2 ready pods
    EXPECT_EQ(str(metrics, "/items/0/containers/0/usage/memory"), "131072Ki");
    EXPECT_EQ(str(metrics, "/items/0/window"), "15s");
    EXPECT_EQ(str(metrics, "/items/0/metadata/labels/app"), "web");
    const std::string name = str(metrics, "/items/0/metadata/name");
    EXPECT_EQ(
        str(parse(sim.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/" + name).body),
            "/kind"),
        "PodMetrics");
    EXPECT_EQ(sim.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope").status, 404);
    EXPECT_EQ(
        str(parse(sim.get("/apis/metrics.k8s.io/v1beta1/nodes").body), "/items/0/metadata/name"),
        "sim-node-1");
    EXPECT_EQ(
        sim.request("POST", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", "{}").status,
        405);
    // discovery lists the group so that kubectl top finds it
    EXPECT_EQ(str(parse(sim.get("/apis/metrics.k8s.io/v1beta1").body), "/resources/0/verbs/1"),
              "list");
    // scaling up spreads the same load over more pods
    sim.request("PATCH", deployments + "/web/scale", R"({"spec":{"replicas":3}})",
                "application/merge-patch+json");
    ASSERT_TRUE(eventually([&] { return ready_pods() == 3; }));
    EXPECT_EQ(str(parse(sim.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods").body),
                  "/items/0/containers/0/usage/cpu"),
              "500000000n");
}

TEST_F(SimWorkload, EvictionRespectsDisruptionBudgets) {
    ASSERT_EQ(sim.request("POST", deployments, deployment(3)).status, 201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 3; }));
    ASSERT_EQ(
        sim.request(
               "POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
               R"({"metadata":{"name":"web"},"spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"web"}}}})")
            .status,
        201);
    const std::string first = str(parse(sim.get(pods).body), "/items/0/metadata/name");
    auto evict = [&](const std::string& name) {
        return sim.request("POST", pods + "/" + name + "/eviction",
                           R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" +
                               name + R"("}})");
    };
    const auto allowed = evict(first);
    EXPECT_EQ(allowed.status, 201) << allowed.body;
    EXPECT_EQ(sim.get(pods + "/" + first).status, 404);
    // two healthy left: evicting another would break minAvailable 2
    const std::string second = str(parse(sim.get(pods).body), "/items/0/metadata/name");
    const auto refused = evict(second);
    EXPECT_EQ(refused.status, 429);
    EXPECT_EQ(str(parse(refused.body), "/message"),
              "Cannot evict pod as it would violate the pod's disruption budget.");
    EXPECT_EQ(str(parse(refused.body), "/details/causes/0/reason"), "DisruptionBudget");
    // the deployment replaces the evicted pod; once it is ready, eviction is allowed again
    ASSERT_TRUE(eventually([&] { return ready_pods() == 3; }));
    EXPECT_EQ(evict(second).status, 201);
}

TEST_F(SimWorkload, ABudgetWithAPercentageThatIsNoIntegerIsIgnoredNotFatal) {
    ASSERT_EQ(sim.request("POST", deployments, deployment(2)).status, 201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 2; }));
    // "abc%" made the sim's std::stod throw (the process ended); "50%" still counts.
    for (const char* bad : {"abc%", "1e999%", "%", "-5%"}) {
        const std::string name = std::string("bad-") + std::to_string(std::strlen(bad));
        ASSERT_EQ(sim.request("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
                              R"({"metadata":{"name":")" + name + R"("},"spec":{"minAvailable":")" +
                                  bad + R"(","selector":{"matchLabels":{"app":"web"}}}})")
                      .status,
                  201);
    }
    const std::string first = str(parse(sim.get(pods).body), "/items/0/metadata/name");
    EXPECT_EQ(sim.request("POST", pods + "/" + first + "/eviction",
                          R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" +
                              first + R"("}})")
                  .status,
              201);
}

TEST_F(SimWorkload, InPlaceResizeIsActuatedWithoutRestart) {
    ASSERT_EQ(sim.request("POST", deployments, deployment(1)).status, 201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 1; }));
    const std::string name = str(parse(sim.get(pods).body), "/items/0/metadata/name");
    const auto resized = sim.request(
        "PATCH", pods + "/" + name + "/resize",
        R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"800m"}}}]}})",
        "application/strategic-merge-patch+json");
    ASSERT_EQ(resized.status, 200) << resized.body;
    EXPECT_EQ(str(parse(resized.body), "/spec/containers/0/resources/requests/cpu"), "800m");
    ASSERT_TRUE(eventually([&] {
        const auto p = parse(sim.get(pods + "/" + name).body);
        return str(p, "/status/containerStatuses/0/resources/requests/cpu") == "800m";
    }));
    const auto p = parse(sim.get(pods + "/" + name).body);
    EXPECT_EQ(str(p, "/status/containerStatuses/0/restartCount"), "0");
    for (const auto& c : p["status"]["conditions"].GetArray())
        EXPECT_NE(std::string(c["type"].GetString()).rfind("PodResize", 0), 0u);
}

TEST_F(SimWorkload, ResizeBeyondTheNodeIsInfeasible) {
    ASSERT_EQ(sim.request("POST", deployments, deployment(1)).status, 201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 1; }));
    const std::string name = str(parse(sim.get(pods).body), "/items/0/metadata/name");
    ASSERT_EQ(
        sim.request(
               "PATCH", pods + "/" + name + "/resize",
               R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"64"}}}]}})",
               "application/strategic-merge-patch+json")
            .status,
        200);
    EXPECT_TRUE(eventually([&] {
        const auto p = parse(sim.get(pods + "/" + name).body);
        for (const auto& c : p["status"]["conditions"].GetArray())
            if (std::string(c["type"].GetString()) == "PodResizePending")
                return str(c, "/reason") == "Infeasible";
        return false;
    }));
}

TEST_F(SimWorkload, ResizeRulesAndPodImmutability) {
    const std::string pod =
        R"({"metadata":{"name":"solo"},"spec":{"containers":[{"name":"app","image":"x","resources":{"requests":{"cpu":"100m"}}}]}})";
    ASSERT_EQ(sim.request("POST", pods, pod).status, 201);
    // resources change only through pods/resize
    const auto direct = sim.request(
        "PATCH", pods + "/solo",
        R"({"spec":{"containers":[{"name":"app","image":"x","resources":{"requests":{"cpu":"200m"}}}]}})",
        "application/merge-patch+json");
    EXPECT_EQ(direct.status, 422);
    EXPECT_EQ(
        sim.request(
               "PATCH", pods + "/solo",
               R"({"spec":{"containers":[{"name":"app","image":"y","resources":{"requests":{"cpu":"100m"}}}]}})",
               "application/merge-patch+json")
            .status,
        200); // images may change
    // a resize may not change the QoS class (Burstable → Guaranteed) nor anything but resources
    const auto qos = sim.request(
        "PATCH", pods + "/solo/resize",
        R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"100m","memory":"64Mi"},"requests":{"memory":"64Mi"}}}]}})",
        "application/strategic-merge-patch+json");
    EXPECT_EQ(qos.status, 422);
    EXPECT_NE(str(parse(qos.body), "/message").find("QOS Class"), std::string::npos);
    const auto other =
        sim.request("PATCH", pods + "/solo/resize",
                    R"([{"op":"replace","path":"/spec/containers/0/image","value":"z"}])",
                    "application/json-patch+json");
    EXPECT_EQ(other.status, 422);
    EXPECT_EQ(
        sim.request(
               "PATCH", pods + "/solo/resize",
               R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"lots"}}}]}})",
               "application/strategic-merge-patch+json")
            .status,
        422);
    EXPECT_EQ(sim.request("GET", pods + "/solo/resize").status, 200);
}

} // namespace
} // namespace hpaplus
