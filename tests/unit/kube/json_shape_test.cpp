// The informer's transforms (kube/json_shape): a pod with every field the decoders read — and
// the heavy ones they do not — decodes the same kept or whole, for the horizontal side
// (decode_pod) and for VPAPlus (decode_vertical_pod), and what is kept is a fraction of it; a
// Deployment reads the same (its Scale view and rollout) without its pod template; HPAPlus's own
// kinds lose only their managed fields.
#include "kube/api/vpaplus.hpp"
#include "kube/decode.hpp"
#include "kube/json_decoder.hpp"
#include "kube/json_shape.hpp"
#include "kube/scale_target.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace hpaplus::kube {
namespace {

const char* const full_pod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {
    "name": "web-7d4b9c-x2k4p", "namespace": "shop", "uid": "3f1c", "resourceVersion": "812",
    "generation": 2, "labels": {"app": "web", "pod-template-hash": "7d4b9c"},
    "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-11-01T00:00:00Z"},
    "deletionTimestamp": "2026-11-26T10:00:00Z",
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d4b9c",
                         "uid": "9a", "controller": true, "blockOwnerDeletion": true}],
    "managedFields": [{"manager": "kube-controller-manager", "operation": "Update",
                       "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:labels": {}}}}]
  },
  "spec": {
    "initContainers": [{"name": "proxy", "image": "envoy", "restartPolicy": "Always",
                        "resources": {"requests": {"cpu": "50m", "memory": "32Mi"}}}],
    "containers": [{"name": "app", "image": "nginx:1.27", "args": ["--port", "8080"],
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                    "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
                    "volumeMounts": [{"name": "kube-api-access", "mountPath": "/var/run"}],
                    "resources": {"requests": {"cpu": "250m", "memory": "256Mi"},
                                  "limits": {"cpu": "1", "memory": "512Mi"}}}],
    "resources": {"requests": {"cpu": "400m"}},
    "volumes": [{"name": "kube-api-access", "projected": {"sources": [{"serviceAccountToken":
                 {"expirationSeconds": 3607, "path": "token"}}]}}],
    "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                     "effect": "NoExecute", "tolerationSeconds": 300}],
    "nodeName": "node-1", "serviceAccountName": "default"
  },
  "status": {
    "phase": "Running", "startTime": "2026-11-26T09:00:00Z", "resize": "InProgress",
    "hostIP": "10.0.0.5", "podIP": "10.1.2.3", "qosClass": "Burstable",
    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-26T09:00:05Z"},
                   {"type": "PodResizePending", "status": "True", "reason": "Infeasible"},
                   {"type": "PodResizeInProgress", "status": "True", "reason": "Error"}],
    "containerStatuses": [{"name": "app", "ready": true, "restartCount": 1,
                           "image": "nginx:1.27", "imageID": "docker.io/library/nginx@sha256:ab",
                           "containerID": "containerd://1", "started": true,
                           "resources": {"requests": {"cpu": "300m", "memory": "256Mi"},
                                         "limits": {"cpu": "1", "memory": "512Mi"}},
                           "lastState": {"terminated": {"reason": "OOMKilled", "exitCode": 137,
                             "startedAt": "2026-11-26T08:00:00Z",
                             "finishedAt": "2026-11-26T08:59:00Z"}}}]
  }
})";

TEST(PodShape, DecodesAsTheWholePodForBothSides) {
    rapidjson::Document whole;
    whole.Parse(full_pod);
    ASSERT_FALSE(whole.HasParseError());
    const std::string kept_text = shaped_json(whole, *pod_shape());
    rapidjson::Document kept;
    kept.Parse(kept_text.c_str());
    ASSERT_FALSE(kept.HasParseError()) << kept_text;

    json_decoder d1, d2;
    const auto a = decode_pod(d1, {&whole, ""});
    const auto b = decode_pod(d2, {&kept, ""});
    ASSERT_TRUE(d1.ok() && d2.ok());
    EXPECT_TRUE(a == b) << kept_text;
    EXPECT_EQ(b.containers.at(0).requests.size(), 2u) << "the applied resources were read";
    EXPECT_TRUE(b.init_containers.at(0).restart_always);
    EXPECT_TRUE(b.ready.has_value());

    const auto v1 = decode_vertical_pod({&whole, ""});
    const auto v2 = decode_vertical_pod({&kept, ""});
    EXPECT_TRUE(v1 == v2) << kept_text;
    EXPECT_TRUE(v2.controlled && v2.has_annotations && v2.deleting);
    EXPECT_EQ(v2.oom_kills.size(), 1u);
    EXPECT_EQ(v2.resize_pending, "Infeasible");

    for (const char* dropped : {"managedFields", "env", "livenessProbe", "volumes", "tolerations",
                                "imageID", "restartedAt", "nodeName", "blockOwnerDeletion"})
        EXPECT_EQ(kept_text.find(dropped), std::string::npos) << dropped;
    EXPECT_LT(kept_text.size() * 2, std::string(full_pod).size());
}

