// A ResourceQuota that stalls a scale-up, as on a real cluster: the autoscaler scales the
// Deployment, the ReplicaSet cannot create the pods (FailedCreate, ReplicaFailure on the
// ReplicaSet and the Deployment), and the autoscaler's status reads as kube-controller-manager's
// does: currentReplicas is the Scale's spec.replicas (upstream's reconcileAutoscaler), not the
// pods there are, so the stall shows on the workload, not on the autoscaler — an HPA and an
// HPAPlus alike — until the quota has room.
#include "integration/controller_fixture.hpp"

#include <gtest/gtest.h>

namespace hpaplus::test {
namespace {

class QuotaStall : public ControllerTest {
  protected:
    std::string hpa_status(const std::string& path, const char* pointer) {
        const auto doc = get_json(sim, path);
        return doc.IsObject() ? str(doc, pointer) : "<missing>";
    }
    int pods_of(const std::string& app) {
        const auto doc =
            get_json(sim, "/api/v1/namespaces/default/pods?labelSelector=app%3D" + app);
        return doc.IsObject() ? static_cast<int>(doc["items"].Size()) : -1;
    }
};

TEST_F(QuotaStall, TheStatusShowsTheReplicasThatCouldNotBeCreated) {
    const std::string quotas = "/api/v1/namespaces/default/resourcequotas";
    ASSERT_EQ(
        sim.request("POST", quotas, R"({"metadata":{"name":"room"},"spec":{"hard":{"pods":"6"}}})")
            .status,
        201);
    // Two workloads at 4× their target: each wants 8 pods, the namespace holds 6 in all.
    apply_manifest(sim, deployment("native", 2, "2000m"));
    apply_manifest(sim, deployment("plus", 2, "2000m"));
    apply_manifest(sim,
                   hpa("native", "autoscaling.hpaplus.io/sync-period-seconds: \"1\"", "", 2, 8));
    apply_manifest(sim, hpaplus("plus", "  syncPeriodSeconds: 1\n", 2, 8));
    controller_runner controller(sim, test_controller_options());

    ASSERT_TRUE(eventually(
        [&] {
            return replicas("native") == 8 && replicas("plus") == 8 &&
                   pods_of("native") + pods_of("plus") == 6;
        },
        30s))
        << replicas("native") << " " << replicas("plus") << " " << pods_of("native") << " "
        << pods_of("plus");
    // What KCM's HPA reports: the Scale's spec as currentReplicas, though only some pods exist.
    ASSERT_TRUE(eventually([&] {
        return hpa_status(hpas + "native", "/status/currentReplicas") == "8" &&
               hpa_status(hpapluses + "plus", "/status/currentReplicas") == "8";
    })) << sim.get(hpas + "native").body;
    EXPECT_EQ(hpa_status(hpas + "native", "/status/desiredReplicas"),
              hpa_status(hpapluses + "plus", "/status/desiredReplicas"));
    EXPECT_LT(pods_of("native"), 8);
    EXPECT_LT(pods_of("plus"), 8);
    EXPECT_EQ(condition_at(hpas + "native", "AbleToScale"),
              condition_at(hpapluses + "plus", "AbleToScale"));
    EXPECT_EQ(condition_at(deployments + "native", "ReplicaFailure"), "True FailedCreate");
    EXPECT_EQ(condition_at(deployments + "plus", "ReplicaFailure"), "True FailedCreate");
    EXPECT_TRUE(has_event("native", "SuccessfulRescale"));

    // Room for all: both finish, and the failure is gone.
    ASSERT_EQ(sim.request("PATCH", quotas + "/room", R"({"spec":{"hard":{"pods":"20"}}})",
                          "application/merge-patch+json")
                  .status,
              200);
    EXPECT_TRUE(eventually([&] { return pods_of("native") == 8 && pods_of("plus") == 8; }, 60s))
        << pods_of("native") << " " << pods_of("plus");
    EXPECT_TRUE(eventually([&] {
        return condition_at(deployments + "native", "ReplicaFailure").empty() &&
               condition_at(deployments + "plus", "ReplicaFailure").empty();
    }));
}

// examples/sim/quota-stall.yaml: the LimitRange gives the pods their request, the quota holds four.
TEST_F(QuotaStall, TheExampleStallsAtTheQuotaWithTheLimitRangesRequests) {
    apply_manifest(sim, read_source_file("examples/sim/quota-stall.yaml"));
    controller_runner controller(sim, test_controller_options());
    ASSERT_TRUE(eventually(
        [&] { return condition_at(deployments + "web", "ReplicaFailure") == "True FailedCreate"; },
        30s))
        << sim.get(deployments + "web").body;
    EXPECT_EQ(pods_of("web"), 4);
    const auto pods = get_json(sim, "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb");
    EXPECT_EQ(str(pods["items"][0], "/spec/containers/0/resources/requests/cpu"), "500m");
    EXPECT_EQ(str(pods["items"][0], "/spec/containers/0/resources/limits/memory"), "256Mi");
    EXPECT_TRUE(eventually([&] {
        const auto q = get_json(sim, "/api/v1/namespaces/default/resourcequotas/room");
        return str(q, "/status/used/pods") == "4" && str(q, "/status/used/requests.cpu") == "2";
    }));
}

} // namespace
} // namespace hpaplus::test
