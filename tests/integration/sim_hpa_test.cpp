// Integration tests: HorizontalPodAutoscalers on the simulated API server as the real one serves
// them — autoscaling/v2 stored, autoscaling/v1 converted both ways, v2 defaulting, kubectl's
// columns, and metadata.managedFields per field manager.
#include "../support/json_access.hpp"
#include "../support/sim_fixture.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace hpaplus {
namespace {

using test::parse;
using test::str;

const std::string v1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
const std::string v2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
const std::string table_accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

// What `kubectl autoscale deployment web --min=3 --max=5 --cpu-percent=50` sends.
const std::string v1_hpa =
    R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},)"
    R"("spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},)"
    R"("minReplicas":3,"maxReplicas":5,"targetCPUUtilizationPercentage":50}})";

std::string v2_hpa(const std::string& name, const std::string& metrics) {
    return R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":")" +
           name +
           R"("},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},)"
           R"("maxReplicas":10,"metrics":[)" +
           metrics + "]}}";
}

const std::string cpu_metric =
    R"({"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}})";
const std::string pods_metric =
    R"({"type":"Pods","pods":{"metric":{"name":"rps"},"target":{"type":"AverageValue","averageValue":"10"}}})";
const std::string memory_metric =
    R"({"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}})";

struct SimHpa : ::testing::Test {
    test::sim_fixture sim;

    /// The cells of the first row of the table `kubectl get hpa` reads, by column name.
    std::map<std::string, std::string> row(const std::string& name) {
        const auto r = sim.request("GET", v2 + "/" + name, "", "", table_accept);
        EXPECT_EQ(r.status, 200) << r.body;
        const auto table = parse(r.body);
        std::map<std::string, std::string> cells;
        const auto& columns = table["columnDefinitions"].GetArray();
        const auto& values = table["rows"][0]["cells"].GetArray();
        for (rapidjson::SizeType i = 0; i < columns.Size(); ++i) {
            const auto& v = values[i];
            cells[columns[i]["name"].GetString()] =
                v.IsString() ? v.GetString() : (v.IsInt64() ? std::to_string(v.GetInt64()) : "?");
        }
        return cells;
    }
};

TEST_F(SimHpa, AV1HpaIsStoredAsV2WithItsCpuTargetAndTheDefaultsAndReadBackAsV1) {
    const auto created = sim.request("POST", v1, v1_hpa);
    ASSERT_EQ(created.status, 201) << created.body;
    EXPECT_EQ(str(parse(created.body), "/apiVersion"), "autoscaling/v1");
    EXPECT_EQ(str(parse(created.body), "/spec/targetCPUUtilizationPercentage"), "50");

    const auto stored = parse(sim.get(v2 + "/web").body);
    EXPECT_EQ(str(stored, "/apiVersion"), "autoscaling/v2");
    EXPECT_EQ(str(stored, "/spec/minReplicas"), "3");
    EXPECT_EQ(str(stored, "/spec/metrics/0/type"), "Resource");
    EXPECT_EQ(str(stored, "/spec/metrics/0/resource/name"), "cpu");
    EXPECT_EQ(str(stored, "/spec/metrics/0/resource/target/type"), "Utilization");
    EXPECT_EQ(str(stored, "/spec/metrics/0/resource/target/averageUtilization"), "50");
    // v2 defaulting fills in a behavior only when one is given.
    EXPECT_EQ(str(stored, "/spec/behavior"), "<missing>");

    const auto again = parse(sim.get(v1 + "/web").body);
    EXPECT_EQ(str(again, "/apiVersion"), "autoscaling/v1");
    EXPECT_EQ(str(again, "/spec/targetCPUUtilizationPercentage"), "50");
    EXPECT_EQ(str(again, "/spec/metrics"), "<missing>");
}

TEST_F(SimHpa, AGivenBehaviorIsFilledInWithUpstreamsDefaultRules) {
    std::string body = v2_hpa("tuned", cpu_metric);
    body.insert(body.rfind("}}"), R"(,"behavior":{"scaleDown":{"stabilizationWindowSeconds":60}})");
    const auto r = sim.request("POST", v2, body);
    ASSERT_EQ(r.status, 201) << r.body;
    const auto stored = parse(r.body);
    EXPECT_EQ(str(stored, "/spec/behavior/scaleDown/stabilizationWindowSeconds"), "60");
    EXPECT_EQ(str(stored, "/spec/behavior/scaleDown/selectPolicy"), "Max");
    EXPECT_EQ(str(stored, "/spec/behavior/scaleDown/policies/0/type"), "Percent");
    EXPECT_EQ(str(stored, "/spec/behavior/scaleDown/policies/0/value"), "100");
    EXPECT_EQ(str(stored, "/spec/behavior/scaleDown/policies/0/periodSeconds"), "15");
    EXPECT_EQ(str(stored, "/spec/behavior/scaleUp/stabilizationWindowSeconds"), "0");
    EXPECT_EQ(str(stored, "/spec/behavior/scaleUp/policies/0/type"), "Pods");
    EXPECT_EQ(str(stored, "/spec/behavior/scaleUp/policies/0/value"), "4");
    EXPECT_EQ(str(stored, "/spec/behavior/scaleUp/policies/1/type"), "Percent");
    EXPECT_EQ(str(stored, "/spec/behavior/scaleUp/policies/1/value"), "100");
}

