// Integration tests: the simulated workload model (deployment controller, pod lifecycle, resource
// metrics) observed through the API, with a deadline on every wait.
#include "../support/json_access.hpp"
#include "../support/sim_fixture.hpp"
#include "core/time.hpp"

#include <gtest/gtest.h>

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <set>

#include <cstring>
#include <map>
#include <thread>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

using test::eventually;
using test::parse;
using test::str;

using test::paths::deployments;
using test::paths::pods;
const std::string replicasets = "/apis/apps/v1/namespaces/default/replicasets";
const std::string statefulsets = "/apis/apps/v1/namespaces/default/statefulsets";

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
            if (!conditions || p["metadata"].HasMember("deletionTimestamp")) continue;
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
    EXPECT_EQ(str(first, "/spec/containers/0/resources/requests/cpu"), "500m");
    // Deployment → ReplicaSet `web-<pod-template-hash>` → pod `web-<hash>-xxxxx`, as upstream.
    const std::string hash = str(first, "/metadata/labels/pod-template-hash");
    EXPECT_EQ(str(first, "/metadata/ownerReferences/0/kind"), "ReplicaSet");
    EXPECT_EQ(str(first, "/metadata/ownerReferences/0/name"), "web-" + hash);
    EXPECT_EQ(str(first, "/metadata/name").rfind("web-" + hash + "-", 0), 0u);
    const auto rs = parse(sim.get(replicasets + "/web-" + hash).body);
    EXPECT_EQ(str(rs, "/metadata/ownerReferences/0/kind"), "Deployment");
    EXPECT_EQ(str(rs, "/metadata/ownerReferences/0/uid"), str(d, "/metadata/uid"));
    EXPECT_EQ(str(rs, "/metadata/ownerReferences/0/controller"), "true");
    EXPECT_EQ(str(rs, "/spec/selector/matchLabels/pod-template-hash"), hash);
    EXPECT_EQ(str(rs, "/metadata/annotations/deployment.kubernetes.io~1revision"), "1");
    EXPECT_EQ(str(rs, "/status/readyReplicas"), "3");
    EXPECT_EQ(str(d, "/metadata/annotations/deployment.kubernetes.io~1revision"), "1");
    // Deployment conditions carry lastUpdateTime and lastTransitionTime, never lastProbeTime.
    for (const auto& c : d["status"]["conditions"].GetArray()) {
        EXPECT_TRUE(c.HasMember("lastUpdateTime")) << str(c, "/type");
        EXPECT_TRUE(c.HasMember("lastTransitionTime")) << str(c, "/type");
        EXPECT_FALSE(c.HasMember("lastProbeTime")) << str(c, "/type");
    }
}

// What the real API server fills in (upstream's SetDefaults_* and the admission plugins every
// pod passes), so typed clients find every field they require.
TEST_F(SimWorkload, TheServerDefaultsPodsAndWorkloadsAsTheRealOneDoes) {
    ASSERT_EQ(sim.request("POST", deployments, deployment(1, "registry.k8s.io/pause:3.9")).status,
              201);
    const auto d = parse(sim.get(deployments + "/web").body);
    EXPECT_EQ(str(d, "/spec/strategy/type"), "RollingUpdate");
    EXPECT_EQ(str(d, "/spec/strategy/rollingUpdate/maxSurge"), "25%");
    EXPECT_EQ(str(d, "/spec/strategy/rollingUpdate/maxUnavailable"), "25%");
    EXPECT_EQ(str(d, "/spec/revisionHistoryLimit"), "10");
    EXPECT_EQ(str(d, "/spec/progressDeadlineSeconds"), "600");
    EXPECT_EQ(str(d, "/spec/template/spec/restartPolicy"), "Always");
    EXPECT_EQ(str(d, "/spec/template/spec/containers/0/imagePullPolicy"), "IfNotPresent");
    EXPECT_EQ(str(d, "/spec/template/spec/enableServiceLinks"), "<missing>"); // pods only

    const auto r = sim.request("POST", pods, R"({"metadata":{"name":"solo"},"spec":{"containers":[
        {"name":"a","image":"nginx","ports":[{"containerPort":80}],
         "readinessProbe":{"httpGet":{"port":80}},
         "resources":{"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"250m"}}},
        {"name":"b","image":"nginx@sha256:0123","imagePullPolicy":"Never"}]}})");
    ASSERT_EQ(r.status, 201) << r.body;
    const auto pod = parse(r.body);
    EXPECT_EQ(str(pod, "/spec/restartPolicy"), "Always");
    EXPECT_EQ(str(pod, "/spec/dnsPolicy"), "ClusterFirst");
    EXPECT_EQ(str(pod, "/spec/terminationGracePeriodSeconds"), "30");
    EXPECT_EQ(str(pod, "/spec/schedulerName"), "default-scheduler");
    EXPECT_EQ(str(pod, "/spec/serviceAccountName"), "default");
    EXPECT_EQ(str(pod, "/spec/enableServiceLinks"), "true");
    EXPECT_EQ(str(pod, "/spec/priority"), "0");
    EXPECT_EQ(str(pod, "/spec/tolerations/0/key"), "node.kubernetes.io/not-ready");
    EXPECT_EQ(str(pod, "/spec/tolerations/1/tolerationSeconds"), "300");
    EXPECT_EQ(str(pod, "/spec/containers/0/imagePullPolicy"), "Always"); // no tag: latest
    EXPECT_EQ(str(pod, "/spec/containers/1/imagePullPolicy"), "Never");  // given: kept
    EXPECT_EQ(str(pod, "/spec/containers/0/terminationMessagePath"), "/dev/termination-log");
    EXPECT_EQ(str(pod, "/spec/containers/0/ports/0/protocol"), "TCP");
    EXPECT_EQ(str(pod, "/spec/containers/0/readinessProbe/periodSeconds"), "10");
    EXPECT_EQ(str(pod, "/spec/containers/0/readinessProbe/httpGet/scheme"), "HTTP");
    // Requests default to the limits, resource by resource: what HPA utilization is measured on.
    EXPECT_EQ(str(pod, "/spec/containers/0/resources/requests/cpu"), "250m");
    EXPECT_EQ(str(pod, "/spec/containers/0/resources/requests/memory"), "1Gi");
    // An update that leaves the defaulted fields out is defaulted again, not refused as a change
    // of the pod's spec.
    const auto put = sim.request("PUT", pods + "/solo",
                                 R"({"metadata":{"name":"solo",
        "resourceVersion":")" + str(pod, "/metadata/resourceVersion") +
                                     R"(","labels":{"x":"y"}},"spec":{"containers":[
        {"name":"a","image":"nginx","ports":[{"containerPort":80}],
         "readinessProbe":{"httpGet":{"port":80}},
         "resources":{"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"250m"}}},
        {"name":"b","image":"nginx@sha256:0123","imagePullPolicy":"Never"}]}})");
    EXPECT_EQ(put.status, 200) << put.body;
}

