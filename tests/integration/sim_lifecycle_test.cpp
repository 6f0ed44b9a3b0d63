// Integration tests: deletes and creates as the real registry makes them
// (shared/reference/kubernetes-wire.md §13): DeleteOptions preconditions, a pod's graceful
// termination (Terminating, then gone when the simulated kubelet is done; replaced by its
// ReplicaSet meanwhile), the status a kind's strategy gives a new object, and
// metadata.generation only on the kinds that keep one.
#include "../support/json_access.hpp"
#include "../support/process.hpp"
#include "../support/sim_fixture.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;
using test::parse;
using test::str;

using test::paths::configmaps;
const std::string pods = test::paths::pods;

struct SimLifecycle : ::testing::Test {
    test::sim_fixture sim;

    rapidjson::Document create(const std::string& path, const std::string& body) {
        const auto r = sim.request("POST", path, body);
        EXPECT_EQ(r.status, 201) << r.body;
        return parse(r.body);
    }
    // A pod bound to the node and running (the simulated kubelet's work), `extra` more spec JSON.
    std::string running_pod(const std::string& name, const std::string& annotations = "{}",
                            const std::string& resources = "{}") {
        create(pods, R"({"metadata":{"name":")" + name + R"(","annotations":)" + annotations +
                         R"(},"spec":{"containers":[{"name":"app","image":"nginx","resources":)" +
                         resources + "}]}}");
        EXPECT_TRUE(test::eventually([&] {
            return str(parse(sim.get(pods + "/" + name).body), "/status/phase") == "Running";
        }));
        return str(parse(sim.get(pods + "/" + name).body), "/metadata/uid");
    }
};

TEST_F(SimLifecycle, ADeleteWhosePreconditionFailsIsAConflictAndKeepsTheObject) {
    const auto created = create(configmaps, R"({"metadata":{"name":"settings"}})");
    const std::string uid = str(created, "/metadata/uid");
    const std::string rv = str(created, "/metadata/resourceVersion");
    auto r = sim.request("DELETE", configmaps + "/settings",
                         R"({"preconditions":{"uid":"11111111-2222-3333-4444-555555555555"}})");
    EXPECT_EQ(r.status, 409) << r.body;
    auto status = parse(r.body);
    EXPECT_EQ(str(status, "/reason"), "Conflict");
    EXPECT_EQ(str(status, "/message"),
              "Operation cannot be fulfilled on configmaps \"settings\": StorageError: invalid "
              "object, Code: 4, Key: /registry/configmaps/default/settings, ResourceVersion: 0, "
              "AdditionalErrorMsg: Precondition failed: UID in precondition: "
              "11111111-2222-3333-4444-555555555555, UID in object meta: " +
                  uid);
    r = sim.request("DELETE", configmaps + "/settings",
                    R"({"preconditions":{"resourceVersion":"1"}})");
    EXPECT_EQ(r.status, 409);
    EXPECT_NE(
        r.body.find("ResourceVersion in precondition: 1, ResourceVersion in object meta: " + rv),
        std::string::npos)
        << r.body;
    EXPECT_EQ(sim.get(configmaps + "/settings").status, 200) << "kept";
    r = sim.request("DELETE", configmaps + "/settings",
                    R"({"preconditions":{"uid":")" + uid + R"(","resourceVersion":")" + rv +
                        R"("}})");
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(sim.get(configmaps + "/settings").status, 404);
    // A namespace checks its own, without the storage's words.
    create("/api/v1/namespaces", R"({"metadata":{"name":"kept"}})");
    r = sim.request("DELETE", "/api/v1/namespaces/kept", R"({"preconditions":{"uid":"x"}})");
    EXPECT_EQ(str(parse(r.body), "/message")
                  .rfind("Operation cannot be fulfilled on namespaces "
                         "\"kept\": Precondition failed: UID in "
                         "precondition: x",
                         0),
              0u)
        << r.body;
}

TEST_F(SimLifecycle, ARunningPodIsTerminatingUntilTheKubeletIsDone) {
    running_pod("db", R"({"sim.hpaplus.io/termination-seconds":"2"})");
    const std::string rv = str(parse(sim.get(pods + "/db").body), "/metadata/resourceVersion");
    const auto r = sim.request("DELETE", pods + "/db");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto answered = parse(r.body);
    EXPECT_EQ(str(answered, "/metadata/deletionGracePeriodSeconds"), "30");
    EXPECT_NE(str(answered, "/metadata/deletionTimestamp"), "<missing>");
    EXPECT_EQ(sim.get(pods + "/db").status, 200) << "still there, Terminating";
    // A watcher sees it change, then go.
    const auto events =
        sim.watch(pods + "?watch=true&resourceVersion=" + rv + "&timeoutSeconds=10", 2, 10s);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(str(parse(events[0]), "/type"), "MODIFIED");
    EXPECT_NE(str(parse(events[0]), "/object/metadata/deletionTimestamp"), "<missing>");
    EXPECT_EQ(str(parse(events[1]), "/type"), "DELETED");
    EXPECT_EQ(sim.get(pods + "/db").status, 404);
}

