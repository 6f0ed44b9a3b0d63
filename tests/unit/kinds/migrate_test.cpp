// HorizontalPodAutoscaler → HPAPlus (kube/api/migrate) and the autoscaling.hpaplus.io/ annotations
// (kube/api/hpa_annotations): the spec survives field for field — decoded, both are the same
// autoscaler — and only the annotations add to it.
#include "kinds/decode.hpp"
#include "kinds/hpa_annotations.hpp"
#include "kinds/migrate.hpp"
#include "kube/encode.hpp"
#include "kube/json_decoder.hpp"
#include "kube/yaml_json.hpp"

#include <gtest/gtest.h>

namespace hpaplus::kinds {
namespace {

rapidjson::Document from_yaml(const std::string& yaml) {
    rapidjson::Document doc;
    const auto json = kube::yaml_documents_to_json(yaml);
    EXPECT_TRUE(json) << json.error().text;
    if (json) doc.Parse(json->front().c_str());
    return doc;
}

policy::autoscaler decode(const rapidjson::Value& v) {
    kube::json_decoder d;
    auto a = decode_autoscaler(d, kube::json_node{&v, ""});
    EXPECT_TRUE(d.ok()) << d.error().to_string();
    return a;
}

const char* const v2_hpa = R"(
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: shop
  uid: 0b1c
  resourceVersion: "42"
  generation: 3
  creationTimestamp: "2026-01-01T00:00:00Z"
  managedFields: [{manager: kube-controller-manager, operation: Update}]
  labels: {team: payments}
  annotations:
    owner: alice
    kubectl.kubernetes.io/last-applied-configuration: '{"kind":"HorizontalPodAutoscaler"}'
    autoscaling.hpaplus.io/sync-period-seconds: "5"
    autoscaling.hpaplus.io/mode: DryRun
    autoscaling.hpaplus.io/rollout-policy: FreezeScaleDown
    autoscaling.hpaplus.io/pod-selection: OwnerReferences
    autoscaling.hpaplus.io/unready-pods: Count
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 20
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
  - type: External
    external:
      metric: {name: queue, selector: {matchLabels: {queue: orders}}}
      target: {type: AverageValue, averageValue: 30}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 600
      policies: [{type: Percent, value: 10, periodSeconds: 60}]
status:
  currentReplicas: 4
  desiredReplicas: 4
)";

TEST(Migrate, KeepsTheSpecFieldForFieldAndTurnsAnnotationsIntoFields) {
    const auto hpa = from_yaml(v2_hpa);
    const auto migrated = migrate_hpa(hpa);
    ASSERT_TRUE(migrated) << migrated.error().text;
    EXPECT_TRUE(migrated->warnings.empty());
    const auto& out = migrated->object;
    EXPECT_STREQ(out["apiVersion"].GetString(), "autoscaling.hpaplus.io/v1alpha1");
    EXPECT_STREQ(out["kind"].GetString(), "HPAPlus");
    EXPECT_EQ(kube::to_json_text(out["metadata"]),
              R"({"name":"web","namespace":"shop","labels":{"team":"payments"},)"
              R"("annotations":{"owner":"alice"}})");
    EXPECT_FALSE(out.HasMember("status"));

    policy::autoscaler before = decode(hpa);
    const policy::autoscaler after = decode(out);
    EXPECT_EQ(after.spec.sync_period_seconds, 5);
    EXPECT_EQ(after.spec.mode, policy::run_mode::dry_run);
    EXPECT_EQ(after.spec.rollout, policy::rollout_policy::freeze_scale_down);
    EXPECT_EQ(after.spec.pods, policy::pod_selection::owner_references);
    EXPECT_EQ(after.spec.unready, policy::unready_pods::count);
    // Apart from those five, the same autoscaler: re-encoding both specs gives the same JSON.
    rapidjson::Document spec_before(rapidjson::kObjectType);
    spec_before.CopyFrom(hpa["spec"], spec_before.GetAllocator());
    rapidjson::Document spec_after(rapidjson::kObjectType);
    spec_after.CopyFrom(out["spec"], spec_after.GetAllocator());
    for (const char* extra :
         {"syncPeriodSeconds", "mode", "rolloutPolicy", "podSelection", "unreadyPods"})
        spec_after.RemoveMember(extra);
    EXPECT_EQ(kube::to_json_text(spec_after), kube::to_json_text(spec_before));
    EXPECT_EQ(after.spec.metrics.size(), before.spec.metrics.size());
    EXPECT_EQ(after.spec.max_replicas, before.spec.max_replicas);
}

TEST(Migrate, AnAutoscalingV1TargetBecomesItsCpuMetric) {
    const auto hpa = from_yaml(R"(
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 3
  maxReplicas: 5
  targetCPUUtilizationPercentage: 50
)");
    const auto migrated = migrate_hpa(hpa);
    ASSERT_TRUE(migrated) << migrated.error().text;
    EXPECT_EQ(kube::to_json_text(migrated->object["spec"]),
              R"({"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},)"
              R"("minReplicas":3,"maxReplicas":5,"metrics":[{"type":"Resource","resource":)"
              R"({"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]})");
}

