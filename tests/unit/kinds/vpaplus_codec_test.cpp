// The VPAPlus codec (kinds/vpaplus.hpp): bad specs refused with a reason, pods read as the
// updater needs them, the resize patch, checkpoints, and the HPAPlus side reading the resources a
// pod actually has.
#include "../../support/manifest_files.hpp"
#include "kinds/decode.hpp"
#include "kinds/vpaplus.hpp"
#include "kube/yaml_json.hpp"
#include "policy/pod_grouping.hpp"

#include <gtest/gtest.h>

namespace hpaplus::kinds {
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
    const auto pod = kinds::decode_pod(d, {&doc, ""});
    ASSERT_TRUE(d.ok()) << d.error().to_string();
    // spec says 500m / limit 1; the container runs with 100m / 200m until the resize lands.
    EXPECT_EQ(core::find_resource(pod.containers()[0].requests, "cpu")->milli_value(), 100);
    EXPECT_EQ(core::find_resource(pod.containers()[0].limits, "cpu")->milli_value(), 200);
    EXPECT_EQ(core::find_resource(pod.containers()[0].requests, "memory")->value(), 256LL << 20);
    EXPECT_TRUE(pod.containers()[1].requests.empty());
}

TEST(StartupBoostSpec, ReadsEachSpellingAndRefusesWhatCannotBeMeant) {
    const auto spec = [](const std::string& cpu) {
        return json_of("kind: VPAPlus\nmetadata: {name: x}\nspec: {targetRef: {kind: Deployment, "
                       "name: w}, startupBoost: {cpu: " +
                       cpu + "}}");
    };
    using kind = vertical::cpu_startup_boost::kind;
    struct good_row {
        const char* cpu;
        vertical::cpu_startup_boost want;
    } good[] = {
        {"{factor: 3, duration: 2m}", {kind::factor, 3, 0, std::chrono::minutes(2)}},
        {"{type: Factor, factor: 1.5}", {kind::factor, 1.5, 0, {}}},
        {"{type: Quantity, quantity: 500m, durationSeconds: 10}",
         {kind::quantity, 1, 500, std::chrono::seconds(10)}},
        {"{value: '2'}", {kind::value, 1, 2000, {}}},
    };
    for (const auto& r : good) {
        auto o = spec(r.cpu);
        kube::json_decoder d;
        const auto v = decode_vpaplus(d, {&o, ""});
        ASSERT_TRUE(d.ok()) << r.cpu << ": " << d.error().to_string();
        ASSERT_TRUE(v.boost) << r.cpu;
        EXPECT_EQ(*v.boost, r.want) << r.cpu;
    }
    for (const char* cpu :
         {"{}", "{factor: 2, value: 1}", "{factor: 0.5}", "{factor: 2000}", "{quantity: -1}",
          "{value: 0}", "{type: Quantity, factor: 2}", "{type: Sometimes, factor: 2}",
          "{factor: 2, duration: 1m, "
          "durationSeconds: 60}",
          "{factor: 2, duration: soon}", "{factor: 2, durationSeconds: -1}",
          "{factor: 2, memory: 1}"}) {
        auto o = spec(cpu);
        kube::json_decoder d;
        decode_vpaplus(d, {&o, ""});
        EXPECT_FALSE(d.ok()) << cpu;
    }
    auto no_cpu = json_of("kind: VPAPlus\nmetadata: {name: x}\nspec: {targetRef: {kind: "
                          "Deployment, name: w}, startupBoost: {memory: {factor: 2}}}");
    kube::json_decoder d;
    decode_vpaplus(d, {&no_cpu, ""});
    EXPECT_FALSE(d.ok()) << "AEP-7862 boosts cpu only";
}

TEST(StartupBoostAnnotation, RoundTripsAndIgnoresWhatItDidNotWrite) {
    const vertical::boost_record r{
        "web", {{"app", 300, 100, 200}, {"side", 50, 25, std::nullopt}}, false};
    const std::string text = encode_boost_record(r);
    EXPECT_EQ(text, R"({"vpaplus":"web","containers":[{"name":"app","boosted":"300m",)"
                    R"("request":"100m","limit":"200m"},{"name":"side","boosted":"50m",)"
                    R"("request":"25m"}]})");
    EXPECT_EQ(decode_boost_record(text), r);
    auto ended = r;
    ended.ended = true;
    EXPECT_EQ(decode_boost_record(encode_boost_record(ended)), ended);
    for (const std::string& bad :
         {std::string(""), std::string("300m"), std::string("[]"),
          std::string(R"({"containers":1})"), std::string(R"({"containers":[{"name":"app"}]})"),
          std::string(R"({"containers":[{"name":"app","boosted":"lots"}]})"),
          std::string(20000, '[') + std::string(20000, ']'),
          R"({"containers":[)" + std::string(17 * 1024, ' ') + "]}"})
        EXPECT_FALSE(decode_boost_record(bad)) << bad.substr(0, 60);
}