// A deleted namespace stays Terminating while the namespace controller empties it (its pods stop
// gracefully); meanwhile nothing new may be created in it (NamespaceLifecycle), and then it goes.
// The namespaces every cluster needs may not be deleted at all.
TEST_F(SimLifecycle, ATerminatingNamespaceRefusesNewContentUntilItsPodsAreGone) {
    create("/api/v1/namespaces", R"({"metadata":{"name":"shop"}})");
    const std::string shop_pods = "/api/v1/namespaces/shop/pods";
    create(shop_pods, R"({"metadata":{"name":"db","annotations":)"
                      R"({"sim.hpaplus.io/termination-seconds":"2"}},)"
                      R"("spec":{"containers":[{"name":"app","image":"nginx"}]}})");
    ASSERT_TRUE(test::eventually(
        [&] { return str(parse(sim.get(shop_pods + "/db").body), "/status/phase") == "Running"; }));
    auto r = sim.request("DELETE", "/api/v1/namespaces/shop");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(str(parse(r.body), "/status/phase"), "Terminating");
    // The pod is stopping (2 s), so the namespace is still there.
    EXPECT_TRUE(test::eventually([&] {
        return str(parse(sim.get(shop_pods + "/db").body), "/metadata/deletionTimestamp") !=
               "<missing>";
    }));
    EXPECT_EQ(sim.get("/api/v1/namespaces/shop").status, 200);
    r = sim.request("POST", "/api/v1/namespaces/shop/configmaps", R"({"metadata":{"name":"cfg"}})");
    EXPECT_EQ(r.status, 403) << r.body;
    const auto refused = parse(r.body);
    EXPECT_EQ(str(refused, "/reason"), "Forbidden");
    EXPECT_EQ(str(refused, "/message"),
              "configmaps \"cfg\" is forbidden: unable to create new content in namespace shop "
              "because it is being terminated");
    EXPECT_EQ(str(refused, "/details/causes/0/reason"), "NamespaceTerminating");
    EXPECT_EQ(str(refused, "/details/causes/0/field"), "metadata.namespace");
    // A second delete changes nothing.
    EXPECT_EQ(sim.request("DELETE", "/api/v1/namespaces/shop").status, 200);
    EXPECT_TRUE(
        test::eventually([&] { return sim.get("/api/v1/namespaces/shop").status == 404; }, 10s));
    EXPECT_EQ(sim.get(shop_pods + "/db").status, 404);

    for (const char* immortal : {"default", "kube-system", "kube-public"}) {
        r = sim.request("DELETE", std::string("/api/v1/namespaces/") + immortal);
        EXPECT_EQ(r.status, 403) << immortal << ": " << r.body;
        EXPECT_EQ(str(parse(r.body), "/message"),
                  std::string("namespaces \"") + immortal +
                      "\" is forbidden: this namespace may not be deleted")
            << r.body;
        EXPECT_EQ(str(parse(sim.get(std::string("/api/v1/namespaces/") + immortal).body),
                      "/status/phase"),
                  "Active");
    }
}

TEST_F(SimLifecycle, GracePeriodZeroGoesAtOnceAndASecondDeleteOnlyShortens) {
    running_pod("now");
    auto r = sim.request("DELETE", pods + "/now?gracePeriodSeconds=0");
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(sim.get(pods + "/now").status, 404) << "kubectl delete --grace-period=0 --force";
    running_pod("short");
    r = sim.request("DELETE", pods + "/short", R"({"gracePeriodSeconds":5})");
    EXPECT_EQ(str(parse(r.body), "/metadata/deletionGracePeriodSeconds"), "5");
    // A second delete may shorten the period, never lengthen it.
    r = sim.request("DELETE", pods + "/short", R"({"gracePeriodSeconds":60})");
    EXPECT_EQ(str(parse(r.body), "/metadata/deletionGracePeriodSeconds"), "5");
    EXPECT_EQ(sim.request("DELETE", pods + "/short?gracePeriodSeconds=0").status, 200);
    EXPECT_EQ(sim.get(pods + "/short").status, 404);
}

