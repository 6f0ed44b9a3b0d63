// Integration tests: the simulated cluster's custom/external metrics APIs and its fault injection
// (error rates, latency, 429 with Retry-After, dropped watches, forced 410s, restart with state
// kept).
#include "../support/json_access.hpp"
#include "../support/sim_fixture.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include <future>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

using test::parse;
using test::str;

using test::paths::configmaps;

struct SimExtras : ::testing::Test {
    test::sim_fixture sim;
};

TEST_F(SimExtras, ExternalMetricsFromConfigMaps) {
    for (const auto& [name, queue, value] :
         {std::tuple{"q1", "orders", "42"}, std::tuple{"q2", "billing", "7"},
          std::tuple{"q3", "orders", "junk"}}) {
        const std::string body =
            std::string(R"({"metadata":{"name":")") + name +
            R"(","labels":{"sim.hpaplus.io/external-metric":"queue_depth","queue":")" + queue +
            R"("}},"data":{"value":")" + value + R"("}})";
        ASSERT_EQ(sim.request("POST", configmaps, body).status, 201);
    }
    const auto all =
        parse(sim.get("/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth").body);
    EXPECT_EQ(str(all, "/kind"), "ExternalMetricValueList");
    EXPECT_EQ(all["items"].Size(), 2u); // the garbage value is no sample
    const auto orders = parse(sim.get("/apis/external.metrics.k8s.io/v1beta1/namespaces/default/"
                                      "queue_depth?labelSelector=queue%3Dorders")
                                  .body);
    ASSERT_EQ(orders["items"].Size(), 1u);
    EXPECT_EQ(str(orders, "/items/0/value"), "42");
    EXPECT_EQ(str(orders, "/items/0/metricLabels/queue"), "orders");
    EXPECT_EQ(str(orders, "/items/0/window"), "60");
    EXPECT_EQ(sim.get("/apis/external.metrics.k8s.io/v1beta1/namespaces/default/nothing").status,
              404);
    EXPECT_EQ(str(parse(sim.get("/apis/external.metrics.k8s.io/v1beta1").body), "/kind"),
              "APIResourceList");
}

TEST_F(SimExtras, CustomMetricsFromAnnotations) {
    const std::string pod =
        R"({"metadata":{"name":"p1","labels":{"app":"web"},"annotations":{"sim.hpaplus.io/metric.qps":"25"}},"spec":{"containers":[{"name":"c","image":"x"}]}})";
    ASSERT_EQ(sim.request("POST", "/api/v1/namespaces/default/pods", pod).status, 201);
    const auto pods = parse(sim.get("/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/"
                                    "qps?labelSelector=app%3Dweb")
                                .body);
    EXPECT_EQ(str(pods, "/kind"), "MetricValueList");
    ASSERT_EQ(pods["items"].Size(), 1u);
    EXPECT_EQ(str(pods, "/items/0/describedObject/name"), "p1");
    EXPECT_EQ(str(pods, "/items/0/value"), "25");
    EXPECT_EQ(str(pods, "/items/0/windowSeconds"), "60");
    const std::string cm =
        R"({"metadata":{"name":"ingress-stats","annotations":{"sim.hpaplus.io/metric.requests":"5k"}}})";
    ASSERT_EQ(sim.request("POST", configmaps, cm).status, 201);
    const auto object = parse(sim.get("/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/"
                                      "configmaps/ingress-stats/requests")
                                  .body);
    EXPECT_EQ(str(object, "/items/0/value"), "5k");
    EXPECT_EQ(str(object, "/items/0/describedObject/kind"), "ConfigMap");
    EXPECT_EQ(sim.get("/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/configmaps/"
                      "ingress-stats/other")
                  .status,
              404);
}