// A pod as the admission webhook boosted it: 100m → 300m, the limit 200m → 600m.
std::string boosted_pod(const std::string& spec_cpu, const std::string& applied_cpu, bool ended) {
    return R"({"metadata": {"name": "p", "uid": "u1",
      "annotations": {"vpaplus.hpaplus.io/startup-boost":
        "{\"vpaplus\":\"web\",\"containers\":[{\"name\":\"app\",\"boosted\":\"300m\",\"request\":\"100m\",\"limit\":\"200m\"}])" +
           std::string(ended ? R"(,\"ended\":true)" : "") + R"(}"}},
      "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": ")" +
           spec_cpu + R"("}, "limits": {"cpu": "600m"}}}, {"name": "side",
        "resources": {"requests": {"cpu": "300m"}}}]},
      "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True",
        "lastTransitionTime": "2026-01-01T00:00:10Z"}],
        "containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": ")" +
           applied_cpu + R"("}}}]}})";
}

TEST(StartupBoostAnnotation, TheHorizontalSideCountsTheUnboostedRequestWhileTheBoostIsInForce) {
    struct row {
        const char* what;
        const char* spec_cpu;
        const char* applied_cpu;
        bool ended;
        bool in_force;
    } rows[] = {
        {"boosted and applied", "300m", "300m", false, true},
        {"the boost not applied (the node could not fit it)", "300m", "100m", false, false},
        {"ended, the resize back not applied yet", "100m", "300m", true, true},
        {"ended and applied", "100m", "100m", true, false},
        {"ended at a recommendation equal to the boost", "300m", "300m", true, false},
        {"resized by someone else", "450m", "450m", false, false},
    };
    for (const auto& r : rows) {
        rapidjson::Document doc;
        doc.Parse(boosted_pod(r.spec_cpu, r.applied_cpu, r.ended).c_str());
        ASSERT_FALSE(doc.HasParseError()) << r.what;
        kube::json_decoder d;
        const auto pod = kinds::decode_pod(d, {&doc, ""});
        ASSERT_TRUE(d.ok()) << r.what << ": " << d.error().to_string();
        if (!r.in_force) {
            EXPECT_TRUE(pod.boosted.empty()) << r.what;
            continue;
        }
        ASSERT_EQ(pod.boosted.size(), 1u) << r.what;
        EXPECT_EQ(pod.boosted[0].name, "app");
        EXPECT_EQ(pod.boosted[0].request->milli_value(), 100) << r.what;
        EXPECT_EQ(pod.boosted[0].limit->milli_value(), 200) << r.what;
        // What the replica calculator counts: app at 100m (limit 200m), side at its own 300m.
        const std::vector<const policy::pod_info*> pods = {&pod};
        const auto requests =
            policy::pod_resource_amounts(pods, "", "cpu", policy::usage_basis::requests);
        ASSERT_TRUE(requests) << r.what;
        EXPECT_EQ((*requests)[0].milli, 400) << r.what;
        const auto app =
            policy::pod_resource_amounts(pods, "app", "cpu", policy::usage_basis::limits);
        ASSERT_TRUE(app) << r.what;
        EXPECT_EQ((*app)[0].milli, 200) << r.what;
    }
}

TEST(StartupBoostAnnotation, TheUpdaterReadsItAndWhenThePodBecameReady) {
    rapidjson::Document doc;
    doc.Parse(boosted_pod("300m", "300m", false).c_str());
    const auto p = decode_vertical_pod({&doc, ""});
    ASSERT_TRUE(p.boost);
    EXPECT_EQ(p.boost->vpaplus, "web");
    ASSERT_EQ(p.boost->containers.size(), 1u);
    EXPECT_EQ(p.boost->containers[0].boosted_milli, 300);
    ASSERT_TRUE(p.ready_since);
    EXPECT_EQ(core::format_rfc3339(*p.ready_since), "2026-01-01T00:00:10Z");
    // The merge patch that records the end (the pod's other annotations stay).
    auto ended = *p.boost;
    ended.ended = true;
    EXPECT_EQ(boost_annotation_patch(ended),
              R"({"metadata":{"annotations":{"vpaplus.hpaplus.io/startup-boost":)"
              R"("{\"vpaplus\":\"web\",\"containers\":[{\"name\":\"app\",\"boosted\":)"
              R"(\"300m\",\"request\":\"100m\",\"limit\":\"200m\"}],\"ended\":true}"}}})");
}

} // namespace
} // namespace hpaplus::kinds