TEST_F(SimHpa, AV2HpaWithoutMetricsGetsTheEightyPercentCpuDefault) {
    const auto r = sim.request("POST", v2, v2_hpa("bare", ""));
    ASSERT_EQ(r.status, 201) << r.body;
    const auto stored = parse(r.body);
    EXPECT_EQ(str(stored, "/spec/minReplicas"), "1");
    EXPECT_EQ(str(stored, "/spec/metrics/0/resource/target/averageUtilization"), "80");
    EXPECT_EQ(str(parse(sim.get(v1 + "/bare").body), "/spec/targetCPUUtilizationPercentage"), "80");
}

// currentMetrics and conditions are omitempty: written empty, they are gone when read back, as
// after upstream's decoding and encoding of the write.
TEST_F(SimHpa, AnEmptyCurrentMetricsListDoesNotSurviveAStatusWrite) {
    ASSERT_EQ(sim.request("POST", v2, v2_hpa("quiet", cpu_metric)).status, 201);
    const auto r = sim.request(
        "PATCH", v2 + "/quiet/status",
        R"({"status":{"currentReplicas":2,"desiredReplicas":2,"currentMetrics":[],"conditions":[]}})",
        "application/merge-patch+json");
    ASSERT_EQ(r.status, 200) << r.body;
    const auto read = parse(sim.get(v2 + "/quiet").body);
    EXPECT_EQ(str(read, "/status/currentReplicas"), "2");
    EXPECT_EQ(str(read, "/status/currentMetrics"), "<missing>");
    EXPECT_EQ(str(read, "/status/conditions"), "<missing>");
}

TEST_F(SimHpa, WhatV1CannotHoldTravelsInAnnotationsAndSurvivesARoundTripThroughV1) {
    ASSERT_EQ(sim.request("POST", v2, v2_hpa("rich", cpu_metric + "," + pods_metric)).status, 201);
    const auto as_v1 = sim.get(v1 + "/rich");
    const auto doc = parse(as_v1.body);
    EXPECT_EQ(str(doc, "/spec/targetCPUUtilizationPercentage"), "50");
    const std::string metrics =
        str(doc, "/metadata/annotations/autoscaling.alpha.kubernetes.io~1metrics");
    EXPECT_NE(metrics.find("\"rps\""), std::string::npos) << as_v1.body;
    EXPECT_EQ(metrics.find("\"cpu\""), std::string::npos) << "the CPU target has its own field";

    // A v1 client writes back what it read (here with a new maxReplicas): nothing is lost.
    std::string body = as_v1.body;
    body.replace(body.find("\"maxReplicas\":10"), 16, "\"maxReplicas\":12");
    const auto put = sim.request("PUT", v1 + "/rich", body);
    ASSERT_EQ(put.status, 200) << put.body;
    const auto stored = parse(sim.get(v2 + "/rich").body);
    EXPECT_EQ(str(stored, "/spec/maxReplicas"), "12");
    // Upstream's conversion puts the annotation's metrics first and the CPU target last.
    EXPECT_EQ(str(stored, "/spec/metrics/0/pods/metric/name"), "rps");
    EXPECT_EQ(str(stored, "/spec/metrics/1/resource/name"), "cpu");
    EXPECT_EQ(str(stored, "/metadata/annotations/autoscaling.alpha.kubernetes.io~1metrics"),
              "<missing>");
}

TEST_F(SimHpa, TheTableHasKubectlsColumnsAndTargets) {
    ASSERT_EQ(sim.request("POST", v1, v1_hpa).status, 201);
    auto cells = row("web");
    EXPECT_EQ(cells["Reference"], "Deployment/web");
    EXPECT_EQ(cells["Targets"], "cpu: <unknown>/50%");
    EXPECT_EQ(cells["MinPods"], "3");
    EXPECT_EQ(cells["MaxPods"], "5");
    EXPECT_EQ(cells["Replicas"], "0");

    const auto status = sim.request(
        "PATCH", v2 + "/web/status",
        R"({"status":{"currentReplicas":3,"desiredReplicas":3,"currentMetrics":[{"type":"Resource",)"
        R"("resource":{"name":"cpu","current":{"averageUtilization":40,"averageValue":"200m"}}}]}})",
        "application/merge-patch+json");
    ASSERT_EQ(status.status, 200) << status.body;
    cells = row("web");
    EXPECT_EQ(cells["Targets"], "cpu: 40%/50%");
    EXPECT_EQ(cells["Replicas"], "3");

    ASSERT_EQ(sim.request("POST", v2,
                          v2_hpa("many", cpu_metric + "," + pods_metric + "," + memory_metric))
                  .status,
              201);
    EXPECT_EQ(row("many")["Targets"], "cpu: <unknown>/50%, <unknown>/10 + 1 more...");
}

