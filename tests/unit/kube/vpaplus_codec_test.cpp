// The VPAPlus codec (kinds/vpaplus.hpp): bad specs refused with a reason, pods read as the
// updater needs them, the resize patch, checkpoints, and the HPAPlus side reading the resources a
// pod actually has.
#include "../../support/manifest_files.hpp"
#include "kinds/decode.hpp"
#include "kinds/vpaplus.hpp"
#include "kube/yaml_json.hpp"

#include <gtest/gtest.h>

namespace hpaplus::kube {
namespace {

using test::json_of;

TEST(VpaplusDecode, ReadsPoliciesAndRefusesWhatTheSchemaCannotSay) {
    auto o = json_of(R"(kind: VPAPlus
metadata: {name: x, namespace: n, generation: 3}
spec:
  targetRef: {kind: Deployment, name: w}
  updatePolicy: {updateMode: InPlace, minReplicas: 1}
  allowSharedResources: [memory]
  resourcePolicy:
    containerPolicies:
    - {containerName: "*", minAllowed: {cpu: 50m, memory: 64Mi}, maxAllowed: {cpu: "2"},
       controlledResources: [memory], controlledValues: RequestsOnly}
    - {containerName: side, mode: "Off"})");
    kube::json_decoder d;
    const auto v = decode_vpaplus(d, {&o, ""});
    ASSERT_TRUE(d.ok()) << d.error().to_string();
    EXPECT_EQ(v.mode, vertical::update_mode::in_place);
    EXPECT_EQ(v.min_replicas, 1);
    EXPECT_TRUE(v.share_memory);
    EXPECT_FALSE(v.share_cpu);
    ASSERT_EQ(v.policies.size(), 2u);
    EXPECT_EQ(v.policies[0].min_allowed.cpu_milli, 50);
    EXPECT_EQ(v.policies[0].min_allowed.memory_bytes, 64LL << 20);
    EXPECT_EQ(v.policies[0].max_allowed.cpu_milli, 2000);
    EXPECT_FALSE(v.policies[0].control_cpu);
    EXPECT_EQ(v.policies[0].values, vertical::controlled_values::requests_only);
    EXPECT_TRUE(v.policies[1].off);

    for (const char* spec :
         {"{targetRef: {kind: Deployment, name: w}, resourcePolicy: {containerPolicies: "
          "[{containerName: a, minAllowed: {cpu: '2'}, maxAllowed: {cpu: '1'}}]}}",
          "{targetRef: {kind: Deployment, name: w}, resourcePolicy: {containerPolicies: "
          "[{containerName: a, minAllowed: {nvidia.com/gpu: 1}}]}}",
          "{targetRef: {kind: Deployment, name: w}, updatePolicy: {updateMode: Sometimes}}",
          "{targetRef: {kind: Deployment, name: w}, allowSharedResources: [disk]}",
          "{targetRef: {kind: Deployment, name: w}, typo: 1}",
          "{updatePolicy: {updateMode: InPlace}}"}) {
        auto bad = json_of(std::string("kind: VPAPlus\nmetadata: {name: x}\nspec: ") + spec);
        kube::json_decoder bd;
        decode_vpaplus(bd, {&bad, ""});
        EXPECT_FALSE(bd.ok()) << spec;
    }
}

const char* resized_pod = R"({
  "metadata": {"name": "p", "uid": "u1", "ownerReferences": [{"kind": "ReplicaSet", "name": "r",
               "controller": true}]},
  "spec": {"containers": [
    {"name": "app", "resources": {"requests": {"cpu": "500m", "memory": "256Mi"},
                                   "limits": {"cpu": "1"}}},
    {"name": "side"}]},
  "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z",
    "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}],
    "containerStatuses": [
      {"name": "app", "resources": {"requests": {"cpu": "100m", "memory": "256Mi"},
                                    "limits": {"cpu": "200m"}},
       "lastState": {"terminated": {"reason": "OOMKilled", "startedAt": "2026-01-01T00:00:00Z",
                                    "finishedAt": "2026-01-01T00:03:00Z"}}},
      {"name": "side"}]}})";