// A Deployment mid-rollout (a newer generation than observed, a stuck condition), with the pod
// template and managed fields real ones carry.
const char* const full_deployment = R"({
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {
    "name": "web", "namespace": "shop", "uid": "77", "resourceVersion": "901", "generation": 4,
    "labels": {"app": "web"},
    "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"big\":true}"},
    "managedFields": [{"manager": "kubectl", "operation": "Apply", "fieldsType": "FieldsV1",
                       "fieldsV1": {"f:spec": {"f:replicas": {}}}}]
  },
  "spec": {
    "replicas": 6,
    "selector": {"matchLabels": {"app": "web"},
                 "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]},
    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}},
    "template": {"metadata": {"labels": {"app": "web", "tier": "a"}},
                 "spec": {"containers": [{"name": "app", "image": "nginx:1.27",
                                          "env": [{"name": "A", "value": "1"}],
                                          "resources": {"requests": {"cpu": "250m"}}}]}}
  },
  "status": {
    "observedGeneration": 3, "replicas": 7, "updatedReplicas": 2, "availableReplicas": 5,
    "readyReplicas": 5,
    "conditions": [{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
                    "lastTransitionTime": "2026-11-26T09:00:00Z"}]
  }
})";

bool same_view(const target_view& a, const target_view& b) {
    return a.error == b.error && a.resource_version == b.resource_version &&
           a.scale.has_value() == b.scale.has_value() &&
           (!a.scale || (a.scale->spec_replicas == b.scale->spec_replicas &&
                         a.scale->status_replicas == b.scale->status_replicas &&
                         a.scale->selector == b.scale->selector)) &&
           a.rollout.has_value() == b.rollout.has_value() &&
           (!a.rollout || (a.rollout->in_progress == b.rollout->in_progress &&
                           a.rollout->message == b.rollout->message));
}

TEST(DeploymentShape, ReadsAsTheWholeDeployment) {
    rapidjson::Document whole;
    whole.Parse(full_deployment);
    ASSERT_FALSE(whole.HasParseError());
    const std::string kept = shaped_json(whole, *deployment_shape());
    const target_view a = scale_from_deployment(full_deployment);
    const target_view b = scale_from_deployment(kept);
    ASSERT_TRUE(a.scale && a.rollout) << a.error;
    EXPECT_TRUE(same_view(a, b)) << kept;
    EXPECT_EQ(b.scale->spec_replicas, 6);
    EXPECT_EQ(b.scale->status_replicas, 7);
    EXPECT_NE(b.scale->selector.find("tier in"), std::string::npos) << b.scale->selector;
    EXPECT_EQ(b.resource_version, "901");
    json_decoder d1, d2;
    rapidjson::Document k;
    k.Parse(kept.c_str());
    const auto r1 = decode_rollout_status(d1, {&whole, ""});
    const auto r2 = decode_rollout_status(d2, {&k, ""});
    ASSERT_TRUE(d1.ok() && d2.ok());
    EXPECT_TRUE(r2.progress_deadline_exceeded);
    EXPECT_EQ(r1.generation, r2.generation);
    EXPECT_EQ(r1.observed_generation, r2.observed_generation);
    EXPECT_EQ(r1.updated_replicas, r2.updated_replicas);
    EXPECT_EQ(r1.available_replicas, r2.available_replicas);
    EXPECT_EQ(r1.spec_replicas, r2.spec_replicas);
    for (const char* dropped : {"managedFields", "template", "last-applied", "nginx"})
        EXPECT_EQ(kept.find(dropped), std::string::npos) << dropped;
}

// HPAPlus's own kinds are kept whole but for their managed fields: the result is the object with
// metadata.managedFields removed, member for member, in order.
TEST(CustomResourceShape, KeepsAllButTheManagedFields) {
    const char* const hpaplus = R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1",
      "kind":"HPAPlus","metadata":{"name":"web","namespace":"shop","uid":"u1",
      "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"},
      "managedFields":[{"manager":"hpaplus","operation":"Update","subresource":"status"}],
      "creationTimestamp":"2026-11-26T10:00:00Z","finalizers":["x"]},
      "spec":{"minReplicas":2,"behavior":{"scaleDown":{"policies":[{"type":"Pods","value":1}]}}},
      "status":{"currentReplicas":3,"conditions":[{"type":"AbleToScale","status":"True"}]},
      "extra":[1,{"managedFields":"kept: not metadata's"}]})";
    rapidjson::Document whole, kept, want;
    whole.Parse(hpaplus);
    ASSERT_FALSE(whole.HasParseError());
    const std::string text = shaped_json(whole, *custom_resource_shape());
    kept.Parse(text.c_str());
    want.Parse(hpaplus);
    want["metadata"].RemoveMember("managedFields");
    EXPECT_TRUE(kept == want) << text;
    EXPECT_EQ(text.find("Update"), std::string::npos) << text;

    rapidjson::Document odd;
    odd.Parse(R"({"metadata":["not","an","object"],"spec":7})");
    EXPECT_EQ(shaped_json(odd, *custom_resource_shape()),
              R"({"metadata":["not","an","object"],"spec":7})");
}

TEST(PodShape, UnexpectedTypesAreKeptAsTheyAre) {
    rapidjson::Document odd;
    odd.Parse(R"({"metadata":"not an object","spec":{"containers":"nope"},"extra":1})");
    EXPECT_EQ(shaped_json(odd, *pod_shape()),
              R"({"metadata":"not an object","spec":{"containers":"nope"}})");
}

} // namespace
} // namespace hpaplus::kube