// kubectl rollout undo puts an older template back: its ReplicaSet is used again and gets the
// next revision; deleting the Deployment removes its ReplicaSets and pods.
TEST_F(SimWorkload, ARollbackReusesItsReplicaSetAndDeletionCascades) {
    ASSERT_EQ(sim.request("POST", deployments, deployment(2)).status, 201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 2; }));
    const std::string first =
        str(parse(sim.get(pods).body), "/items/0/metadata/labels/pod-template-hash");
    auto set_image = [&](const char* image) {
        const auto r = sim.request(
            "PATCH", deployments + "/web",
            std::string(R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":")") +
                image + R"("}]}}}})",
            "application/strategic-merge-patch+json");
        ASSERT_EQ(r.status, 200) << r.body;
    };
    auto rolled_out = [&] {
        const auto d = parse(sim.get(deployments + "/web").body);
        return str(d, "/status/updatedReplicas") == "2" && str(d, "/status/replicas") == "2" &&
               str(d, "/status/readyReplicas") == "2" &&
               str(d, "/status/observedGeneration") == str(d, "/metadata/generation");
    };
    set_image("nginx:2");
    ASSERT_TRUE(eventually(rolled_out));
    set_image("nginx");
    ASSERT_TRUE(eventually(rolled_out));
    const auto sets = parse(sim.get(replicasets).body);
    ASSERT_EQ(sets["items"].Size(), 2u) << "the first ReplicaSet is used again";
    EXPECT_EQ(str(parse(sim.get(pods).body), "/items/0/metadata/labels/pod-template-hash"), first);
    EXPECT_EQ(str(parse(sim.get(replicasets + "/web-" + first).body),
                  "/metadata/annotations/deployment.kubernetes.io~1revision"),
              "3");
    ASSERT_EQ(sim.request("DELETE", deployments + "/web").status, 200);
    EXPECT_TRUE(eventually(
        [&] { return parse(sim.get(replicasets).body)["items"].Empty() && pod_count() == 0; }));
}

// propagationPolicy as the garbage collector carries it out: Orphan keeps the ReplicaSet and its
// pods, without the reference to the Deployment; Foreground marks the Deployment
// (deletionTimestamp, the foregroundDeletion finalizer) and deletes its dependents before it.
TEST_F(SimWorkload, DeletionPropagationOrphanAndForeground) {
    ASSERT_EQ(sim.request("POST", deployments, deployment(2)).status, 201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 2; }));
    const auto orphaned = sim.request("DELETE", deployments + "/web",
                                      R"({"kind":"DeleteOptions","apiVersion":"v1",)"
                                      R"("propagationPolicy":"Orphan"})");
    ASSERT_EQ(orphaned.status, 200) << orphaned.body;
    EXPECT_EQ(str(parse(orphaned.body), "/metadata/finalizers/0"), "orphan");
    EXPECT_EQ(sim.get(deployments + "/web").status, 404);
    std::this_thread::sleep_for(500ms); // the garbage collector's steps pass
    const auto kept = parse(sim.get(replicasets).body);
    ASSERT_EQ(kept["items"].Size(), 1u);
    EXPECT_EQ(str(kept["items"][0], "/metadata/ownerReferences"), "<missing>");
    EXPECT_EQ(pod_count(), 2u);
    const std::string rs = str(kept["items"][0], "/metadata/name");
    ASSERT_EQ(sim.request("DELETE", replicasets + "/" + rs).status, 200);
    ASSERT_TRUE(eventually([&] { return pod_count() == 0; }));

    ASSERT_EQ(sim.request("POST", deployments, deployment(2)).status, 201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 2; }));
    const std::string rv =
        str(parse(sim.get(deployments + "/web").body), "/metadata/resourceVersion");
    const auto foreground =
        sim.request("DELETE", deployments + "/web?propagationPolicy=Foreground");
    ASSERT_EQ(foreground.status, 200) << foreground.body;
    EXPECT_EQ(str(parse(foreground.body), "/metadata/finalizers/0"), "foregroundDeletion");
    EXPECT_NE(str(parse(foreground.body), "/metadata/deletionTimestamp"), "<missing>");
    // Every pod and the ReplicaSet went before the Deployment (one resourceVersion sequence).
    const auto deployment_events =
        sim.watch(deployments + "?watch=1&resourceVersion=" + rv + "&timeoutSeconds=1", 2, 3s);
    ASSERT_EQ(deployment_events.size(), 2u);
    EXPECT_EQ(str(parse(deployment_events[0]), "/type"), "MODIFIED");
    EXPECT_EQ(str(parse(deployment_events[1]), "/type"), "DELETED");
    const auto deleted_at =
        std::stoull(str(parse(deployment_events[1]), "/object/metadata/resourceVersion"));
    const auto pod_events =
        sim.watch(pods + "?watch=1&resourceVersion=" + rv + "&timeoutSeconds=1", 1000, 3s);
    int pods_deleted = 0;
    for (const auto& line : pod_events) {
        const auto e = parse(line);
        if (str(e, "/type") != "DELETED") continue;
        ++pods_deleted;
        EXPECT_LT(std::stoull(str(e, "/object/metadata/resourceVersion")), deleted_at);
    }
    EXPECT_EQ(pods_deleted, 2);
    EXPECT_TRUE(parse(sim.get(replicasets).body)["items"].Empty());
}