TEST_F(SimExtras, InjectedErrorsAndRecovery) {
    ASSERT_EQ(
        sim.request(
               "POST", "/sim/v1/faults",
               R"({"rules":[{"verb":"list","resource":"configmaps","errorRate":1.0,"errorCode":503}]})")
            .status,
        200);
    const auto failed = sim.get(configmaps);
    EXPECT_EQ(failed.status, 503);
    EXPECT_EQ(str(parse(failed.body), "/reason"), "ServiceUnavailable");
    EXPECT_EQ(sim.get("/api/v1/namespaces/default/pods").status,
              200); // other resources are unaffected
    sim.request(
        "PUT", "/sim/v1/faults",
        R"({"rules":[{"verb":"*","resource":"configmaps","errorRate":1.0,"errorCode":429}]})");
    const auto throttled = sim.get(configmaps);
    EXPECT_EQ(throttled.status, 429);
    EXPECT_EQ(throttled.headers.at("retry-after"), "1");
    EXPECT_EQ(str(parse(throttled.body), "/details/retryAfterSeconds"), "1");
    EXPECT_EQ(sim.request("DELETE", "/sim/v1/faults").status, 200);
    EXPECT_EQ(sim.get(configmaps).status, 200);
    EXPECT_EQ(sim.request("POST", "/sim/v1/faults", R"({"rules":[{"errorRate":7}]})").status, 400);
}

TEST_F(SimExtras, InjectedLatency) {
    sim.request("POST", "/sim/v1/faults",
                R"({"rules":[{"verb":"get","resource":"namespaces","latencyMs":300}]})");
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(sim.get("/api/v1/namespaces/default").status, 200);
    EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
}

TEST_F(SimExtras, DroppedWatchEndsWithoutATerminator) {
    auto dropper = std::async(std::launch::async, [&] {
        std::this_thread::sleep_for(300ms);
        return sim.request("POST", "/sim/v1/faults/drop-watches").status;
    });
    const auto start = std::chrono::steady_clock::now();
    const auto lines = sim.watch(configmaps + "?watch=1&resourceVersion=1", 5, 5s);
    EXPECT_EQ(dropper.get(), 200);
    EXPECT_LT(std::chrono::steady_clock::now() - start,
              4s); // the stream ended at the drop, not at the deadline
}

TEST_F(SimExtras, ForcedExpiryGives410) {
    const auto created =
        parse(sim.request("POST", configmaps, R"({"metadata":{"name":"a"}})").body);
    const std::string rv = str(created, "/metadata/resourceVersion");
    auto expirer = std::async(std::launch::async, [&] {
        std::this_thread::sleep_for(300ms);
        return sim.request("POST", "/sim/v1/faults/expire?resource=configmaps").status;
    });
    const auto lines = sim.watch(configmaps + "?watch=1&resourceVersion=" + rv, 1, 5s);
    EXPECT_EQ(expirer.get(), 200);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(str(parse(lines[0]), "/object/code"), "410");
    // resuming from the old version is no longer possible; a fresh watch is
    const auto resumed = sim.watch(configmaps + "?watch=1&resourceVersion=" + rv, 1, 3s);
    ASSERT_EQ(resumed.size(), 1u);
    EXPECT_EQ(str(parse(resumed[0]), "/type"), "ERROR");
    const auto fresh = sim.watch(configmaps + "?watch=1&timeoutSeconds=1", 1, 3s);
    ASSERT_EQ(fresh.size(), 1u);
    EXPECT_EQ(str(parse(fresh[0]), "/type"), "ADDED");
}

TEST_F(SimExtras, RestartKeepsState) {
    ASSERT_EQ(sim.request("POST", configmaps, R"({"metadata":{"name":"survivor"}})").status, 201);
    EXPECT_EQ(sim.request("POST", "/sim/v1/restart?downSeconds=1").status, 202);
    std::this_thread::sleep_for(400ms);
    EXPECT_THROW(sim.get(configmaps), std::exception); // nobody is listening while it is down
    bool back = false;
    for (int i = 0; i < 50 && !back; ++i) {
        std::this_thread::sleep_for(100ms);
        try {
            back = sim.get(configmaps + "/survivor").status == 200;
        } catch (const std::exception&) {
        }
    }
    EXPECT_TRUE(back) << "the simulated API server did not come back with its state";
}

} // namespace
} // namespace hpaplus