TEST(Migrate, ABadAnnotationIsAWarningAndLeftOut) {
    auto yaml = std::string(v2_hpa);
    yaml.replace(yaml.find("mode: DryRun"), 12, "mode: Sometimes");
    const auto migrated = migrate_hpa(from_yaml(yaml));
    ASSERT_TRUE(migrated);
    ASSERT_EQ(migrated->warnings.size(), 1u);
    EXPECT_EQ(migrated->warnings[0], "annotation autoscaling.hpaplus.io/mode: want Auto, DryRun or "
                                     "Off, got \"Sometimes\"; ignored");
    EXPECT_FALSE(migrated->object["spec"].HasMember("mode"));
}

TEST(Migrate, OnlyHorizontalPodAutoscalers) {
    EXPECT_EQ(migrate_hpa(from_yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: "
                                    "web}\nspec: {}\n"))
                  .error()
                  .text,
              "a Deployment, not a HorizontalPodAutoscaler");
    EXPECT_EQ(migrate_hpa(from_yaml("apiVersion: autoscaling/v2beta1\nkind: "
                                    "HorizontalPodAutoscaler\nmetadata: {name: web}\nspec: {}\n"))
                  .error()
                  .text,
              "apiVersion autoscaling/v2beta1 is not autoscaling/v2, autoscaling/v2beta2 or "
              "autoscaling/v1");
}

TEST(HpaAnnotations, EachValueCheckedLikeItsSpecField) {
    const auto a = read_hpa_annotations({{sync_period_annotation, "0"},
                                         {rollout_policy_annotation, "Freeze"},
                                         {"autoscaling.hpaplus.io/controller", "hpaplus"},
                                         {"autoscaling.hpaplus.io/syncPeriod", "5"},
                                         {"example.com/other", "x"}});
    EXPECT_FALSE(a.sync_period_seconds);
    EXPECT_EQ(a.rollout_policy, "Freeze");
    ASSERT_EQ(a.problems.size(), 2u);
    EXPECT_EQ(a.problems[0], "annotation autoscaling.hpaplus.io/sync-period-seconds: want whole "
                             "seconds from 1 to 86400, got \"0\"; ignored");
    EXPECT_EQ(a.problems[1],
              "annotation autoscaling.hpaplus.io/syncPeriod is not one HPAPlus knows; ignored");
    EXPECT_EQ(read_hpa_annotations({{sync_period_annotation, "86400"}}).sync_period_seconds, 86400);
    EXPECT_EQ(read_hpa_annotations({{pod_selection_annotation, "OwnerReferences"}}).pod_selection,
              "OwnerReferences");
    const auto bad = read_hpa_annotations({{pod_selection_annotation, "Owners"}});
    EXPECT_FALSE(bad.pod_selection);
    ASSERT_EQ(bad.problems.size(), 1u);
    EXPECT_EQ(bad.problems[0], "annotation autoscaling.hpaplus.io/pod-selection: want "
                               "LabelSelector or OwnerReferences, got \"Owners\"; ignored");
    EXPECT_FALSE(read_hpa_annotations({{sync_period_annotation, "5s"}}).sync_period_seconds);
    EXPECT_EQ(read_hpa_annotations({{unready_pods_annotation, "Count"}}).unready_pods, "Count");
    const auto never = read_hpa_annotations({{unready_pods_annotation, "Never"}});
    EXPECT_FALSE(never.unready_pods);
    ASSERT_EQ(never.problems.size(), 1u);
    EXPECT_EQ(never.problems[0], "annotation autoscaling.hpaplus.io/unready-pods: want Ignore or "
                                 "Count, got \"Never\"; ignored");
}

} // namespace
} // namespace hpaplus::kinds