std::string stateful_set(int replicas, const std::string& image, const std::string& more = "") {
    return R"({"metadata":{"name":"db"},"spec":{"serviceName":"db","replicas":)" +
           std::to_string(replicas) + more +
           R"(,"selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"db","image":")" +
           image + R"("}]}}}})";
}

// Ordered pods db-0, db-1, ... each waiting for the one before to be Ready; /scale; a rolling
// update from the highest ordinal down to the partition; the revisions in the status.
TEST_F(SimWorkload, StatefulSetsCreateInOrderScaleAndRollByPartition) {
    auto sim_pods = [&] {
        std::map<std::string, std::pair<bool, std::string>> out; // name → ready, revision
        const auto list = parse(sim.get(pods + "?labelSelector=app%3Ddb").body);
        for (const auto& p : list["items"].GetArray()) {
            bool ready = false;
            if (const auto* c = rapidjson::Pointer("/status/conditions").Get(p); c && c->IsArray())
                for (const auto& x : c->GetArray())
                    ready = ready || (str(x, "/type") == "Ready" && str(x, "/status") == "True");
            out[str(p, "/metadata/name")] = {ready,
                                             str(p, "/metadata/labels/controller-revision-hash")};
        }
        return out;
    };
    ASSERT_EQ(sim.request("POST", statefulsets, stateful_set(3, "postgres:16")).status, 201);
    // db-1 never exists before db-0 is Ready, nor db-2 before db-1.
    bool ordered = true;
    ASSERT_TRUE(eventually(
        [&] {
            const auto now = sim_pods();
            for (int i = 1; i < 3; ++i) {
                const auto before = now.find("db-" + std::to_string(i - 1));
                if (now.count("db-" + std::to_string(i)) &&
                    (before == now.end() || !before->second.first))
                    ordered = false;
            }
            return now.size() == 3 && now.at("db-2").first;
        },
        10s, 20ms));
    EXPECT_TRUE(ordered);
    rapidjson::Document set;
    ASSERT_TRUE(eventually([&] { // the status follows within a tick
        set = parse(sim.get(statefulsets + "/db").body);
        return str(set, "/status/readyReplicas") == "3";
    }));
    EXPECT_EQ(str(set, "/spec/podManagementPolicy"), "OrderedReady"); // defaulted
    EXPECT_EQ(str(set, "/spec/updateStrategy/rollingUpdate/partition"), "0");
    const std::string first_revision = str(set, "/status/updateRevision");
    EXPECT_EQ(str(set, "/status/currentRevision"), first_revision);
    const auto pod = parse(sim.get(pods + "/db-0").body);
    EXPECT_EQ(str(pod, "/metadata/ownerReferences/0/kind"), "StatefulSet");
    EXPECT_EQ(str(pod, "/spec/hostname"), "db-0");
    EXPECT_EQ(str(pod, "/spec/subdomain"), "db");
    EXPECT_EQ(str(pod, "/metadata/labels/apps.kubernetes.io~1pod-index"), "0");

    // Scale through /scale: up to 4, then down to 2 (highest ordinals go).
    auto r = sim.request("PATCH", statefulsets + "/db/scale", R"({"spec":{"replicas":4}})",
                         "application/merge-patch+json");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_NE(r.body.find(R"("selector":"app=db")"), std::string::npos) << r.body;
    ASSERT_TRUE(eventually([&] { return sim_pods().size() == 4; }));
    // Scaling down deletes as through the API: db-3 is Terminating first, and OrderedReady waits
    // for it to be gone before db-2 goes.
    sim.request("PATCH", statefulsets + "/db/scale", R"({"spec":{"replicas":2}})",
                "application/merge-patch+json");
    bool seen_terminating = false, overlapped = false;
    ASSERT_TRUE(eventually(
        [&] {
            std::set<std::string> terminating, present;
            const auto list = parse(sim.get(pods + "?labelSelector=app%3Ddb").body);
            for (const auto& p : list["items"].GetArray()) {
                present.insert(str(p, "/metadata/name"));
                if (rapidjson::Pointer("/metadata/deletionTimestamp").Get(p))
                    terminating.insert(str(p, "/metadata/name"));
            }
            seen_terminating = seen_terminating || terminating.count("db-3");
            overlapped = overlapped || (terminating.count("db-2") && present.count("db-3"));
            return present == std::set<std::string>{"db-0", "db-1"};
        },
        10s, 20ms));
    EXPECT_TRUE(seen_terminating);
    EXPECT_FALSE(overlapped);

    // A new template with partition 1: only db-1 moves to the new revision.
    r = sim.request("PATCH", statefulsets + "/db",
                    R"({"spec":{"updateStrategy":{"rollingUpdate":{"partition":1}},)"
                    R"("template":{"spec":{"containers":[{"name":"db","image":"postgres:17"}]}}}})",
                    "application/strategic-merge-patch+json");
    ASSERT_EQ(r.status, 200) << r.body;
    std::string second_revision;
    ASSERT_TRUE(eventually([&] {
        set = parse(sim.get(statefulsets + "/db").body);
        second_revision = str(set, "/status/updateRevision");
        const auto now = sim_pods();
        return second_revision != first_revision && now.size() == 2 &&
               now.at("db-1").second == second_revision && now.at("db-1").first;
    }));
    std::this_thread::sleep_for(500ms); // a few more ticks: db-0 stays
    EXPECT_EQ(sim_pods().at("db-0").second, first_revision);
    set = parse(sim.get(statefulsets + "/db").body);
    EXPECT_EQ(str(set, "/status/updatedReplicas"), "1");
    EXPECT_EQ(str(set, "/status/currentRevision"), first_revision);

    // Each template is a ControllerRevision named as the pods' revision label, numbered in order,
    // owned by the set; a pod below the partition comes back with the current revision's template.
    const std::string revisions = "/apis/apps/v1/namespaces/default/controllerrevisions";
    auto revision = parse(sim.get(revisions + "/" + first_revision).body);
    EXPECT_EQ(str(revision, "/revision"), "1");
    EXPECT_EQ(str(revision, "/metadata/ownerReferences/0/name"), "db");
    EXPECT_EQ(str(revision, "/metadata/labels/app"), "db");
    EXPECT_EQ("db-" + str(revision, "/metadata/labels/controller.kubernetes.io~1hash"),
              first_revision);
    EXPECT_EQ(str(revision, "/data/spec/template/spec/containers/0/image"), "postgres:16");
    EXPECT_EQ(str(revision, "/data/spec/template/$patch"), "replace");
    EXPECT_EQ(str(parse(sim.get(revisions + "/" + second_revision).body), "/revision"), "2");
    ASSERT_EQ(sim.request("DELETE", pods + "/db-0", R"({"gracePeriodSeconds":0})").status, 200);
    ASSERT_TRUE(eventually([&] {
        const auto p = parse(sim.get(pods + "/db-0").body);
        return !rapidjson::Pointer("/metadata/deletionTimestamp").Get(p) &&
               str(p, "/metadata/labels/controller-revision-hash") == first_revision;
    }));
    EXPECT_EQ(str(parse(sim.get(pods + "/db-0").body), "/spec/containers/0/image"), "postgres:16");
    // The set deleted, its revisions go with it (the garbage collector).
    ASSERT_EQ(sim.request("DELETE", statefulsets + "/db").status, 200);
    EXPECT_TRUE(eventually([&] { return parse(sim.get(revisions).body)["items"].Empty(); }));
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

// The workload model follows the store's changes between steps; a store restored from a backup
// tells no one, so the model must start over from what the store then holds: here, a ReplicaSet
// whose third pod vanished with the restore has to make it again when scaled back to 3.
TEST_F(SimWorkload, AStoreRestoredFromABackupIsFollowedFromScratch) {
    ASSERT_EQ(sim.request("POST", deployments, deployment(2)).status, 201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 2; }));
    sim.request("POST", "/sim/v1/snapshot");
    auto scale = [&](int replicas) {
        return sim.request("PATCH", deployments + "/web/scale",
                           R"({"spec":{"replicas":)" + std::to_string(replicas) + "}}",
                           "application/merge-patch+json");
    };
    scale(3);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 3; }));
    sim.request("POST", "/sim/v1/restart?downSeconds=0&restore=snapshot");
    auto safely = [](auto check) {
        return [check] {
            try {
                return check();
            } catch (const std::exception&) {
                return false; // the endpoint is still coming back
            }
        };
    };
    ASSERT_TRUE(eventually(safely([&] { return pod_count() == 2; })));
    ASSERT_TRUE(eventually(safely([&] { return scale(3).status == 200; })));
    EXPECT_TRUE(eventually(safely([&] { return ready_pods() == 3; })));
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