TEST(VerticalPod, ReadsDesiredAppliedResizeStateAndOomKills) {
    rapidjson::Document doc;
    doc.Parse(resized_pod);
    const auto p = decode_vertical_pod({&doc, ""});
    EXPECT_EQ(p.name, "p");
    EXPECT_TRUE(p.controlled);
    EXPECT_FALSE(p.pending);
    ASSERT_EQ(p.desired.size(), 2u);
    EXPECT_EQ(p.desired[0].cpu_request_milli, 500);
    EXPECT_EQ(p.desired[0].cpu_limit_milli, 1000);
    ASSERT_EQ(p.applied.size(), 1u);
    EXPECT_EQ(p.applied[0].cpu_request_milli, 100);
    EXPECT_EQ(p.resize_pending, "Deferred");
    ASSERT_EQ(p.oom_kills.size(), 1u);
    EXPECT_EQ(p.oom_kills[0].finished - p.oom_kills[0].started, std::chrono::minutes(3));
    EXPECT_TRUE(resizing(p));
}

TEST(VerticalPod, LegacyStatusResizeIsReadToo) {
    rapidjson::Document doc;
    doc.Parse(R"({"metadata": {"name": "p"}, "status": {"phase": "Running", "resize": "Weird"}})");
    EXPECT_EQ(decode_vertical_pod({&doc, ""}).resize_pending, "Deferred");
    doc.Parse(R"({"metadata": {"name": "p"}, "status": {"resize": "Infeasible"}})");
    EXPECT_EQ(decode_vertical_pod({&doc, ""}).resize_pending, "Infeasible");
}

TEST(ResizePatch, SetsRequestsAndLimitsByIndexAddingMissingMaps) {
    rapidjson::Document doc;
    doc.Parse(resized_pod);
    const auto p = decode_vertical_pod({&doc, ""});
    auto to = p.desired;
    to[0].cpu_request_milli = 750;
    to[0].cpu_limit_milli = 1500;
    to[1].memory_request_bytes = 64LL << 20;
    EXPECT_EQ(
        resize_patch(p, to),
        R"([{"op":"add","path":"/spec/containers/0/resources/requests/cpu","value":"750m"},)"
        R"({"op":"add","path":"/spec/containers/0/resources/requests/memory","value":"256Mi"},)"
        R"({"op":"add","path":"/spec/containers/0/resources/limits/cpu","value":"1500m"},)"
        R"({"op":"add","path":"/spec/containers/1/resources","value":{}},)"
        R"({"op":"add","path":"/spec/containers/1/resources/requests","value":{}},)"
        R"({"op":"add","path":"/spec/containers/1/resources/requests/memory","value":"64Mi"}])");
    EXPECT_EQ(resize_patch(p, p.desired), "[]");
}

TEST(ResizePatch, KeepsOtherResourcesOfAMapThatExists) {
    rapidjson::Document doc;
    doc.Parse(R"({"metadata": {"name": "p"}, "spec": {"containers": [
      {"name": "app", "resources": {"requests": {"ephemeral-storage": "1Gi"}}}]}})");
    const auto p = decode_vertical_pod({&doc, ""});
    auto to = p.desired;
    to[0].cpu_request_milli = 250;
    // requests exists (with ephemeral-storage only): it is not replaced by an empty map.
    EXPECT_EQ(
        resize_patch(p, to),
        R"([{"op":"add","path":"/spec/containers/0/resources/requests/cpu","value":"250m"}])");
}

TEST(AdmissionPatch, SetsResourcesAndSaysWhichVpaPlusDidIt) {
    rapidjson::Document doc;
    doc.Parse(R"({"metadata": {"generateName": "web-"}, "spec": {"containers": [
      {"name": "app", "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m"}}}]}})");
    const auto p = decode_vertical_pod({&doc, ""});
    auto to = p.desired;
    to[0].cpu_request_milli = 300;
    to[0].cpu_limit_milli = 600;
    EXPECT_EQ(
        admission_patch(p, to, "web"),
        R"([{"op":"add","path":"/spec/containers/0/resources/requests/cpu","value":"300m"},)"
        R"({"op":"add","path":"/spec/containers/0/resources/limits/cpu","value":"600m"},)"
        R"({"op":"add","path":"/metadata/annotations","value":{}},)"
        R"({"op":"add","path":"/metadata/annotations/vpaplus.hpaplus.io~1updates",)"
        R"("value":"Pod resources set by VPAPlus web at creation: app: cpu request 300m, cpu limit 600m"}])");
}