TEST_F(SimLifecycle, AReplicaSetReplacesATerminatingPodAndDoesNotCountIt) {
    create(test::paths::deployments,
           R"({"metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":)"
           R"({"app":"web"}},"template":{"metadata":{"labels":{"app":"web"},"annotations":)"
           R"({"sim.hpaplus.io/termination-seconds":"5"}},"spec":{"containers":[{"name":"app",)"
           R"("image":"nginx"}]}}}})");
    auto web = [&] { return parse(sim.get(pods + "?labelSelector=app%3Dweb").body); };
    ASSERT_TRUE(test::eventually([&] {
        const auto list = web();
        if (list["items"].Size() != 2) return false;
        for (const auto& p : list["items"].GetArray())
            if (str(p, "/status/phase") != "Running") return false;
        return true;
    }));
    const std::string doomed = str(web(), "/items/0/metadata/name");
    ASSERT_EQ(sim.request("DELETE", pods + "/" + doomed).status, 200);
    // Three pods for a while: the Terminating one and its replacement beside the other.
    EXPECT_TRUE(test::eventually([&] { return web()["items"].Size() == 3; }, 4s));
    std::size_t terminating = 0;
    const auto listed = web(); // kept: the loop reads into it
    for (const auto& p : listed["items"].GetArray())
        terminating += p["metadata"].HasMember("deletionTimestamp") ? 1 : 0;
    EXPECT_EQ(terminating, 1u);
    EXPECT_TRUE(test::eventually(
        [&] {
            const auto rs = parse(sim.get("/apis/apps/v1/namespaces/default/replicasets").body);
            return str(rs, "/items/0/status/replicas") == "2" &&
                   str(rs, "/items/0/status/readyReplicas") == "2";
        },
        4s))
        << sim.get("/apis/apps/v1/namespaces/default/replicasets").body;
    EXPECT_TRUE(test::eventually([&] { return web()["items"].Size() == 2; }, 10s));
}

TEST_F(SimLifecycle, CreateAnswersCarryTheStatusTheRegistrySets) {
    auto pod = create(pods, R"({"metadata":{"name":"best-effort"},"spec":{"containers":)"
                            R"([{"name":"app","image":"nginx"}]}})");
    EXPECT_EQ(str(pod, "/status/phase"), "Pending");
    EXPECT_EQ(str(pod, "/status/qosClass"), "BestEffort");
    pod = create(pods, R"({"metadata":{"name":"guaranteed"},"spec":{"containers":[{"name":"app",)"
                       R"("image":"nginx","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}})");
    EXPECT_EQ(str(pod, "/status/qosClass"), "Guaranteed") << "requests default to the limits";
    pod = create(pods, R"({"metadata":{"name":"burstable"},"spec":{"containers":[{"name":"app",)"
                       R"("image":"nginx","resources":{"requests":{"cpu":"100m"}}}]}})");
    EXPECT_EQ(str(pod, "/status/qosClass"), "Burstable");
    EXPECT_EQ(str(parse(sim.get(pods + "/burstable").body), "/status/phase"), "Pending")
        << "a GET at once has it too";
    const auto deployment = create(
        test::paths::deployments,
        R"({"metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"app":"d"}},"template":)"
        R"({"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"a","image":"x"}]}}}})");
    EXPECT_TRUE(deployment["status"].IsObject() && deployment["status"].ObjectEmpty());
    EXPECT_EQ(str(deployment, "/metadata/generation"), "1");
    const auto service = create("/api/v1/namespaces/default/services",
                                R"({"metadata":{"name":"s"},"spec":{"ports":[{"port":80}]}})");
    EXPECT_TRUE(service["status"]["loadBalancer"].IsObject());
    const auto hpa = create(
        "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
        R"({"metadata":{"name":"h"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":)"
        R"("Deployment","name":"d"},"maxReplicas":3}})");
    EXPECT_EQ(str(hpa, "/status/desiredReplicas"), "0");
    // No generation where the real registry keeps none.
    EXPECT_EQ(str(service, "/metadata/generation"), "<missing>");
    EXPECT_EQ(str(create(configmaps, R"({"metadata":{"name":"c"}})"), "/metadata/generation"),
              "<missing>");
    EXPECT_EQ(
        str(create("/api/v1/namespaces", R"({"metadata":{"name":"n"}})"), "/metadata/generation"),
        "<missing>");
    const auto updated =
        sim.request("PUT", configmaps + "/c", R"({"metadata":{"name":"c"},"data":{"k":"v"}})");
    EXPECT_EQ(str(parse(updated.body), "/metadata/generation"), "<missing>") << updated.body;
}

} // namespace
} // namespace hpaplus