// A PodMetrics is rendered from what its pod's version fixes once, then filled in per read: each
// container keeps its own name and share, the times are the read's, and a new version of the pod
// (a label added) is rendered anew.
TEST_F(SimWorkload, PodMetricsFollowTheirPodsVersionContainerByContainer) {
    ASSERT_EQ(
        sim.request(
               "POST", deployments,
               R"({"metadata":{"name":"web","annotations":{"sim.hpaplus.io/cpu-load":"1000m","sim.hpaplus.io/memory-per-pod":"128Mi"}},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"x"},{"name":"c","image":"x"}]}}}})")
            .status,
        201);
    ASSERT_TRUE(eventually([&] { return ready_pods() == 1; }));
    const std::string list_path = "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods";
    const auto check = [&](const rapidjson::Value& m, const std::string& label) {
        EXPECT_EQ(str(m, "/kind"), "PodMetrics");
        EXPECT_EQ(str(m, "/apiVersion"), "metrics.k8s.io/v1beta1");
        EXPECT_EQ(str(m, "/metadata/namespace"), "default");
        EXPECT_EQ(str(m, "/metadata/labels/app"), "web");
        EXPECT_EQ(str(m, "/metadata/labels/tier"), label);
        EXPECT_EQ(str(m, "/metadata/creationTimestamp").size(), 20u);
        EXPECT_EQ(str(m, "/timestamp").size(), 20u);
        EXPECT_EQ(str(m, "/window"), "15s");
        ASSERT_EQ(m["containers"].Size(), 3u);
        // 1000m over three containers: the remainder on the first, as before
        const char* cpu[] = {"334000000n", "333000000n", "333000000n"};
        for (rapidjson::SizeType i = 0; i < 3; ++i) {
            const std::string at = "/containers/" + std::to_string(i);
            EXPECT_EQ(str(m, (at + "/name").c_str()), std::string(1, static_cast<char>('a' + i)));
            EXPECT_EQ(str(m, (at + "/usage/cpu").c_str()), cpu[i]);
            EXPECT_EQ(str(m, (at + "/usage/memory").c_str()), "43690Ki"); // 128Mi / 3, in Ki
            EXPECT_EQ(m["containers"][i].MemberCount(), 2u);
        }
    };
    for (int read = 0; read < 2; ++read) { // rendered on the first read, reused on the second
        const auto list = parse(sim.get(list_path).body);
        ASSERT_EQ(list["items"].Size(), 1u);
        check(list["items"][0], "<missing>");
    }
    const std::string name = str(parse(sim.get(pods).body), "/items/0/metadata/name");
    check(parse(sim.get(list_path + "/" + name).body), "<missing>");
    // (the simulated server does not check label values, as the real one would: what it stores
    // is still written as valid JSON)
    ASSERT_EQ(sim.request("PATCH", pods + "/" + name,
                          R"({"metadata":{"labels":{"tier":"front \"end\"\\"}}})",
                          "application/merge-patch+json")
                  .status,
              200);
    check(parse(sim.get(list_path).body)["items"][0], "front \"end\"\\");
    ASSERT_EQ(sim.request("PATCH", pods + "/" + name, R"({"metadata":{"labels":{"tier":"front"}}})",
                          "application/merge-patch+json")
                  .status,
              200);
    check(parse(sim.get(list_path).body)["items"][0], "front");
    check(parse(sim.get(list_path + "/" + name).body), "front");
    // The pod's own usage annotations, read once per version too: each new version is read anew.
    for (const auto& [cpu, memory, first_cpu, each_memory] :
         {std::tuple{"600m", "3Mi", "200000000n", "1024Ki"},
          std::tuple{"31m", "30Mi", "11000000n", "10240Ki"}}) {
        ASSERT_EQ(
            sim.request("PATCH", pods + "/" + name,
                        std::string(R"({"metadata":{"annotations":{"sim.hpaplus.io/cpu-usage":")") +
                            cpu + R"(","sim.hpaplus.io/memory-usage":")" + memory + R"("}}})",
                        "application/merge-patch+json")
                .status,
            200);
        for (int read = 0; read < 2; ++read) {
            const auto m = parse(sim.get(list_path).body);
            EXPECT_EQ(str(m, "/items/0/containers/0/usage/cpu"), first_cpu);
            EXPECT_EQ(str(m, "/items/0/containers/2/usage/memory"), each_memory);
        }
    }
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
    // Deleted gracefully: Terminating (its 30 s grace period), gone once the kubelet is done.
    const auto terminating = parse(sim.get(pods + "/" + first).body);
    EXPECT_EQ(str(terminating, "/metadata/deletionGracePeriodSeconds"), "30");
    EXPECT_NE(str(terminating, "/metadata/deletionTimestamp"), "<missing>");
    // two healthy left (a Terminating pod is not): evicting another would break minAvailable 2
    std::string second;
    const auto listed = parse(sim.get(pods).body); // kept: the loop reads into it
    for (const auto& p : listed["items"].GetArray())
        if (!p["metadata"].HasMember("deletionTimestamp"))
            second = p["metadata"]["name"].GetString();
    const auto refused = evict(second);
    EXPECT_EQ(refused.status, 429);
    EXPECT_EQ(str(parse(refused.body), "/message"),
              "Cannot evict pod as it would violate the pod's disruption budget.");
    EXPECT_EQ(str(parse(refused.body), "/details/causes/0/reason"), "DisruptionBudget");
    EXPECT_TRUE(eventually([&] { return sim.get(pods + "/" + first).status == 404; }));
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