TEST(StoredRecommendation, IsReadWithTheContainersControlledValues) {
    rapidjson::Document doc;
    doc.Parse(R"({"recommendation": {"containerRecommendations": [
      {"containerName": "app", "target": {"cpu": "250m", "memory": "256Mi"},
       "lowerBound": {"cpu": "100m", "memory": "128Mi"}, "upperBound": {"cpu": "1", "memory": "1Gi"},
       "uncappedTarget": {"cpu": "250m", "memory": "256Mi"}},
      {"containerName": "side", "target": {"memory": "64Mi"}, "lowerBound": {"memory": "32Mi"},
       "upperBound": {"memory": "128Mi"}, "uncappedTarget": {"memory": "64Mi"}}]}})");
    vertical::container_policy side;
    side.container_name = "side";
    side.values = vertical::controlled_values::requests_only;
    const auto recs = decode_recommendations({&doc, ""}, {side});
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].target.cpu_milli, 250);
    EXPECT_EQ(recs[0].upper_bound.memory_bytes, 1LL << 30);
    EXPECT_TRUE(recs[0].cpu && recs[0].memory);
    EXPECT_EQ(recs[0].values, vertical::controlled_values::requests_and_limits);
    EXPECT_FALSE(recs[1].cpu);
    EXPECT_TRUE(recs[1].memory);
    EXPECT_EQ(recs[1].values, vertical::controlled_values::requests_only);

    doc.Parse(R"({"recommendation": {"containerRecommendations": [{"target": {"cpu": "x"}}]}})");
    EXPECT_TRUE(decode_recommendations({&doc, ""}, {}).empty())
        << "an unreadable status applies nothing";
    doc.Parse(R"({})");
    EXPECT_TRUE(decode_recommendations({&doc, ""}, {}).empty());
}

TEST(Checkpoint, RoundTripsThroughItsJson) {
    vertical::recommender_config cfg;
    vertical::container_aggregate a(cfg);
    const core::time_point t0{std::chrono::hours(24 * 20000)};
    for (int i = 0; i < 50; ++i)
        a.add_cpu(100 * (i % 7 + 1), t0 + std::chrono::minutes(i));
    a.add_memory_peak(300'000'000, t0);
    const auto saved = a.save();
    rapidjson::Document doc;
    doc.Parse(encode_checkpoint_status(saved, t0).c_str());
    const auto back = decode_checkpoint_status({&doc, ""});
    ASSERT_TRUE(back);
    EXPECT_EQ(back->cpu, saved.cpu);
    EXPECT_EQ(back->memory, saved.memory);
    EXPECT_EQ(back->total_samples, 50u);
    EXPECT_EQ(back->first_sample, t0);
    doc.Parse(R"({"version": "v2", "cpuHistogram": {}, "memoryHistogram": {}})");
    EXPECT_FALSE(decode_checkpoint_status({&doc, ""})) << "another bucket layout is refused";
    doc.Parse(R"({"version": "v3", "cpuHistogram": {"bucketWeights": {"x": 1}},
                  "memoryHistogram": {}})");
    EXPECT_FALSE(decode_checkpoint_status({&doc, ""}));
    // Upstream's TestHistogramLoadFromCheckpointReturnsErrorOnNegativeBucket.
    doc.Parse(R"({"version": "v3", "cpuHistogram": {"bucketWeights": {"-1": 1}},
                  "memoryHistogram": {}})");
    EXPECT_FALSE(decode_checkpoint_status({&doc, ""}));
}

TEST(HorizontalSide, UtilizationIsAgainstTheResourcesThePodActuallyHas) {
    rapidjson::Document doc;
    doc.Parse(resized_pod);
    kube::json_decoder d;
    const auto pod = kube::decode_pod(d, {&doc, ""});
    ASSERT_TRUE(d.ok()) << d.error().to_string();
    // spec says 500m / limit 1; the container runs with 100m / 200m until the resize lands.
    EXPECT_EQ(policy::find_resource(pod.containers[0].requests, "cpu")->milli_value(), 100);
    EXPECT_EQ(policy::find_resource(pod.containers[0].limits, "cpu")->milli_value(), 200);
    EXPECT_EQ(policy::find_resource(pod.containers[0].requests, "memory")->value(), 256LL << 20);
    EXPECT_TRUE(pod.containers[1].requests.empty());
}

} // namespace
} // namespace hpaplus::kube
