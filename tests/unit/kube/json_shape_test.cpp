// The informer's pod transform (kube/json_shape): a pod with every field the decoders read — and
// the heavy ones they do not — decodes the same kept or whole, for the horizontal side
// (decode_pod) and for VPAPlus (decode_vertical_pod), and what is kept is a fraction of it.
#include "kube/api/vpaplus.hpp"
#include "kube/decode.hpp"
#include "kube/json_decoder.hpp"
#include "kube/json_shape.hpp"

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

TEST(PodShape, UnexpectedTypesAreKeptAsTheyAre) {
    rapidjson::Document odd;
    odd.Parse(R"({"metadata":"not an object","spec":{"containers":"nope"},"extra":1})");
    EXPECT_EQ(shaped_json(odd, *pod_shape()),
              R"({"metadata":"not an object","spec":{"containers":"nope"}})");
}

} // namespace
} // namespace hpaplus::kube