namespace hpaplus {
namespace {

// What every real cluster has: the kube-node-lease namespace with the node's heartbeat Lease,
// renewed as the kubelet renews it, and the kubernetes.io/metadata.name label on every namespace,
// set by the server whatever a request says.
TEST(SimClusterDefaults, TheNodeLeaseIsRenewedAndNamespacesAreLabelledWithTheirName) {
    sim::cluster_options options;
    options.workload.node_lease_renewal = 300ms;
    test::sim_fixture sim(options);
    const std::string lease = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/"
                              "sim-node-1";
    std::string first;
    ASSERT_TRUE(test::eventually([&] {
        const auto r = sim.get(lease);
        if (r.status == 200) first = str(parse(r.body), "/spec/renewTime");
        return r.status == 200;
    }));
    const auto doc = parse(sim.get(lease).body);
    EXPECT_EQ(str(doc, "/spec/holderIdentity"), "sim-node-1");
    EXPECT_EQ(str(doc, "/spec/leaseDurationSeconds"), "40");
    EXPECT_EQ(str(doc, "/metadata/ownerReferences/0/kind"), "Node");
    EXPECT_EQ(first.size(), std::string("2026-01-01T00:00:00.000000Z").size()) << first;
    EXPECT_TRUE(test::eventually(
        [&] { return str(parse(sim.get(lease).body), "/spec/renewTime") != first; }));

    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"})
        EXPECT_EQ(str(parse(sim.get(std::string("/api/v1/namespaces/") + ns).body),
                      "/metadata/labels/kubernetes.io~1metadata.name"),
                  ns);
    auto r = sim.request("POST", "/api/v1/namespaces",
                         R"({"metadata":{"name":"shop","labels":{"team":"a",)"
                         R"("kubernetes.io/metadata.name":"other"}}})");
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/metadata/labels/kubernetes.io~1metadata.name"), "shop");
    r = sim.request("PATCH", "/api/v1/namespaces/shop",
                    R"({"metadata":{"labels":{"kubernetes.io/metadata.name":null}}})",
                    "application/merge-patch+json");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(str(parse(r.body), "/metadata/labels/kubernetes.io~1metadata.name"), "shop");
    EXPECT_EQ(str(parse(r.body), "/metadata/labels/team"), "a");
    // Selected by it, as `kubectl get ns -l kubernetes.io/metadata.name=shop` selects.
    EXPECT_EQ(parse(sim.get("/api/v1/namespaces?labelSelector=kubernetes.io%2Fmetadata.name%3Dshop")
                        .body)["items"]
                  .Size(),
              1u);
}

} // namespace
} // namespace hpaplus