TEST_F(SimHpa, ManagedFieldsNameEachWriterAndAStatusWriteTakesTheFieldsItSets) {
    const auto created = sim.request("POST", v1, v1_hpa, "", "application/json",
                                     {{"User-Agent", "kubectl-autoscale/v1.32.4 (linux/amd64)"}});
    ASSERT_EQ(created.status, 201) << created.body;
    auto doc = parse(created.body);
    EXPECT_EQ(str(doc, "/metadata/managedFields/0/manager"), "kubectl-autoscale");
    EXPECT_EQ(str(doc, "/metadata/managedFields/0/operation"), "Update");
    EXPECT_EQ(str(doc, "/metadata/managedFields/0/apiVersion"), "autoscaling/v1");
    EXPECT_EQ(str(doc, "/metadata/managedFields/0/fieldsType"), "FieldsV1");
    EXPECT_EQ(str(doc, "/metadata/managedFields/0/subresource"), "<missing>");
    EXPECT_NE(str(doc, "/metadata/managedFields/0/time"), "<missing>");

    const std::string status = R"({"status":{"currentReplicas":3,"desiredReplicas":3}})";
    ASSERT_EQ(sim.request("PATCH", v2 + "/web/status?fieldManager=kube-controller-manager", status,
                          "application/merge-patch+json")
                  .status,
              200);
    doc = parse(sim.get(v2 + "/web").body);
    ASSERT_EQ(doc["metadata"]["managedFields"].Size(), 2u) << str(doc, "/metadata/name");
    EXPECT_EQ(str(doc, "/metadata/managedFields/1/manager"), "kube-controller-manager");
    EXPECT_EQ(str(doc, "/metadata/managedFields/1/subresource"), "status");
    EXPECT_EQ(str(doc, "/metadata/managedFields/1/apiVersion"), "autoscaling/v2");

    const auto managers_now = [&] {
        const auto now = parse(sim.get(v2 + "/web").body);
        std::vector<std::string> managers;
        for (const auto& m : now["metadata"]["managedFields"].GetArray())
            managers.emplace_back(m["manager"].GetString());
        return managers;
    };
    // Another manager writing the same values changes nothing, so nothing is stored and it owns
    // nothing (structured-merge-diff gives an Update only the fields it modified or added).
    const auto before = sim.get(v2 + "/web").body;
    ASSERT_EQ(sim.request("PATCH", v2 + "/web/status", status, "application/merge-patch+json",
                          "application/json", {{"User-Agent", "hpaplus/0.1"}})
                  .status,
              200);
    EXPECT_EQ(sim.get(v2 + "/web").body, before);
    // Another manager changes the status fields: the older entry owns nothing and goes.
    ASSERT_EQ(sim.request("PATCH", v2 + "/web/status",
                          R"({"status":{"currentReplicas":4,"desiredReplicas":4}})",
                          "application/merge-patch+json", "application/json",
                          {{"User-Agent", "hpaplus/0.1"}})
                  .status,
              200);
    EXPECT_EQ(managers_now(), (std::vector<std::string>{"kubectl-autoscale", "hpaplus"}));

    // A client's managedFields in a write are not taken as they are: the server keeps its own.
    const auto get = sim.get(v2 + "/web");
    std::string body = get.body;
    const auto at = body.find("\"manager\":\"hpaplus\"");
    ASSERT_NE(at, std::string::npos) << body;
    body.replace(at, 19, "\"manager\":\"forged\"");
    ASSERT_EQ(sim.request("PUT", v2 + "/web", body, "", "application/json",
                          {{"User-Agent", "editor/1.0"}})
                  .status,
              200);
    const std::string after = sim.get(v2 + "/web").body;
    EXPECT_EQ(after.find("forged"), std::string::npos) << after;
    EXPECT_NE(after.find("\"manager\":\"hpaplus\""), std::string::npos) << after;
}

TEST_F(SimHpa, DiscoveryServesV2PreferredAndV1) {
    const auto group = parse(sim.get("/apis/autoscaling").body);
    EXPECT_EQ(str(group, "/preferredVersion/version"), "v2");
    EXPECT_EQ(str(group, "/versions/0/version"), "v2");
    EXPECT_EQ(str(group, "/versions/1/version"), "v1");
    const auto resources = sim.get("/apis/autoscaling/v1");
    ASSERT_EQ(resources.status, 200);
    EXPECT_NE(resources.body.find("\"horizontalpodautoscalers/status\""), std::string::npos)
        << resources.body;
    EXPECT_EQ(sim.get("/apis/autoscaling/v2beta2").status, 404) << "not served since 1.26";
}

} // namespace
} // namespace hpaplus