namespace hpaplus {
namespace {

const std::string as_table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

// The column names of a Table, and the cells of its first row by column.
std::map<std::string, std::string> first_table_row(const std::string& body,
                                                   std::vector<std::string>* names = nullptr) {
    const auto table = parse(body);
    std::map<std::string, std::string> cells;
    const auto& columns = table["columnDefinitions"].GetArray();
    for (rapidjson::SizeType i = 0; i < columns.Size(); ++i) {
        if (names) names->push_back(columns[i]["name"].GetString());
        if (table["rows"].Empty()) continue;
        const auto& v = table["rows"][0]["cells"][i];
        cells[columns[i]["name"].GetString()] =
            v.IsString() ? v.GetString() : (v.IsInt64() ? std::to_string(v.GetInt64()) : "?");
    }
    return cells;
}

// kube-controller-manager's serviceaccount controller and root-ca-cert-publisher: every active
// namespace holds `default` and kube-root-ca.crt (the serving CA), made again when deleted, the
// data put back when changed.
TEST(SimClusterDefaults, EveryNamespaceHoldsTheDefaultServiceAccountAndTheRootCa) {
    sim::cluster_options options;
    options.tls = true;
    test::sim_fixture sim(options);
    const auto ca = [&](const std::string& ns) {
        return str(parse(sim.get("/api/v1/namespaces/" + ns + "/configmaps/kube-root-ca.crt").body),
                   "/data/ca.crt");
    };
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
        EXPECT_EQ(
            sim.get(std::string("/api/v1/namespaces/") + ns + "/serviceaccounts/default").status,
            200)
            << ns;
        EXPECT_EQ(ca(ns), sim.cluster().tls()->ca_cert_pem) << ns;
    }
    EXPECT_NE(str(parse(sim.get("/api/v1/namespaces/default/configmaps/kube-root-ca.crt").body),
                  "/metadata/annotations/kubernetes.io~1description")
                  .find("verify the kube-apiserver"),
              std::string::npos);
    ASSERT_EQ(sim.request("POST", "/api/v1/namespaces", R"({"metadata":{"name":"shop"}})").status,
              201);
    EXPECT_TRUE(eventually([&] {
        return sim.get("/api/v1/namespaces/shop/serviceaccounts/default").status == 200 &&
               ca("shop") == sim.cluster().tls()->ca_cert_pem;
    }));
    ASSERT_EQ(sim.request("DELETE", "/api/v1/namespaces/shop/serviceaccounts/default").status, 200);
    EXPECT_TRUE(eventually(
        [&] { return sim.get("/api/v1/namespaces/shop/serviceaccounts/default").status == 200; }));
    ASSERT_EQ(sim.request("PATCH", "/api/v1/namespaces/shop/configmaps/kube-root-ca.crt",
                          R"({"data":{"ca.crt":"mine","extra":"x"}})",
                          "application/merge-patch+json")
                  .status,
              200);
    EXPECT_TRUE(eventually([&] {
        const auto doc = parse(sim.get("/api/v1/namespaces/shop/configmaps/kube-root-ca.crt").body);
        return str(doc, "/data/ca.crt") == sim.cluster().tls()->ca_cert_pem &&
               str(doc, "/data/extra") == "<missing>";
    }));
    // A Terminating namespace is emptied, not filled again.
    ASSERT_EQ(sim.request("DELETE", "/api/v1/namespaces/shop").status, 200);
    EXPECT_TRUE(eventually([&] { return sim.get("/api/v1/namespaces/shop").status == 404; }));
}

// Secrets: base64 data (else the decoder's 400), stringData merged into data and never stored,
// type Opaque by default and immutable, a type's required keys, `immutable` freezing the data;
// and the printers' columns for Secrets, ConfigMaps and ServiceAccounts.
TEST(SimSecrets, AreStoredDecodedAndValidatedAsTheRealServerDoes) {
    test::sim_fixture sim;
    const std::string secrets = "/api/v1/namespaces/default/secrets";
    auto r = sim.request("POST", secrets,
                         R"({"metadata":{"name":"s"},"data":{"user":"YWRtaW4=","pass":"b2xk"},)"
                         R"("stringData":{"pass":"new","token":"t"}})");
    ASSERT_EQ(r.status, 201) << r.body;
    auto doc = parse(r.body);
    EXPECT_EQ(str(doc, "/type"), "Opaque");
    EXPECT_EQ(str(doc, "/data/pass"), "bmV3");
    EXPECT_EQ(str(doc, "/data/token"), "dA==");
    EXPECT_EQ(str(doc, "/stringData"), "<missing>");
    r = sim.request("POST", secrets, R"({"metadata":{"name":"bad"},"data":{"k":"not base64!"}})");
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(str(parse(r.body), "/message"),
              "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at "
              "input byte 3");
    r = sim.request(
        "POST", secrets,
        R"({"metadata":{"name":"cert"},"type":"kubernetes.io/tls","data":{"tls.crt":"eA=="}})");
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(str(parse(r.body), "/message"),
              "Secret \"cert\" is invalid: data[tls.key]: Required value");
    r = sim.request("POST", secrets,
                    R"({"metadata":{"name":"basic"},"type":"kubernetes.io/basic-auth"})");
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(str(parse(r.body), "/message"),
              "Secret \"basic\" is invalid: [data[username]: Required value, data[password]: "
              "Required value]");
    r = sim.request("PATCH", secrets + "/s", R"({"type":"kubernetes.io/tls"})",
                    "application/merge-patch+json");
    EXPECT_EQ(r.status, 422);
    EXPECT_NE(str(parse(r.body), "/message")
                  .find("type: Invalid value: \"kubernetes.io/tls\": "
                        "field is immutable"),
              std::string::npos)
        << r.body;
    ASSERT_EQ(sim.request("PATCH", secrets + "/s", R"({"immutable":true})",
                          "application/merge-patch+json")
                  .status,
              200);
    r = sim.request("PATCH", secrets + "/s", R"({"stringData":{"user":"root"}})",
                    "application/merge-patch+json");
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(str(parse(r.body), "/message"),
              "Secret \"s\" is invalid: data: Forbidden: field is immutable when `immutable` is "
              "set");
    r = sim.request("PATCH", secrets + "/s", R"({"immutable":false})",
                    "application/merge-patch+json");
    EXPECT_EQ(r.status, 422);
    EXPECT_NE(str(parse(r.body), "/message").find("immutable: Forbidden"), std::string::npos);
    // A ConfigMap freezes the same way.
    const std::string configmaps = "/api/v1/namespaces/default/configmaps";
    ASSERT_EQ(sim.request("POST", configmaps,
                          R"({"metadata":{"name":"c"},"data":{"a":"1"},"immutable":true})")
                  .status,
              201);
    r = sim.request("PATCH", configmaps + "/c", R"({"data":{"a":"2"}})",
                    "application/merge-patch+json");
    EXPECT_EQ(r.status, 422);
    EXPECT_NE(str(parse(r.body), "/message").find("data: Forbidden"), std::string::npos);

    std::vector<std::string> names;
    auto row = first_table_row(sim.request("GET", secrets + "/s", "", "", as_table).body, &names);
    EXPECT_EQ(names, (std::vector<std::string>{"Name", "Type", "Data", "Age"}));
    EXPECT_EQ(row["Type"], "Opaque");
    EXPECT_EQ(row["Data"], "3");
    names.clear();
    row = first_table_row(sim.request("GET", configmaps + "/c", "", "", as_table).body, &names);
    EXPECT_EQ(names, (std::vector<std::string>{"Name", "Data", "Age"}));
    EXPECT_EQ(row["Data"], "1");
}

// pods/NAME/exec, attach, portforward: the API server's checks in upstream's words, an upgrade
// required, then the dial to a kubelet that runs no containers failing.
TEST(SimKubeletStreams, AreCheckedThenFailToDialTheKubelet) {
    test::sim_fixture sim;
    ASSERT_EQ(sim.request("POST", pods,
                          R"({"metadata":{"name":"two"},"spec":{"containers":[)"
                          R"({"name":"a","image":"nginx"},{"name":"b","image":"nginx"}]}})")
                  .status,
              201);
    const auto message = [](const test::http_result& r) { return str(parse(r.body), "/message"); };
    auto r = sim.request("POST", pods + "/two/exec?command=ls&stdout=true");
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(message(r), "a container name must be specified for pod two, choose one of: [a b]");
    r = sim.request("POST", pods + "/nope/exec?command=ls&container=a");
    EXPECT_EQ(r.status, 404);
    ASSERT_TRUE(eventually(
        [&] { return str(parse(sim.get(pods + "/two").body), "/spec/nodeName") == "sim-node-1"; }));
    r = sim.request("POST", pods + "/two/exec?command=ls&container=a");
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(message(r), "Upgrade request required");
    const std::vector<std::pair<std::string, std::string>> upgrade{{"Connection", "Upgrade"},
                                                                   {"Upgrade", "SPDY/3.1"}};
    for (const char* sub : {"exec?container=a&command=ls", "attach?container=b", "portforward"}) {
        r = sim.request("POST", pods + "/two/" + sub, "", "", "*/*", upgrade);
        EXPECT_EQ(r.status, 500) << sub;
        EXPECT_EQ(message(r),
                  "error dialing backend: dial tcp 10.0.0.1:10250: connect: connection refused")
            << sub;
    }
}

// pods/NAME/log: what the simulated kubelet saw of the container, with PodLogOptions as upstream
// validates them and the kubelet's answers.
TEST(SimPodLogs, TellTheContainersStartAndReadinessWithUpstreamsOptions) {
    test::sim_fixture sim;
    ASSERT_EQ(
        sim.request(
               "POST", pods,
               R"({"metadata":{"name":"solo"},"spec":{"containers":[)"
               R"({"name":"app","image":"nginx:1.27","resources":{"requests":{"cpu":"100m"}}},)"
               R"({"name":"side","image":"busybox"}]}})")
            .status,
        201);
    const std::string log = pods + "/solo/log?container=app";
    std::string text;
    ASSERT_TRUE(eventually([&] {
        const auto r = sim.get(log);
        text = r.body;
        return r.status == 200 && text.find("ready\n") != std::string::npos;
    })) << text;
    EXPECT_EQ(text.rfind("started: image nginx:1.27, resources requests cpu=100m\n", 0), 0u)
        << text;
    EXPECT_EQ(sim.get(log + "&tailLines=1").body, "ready\n");
    EXPECT_EQ(sim.get(log + "&limitBytes=7").body, "started");
    const auto stamped = sim.get(log + "&tailLines=1&timestamps=true").body;
    // RFC 3339 with the nanoseconds Go prints (trailing zeros dropped), then the line.
    ASSERT_GT(stamped.size(), 8u);
    EXPECT_EQ(stamped.substr(stamped.size() - 8), "Z ready\n") << stamped;
    EXPECT_TRUE(core::parse_rfc3339(stamped.substr(0, stamped.size() - 7))) << stamped;
    EXPECT_EQ(sim.get(log + "&sinceTime=2099-01-01T00:00:00Z").body, "");

    auto r = sim.get(pods + "/solo/log");
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(str(parse(r.body), "/message"),
              "a container name must be specified for pod solo, choose one of: [app side]");
    r = sim.get(pods + "/solo/log?container=nope");
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(str(parse(r.body), "/message"), "container nope is not valid for pod solo");
    r = sim.get(log + "&previous=true");
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(str(parse(r.body), "/message"),
              "previous terminated container \"app\" in pod \"solo\" not found");
    r = sim.get(log + "&tailLines=-1&limitBytes=0");
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(str(parse(r.body), "/message"),
              "PodLogOptions \"solo\" is invalid: [tailLines: Invalid value: -1: must be greater "
              "than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]");
    EXPECT_EQ(sim.get(pods + "/nobody/log").status, 404);
    // Deleted: the container hears SIGTERM, and its log goes with the pod.
    ASSERT_EQ(sim.request("DELETE", pods + "/solo").status, 200);
    EXPECT_TRUE(eventually([&] {
        return sim.get(log).body.find("received SIGTERM, stopping (grace period 30s)") !=
               std::string::npos;
    }));
}

} // namespace
} // namespace hpaplus

namespace hpaplus {
namespace {

// LimitRanger: a namespace's LimitRange defaults a container's requests and limits (noting what
// it set in the pod's annotation) and refuses what falls outside its min and max.
TEST(SimPodLimits, ALimitRangeDefaultsAContainersResourcesAndBoundsThem) {
    test::sim_fixture sim;
    ASSERT_EQ(
        sim.request("POST", "/api/v1/namespaces/default/limitranges",
                    R"({"metadata":{"name":"bounds"},"spec":{"limits":[{"type":"Container",)"
                    R"("default":{"cpu":"500m","memory":"256Mi"},"defaultRequest":{"cpu":"200m"},)"
                    R"("max":{"cpu":"1"},"min":{"cpu":"100m"}}]}})")
            .status,
        201);
    auto r = sim.request("POST", pods,
                         R"({"metadata":{"name":"bare"},"spec":{"containers":[)"
                         R"({"name":"app","image":"nginx"}]}})");
    ASSERT_EQ(r.status, 201) << r.body;
    auto doc = parse(r.body);
    EXPECT_EQ(str(doc, "/spec/containers/0/resources/requests/cpu"), "200m");
    EXPECT_EQ(str(doc, "/spec/containers/0/resources/requests/memory"), "256Mi");
    EXPECT_EQ(str(doc, "/spec/containers/0/resources/limits/cpu"), "500m");
    EXPECT_EQ(str(doc, "/metadata/annotations/kubernetes.io~1limit-ranger"),
              "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit "
              "for container app");
    r = sim.request("POST", pods,
                    R"({"metadata":{"name":"big"},"spec":{"containers":[{"name":"app",)"
                    R"("image":"nginx","resources":{"limits":{"cpu":"2"}}}]}})");
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(str(parse(r.body), "/message"),
              "pods \"big\" is forbidden: maximum cpu usage per Container is 1, but limit is 2");
    r = sim.request("POST", pods,
                    R"({"metadata":{"name":"small"},"spec":{"containers":[{"name":"app",)"
                    R"("image":"nginx","resources":{"requests":{"cpu":"50m"}}}]}})");
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(str(parse(r.body), "/message"),
              "pods \"small\" is forbidden: minimum cpu usage per Container is 100m, but request "
              "is 50m");
}

// ResourceQuota: a quota that is used up refuses the ReplicaSet's pods; the ReplicaSet and its
// Deployment say why (ReplicaFailure, FailedCreate Events), the quota's status counts, and more
// room lets the scale-up finish.
TEST(SimPodLimits, AQuotaStallsAScaleUpAndTheReplicaSetSaysWhy) {
    test::sim_fixture sim;
    const std::string quotas = "/api/v1/namespaces/default/resourcequotas";
    ASSERT_EQ(
        sim.request("POST", quotas, R"({"metadata":{"name":"q"},"spec":{"hard":{"pods":"2"}}})")
            .status,
        201);
    ASSERT_EQ(
        sim.request("POST", deployments,
                    R"({"metadata":{"name":"web"},"spec":{"replicas":4,"selector":)"
                    R"({"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":)"
                    R"({"app":"web"}},"spec":{"containers":[{"name":"a","image":"nginx"}]}}}})")
            .status,
        201);
    const auto count = [&] {
        return parse(sim.get(pods + "?labelSelector=app%3Dweb").body)["items"].Size();
    };
    std::string message;
    ASSERT_TRUE(eventually([&] {
        const auto d = parse(sim.get(deployments + "/web").body);
        for (const auto& c : d["status"]["conditions"].GetArray())
            if (std::string(c["type"].GetString()) == "ReplicaFailure")
                message = c["message"].GetString();
        return !message.empty();
    })) << sim.get(deployments + "/web").body;
    EXPECT_EQ(count(), 2u);
    EXPECT_NE(message.find("is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, "
                           "limited: pods=2"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.rfind("pods \"web-", 0), 0u) << message;
    EXPECT_TRUE(eventually([&] {
        const auto q = parse(sim.get(quotas + "/q").body);
        return str(q, "/status/used/pods") == "2" && str(q, "/status/hard/pods") == "2";
    }));
    const auto events = parse(sim.get("/api/v1/namespaces/default/events").body);
    bool failed_create = false;
    for (const auto& e : events["items"].GetArray())
        failed_create |=
            std::string(e["reason"].GetString()) == "FailedCreate" &&
            std::string(e["message"].GetString()).rfind("Error creating: pods", 0) == 0;
    EXPECT_TRUE(failed_create);
    // Room for all four: the retry creates them and the failure is gone.
    ASSERT_EQ(sim.request("PATCH", quotas + "/q", R"({"spec":{"hard":{"pods":"10"}}})",
                          "application/merge-patch+json")
                  .status,
              200);
    EXPECT_TRUE(eventually([&] { return count() == 4u; }, 10s));
    EXPECT_TRUE(eventually([&] {
        return sim.get(deployments + "/web").body.find("ReplicaFailure") == std::string::npos;
    }));
    // A quota on requests.cpu needs every pod to state one.
    ASSERT_EQ(sim.request("POST", quotas,
                          R"({"metadata":{"name":"compute"},"spec":{"hard":{"requests.cpu":"1"}}})")
                  .status,
              201);
    const auto r = sim.request("POST", pods,
                               R"({"metadata":{"name":"bare"},"spec":{"containers":[)"
                               R"({"name":"app","image":"nginx"}]}})");
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(str(parse(r.body), "/message"),
              "pods \"bare\" is forbidden: failed quota: compute: must specify requests.cpu");
}

} // namespace
} // namespace hpaplus

namespace hpaplus {
namespace {

// nodes/NAME/proxy/stats/summary: the kubelet's Summary that metrics-server scrapes, from the same
// usage as the PodMetrics (a pod's CPU and memory spread over its containers).
TEST(SimNodeStats, TheSummaryHoldsTheNodesAndEachRunningPodsUsage) {
    test::sim_fixture sim;
    ASSERT_EQ(
        sim.request(
               "POST", pods,
               R"({"metadata":{"name":"busy","annotations":{)"
               R"("sim.hpaplus.io/cpu-usage":"300m","sim.hpaplus.io/memory-usage":"100Mi"}},)"
               R"("spec":{"containers":[{"name":"a","image":"nginx"},{"name":"b","image":"nginx"}]}})")
            .status,
        201);
    const std::string summary = "/api/v1/nodes/sim-node-1/proxy/stats/summary";
    rapidjson::Document doc;
    ASSERT_TRUE(eventually([&] {
        doc = parse(sim.get(summary).body);
        return doc.IsObject() && doc["pods"].IsArray() && doc["pods"].Size() == 1;
    })) << sim.get(summary).body;
    EXPECT_EQ(str(doc, "/node/nodeName"), "sim-node-1");
    EXPECT_EQ(str(doc, "/node/cpu/usageNanoCores"), "300000000");
    EXPECT_EQ(str(doc, "/node/memory/workingSetBytes"), std::to_string(100 << 20));
    EXPECT_EQ(str(doc, "/pods/0/podRef/name"), "busy");
    EXPECT_EQ(str(doc, "/pods/0/containers/0/name"), "a");
    EXPECT_EQ(str(doc, "/pods/0/containers/0/cpu/usageNanoCores"), "150000000");
    EXPECT_EQ(str(doc, "/pods/0/containers/1/memory/workingSetBytes"), std::to_string(50 << 20));
    // The cumulative CPU grows as the pod runs.
    const std::string before = str(doc, "/pods/0/cpu/usageCoreNanoSeconds");
    EXPECT_TRUE(eventually([&] {
        return str(parse(sim.get(summary).body), "/pods/0/cpu/usageCoreNanoSeconds") != before;
    }));
    EXPECT_EQ(sim.get("/api/v1/nodes/nope/proxy/stats/summary").status, 404);
}

} // namespace
} // namespace hpaplus
