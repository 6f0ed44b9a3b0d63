// kube/json_shape.hpp — which parts of an object an informer keeps (client-go's SetTransform): a
// cache of every pod in a cluster holds each pod's JSON, most of it (managed fields, env, volumes,
// probes, images, tolerations) never read by the controller. A shape names the members to keep;
// everything else is dropped when the object enters the cache.
#pragma once

#include <rapidjson/fwd.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hpaplus::kube {

struct json_shape {
    /// Members kept, each filtered by its own shape (an array: each element by it); a null shape
    /// keeps the value whole.
    std::vector<std::pair<std::string, std::shared_ptr<const json_shape>>> members;
    /// Keep an object as `{}` (an empty one stays absent-free): whether there is one, not what.
    bool presence_only = false;
    /// Keep the members `members` does not name too (whole), except those named in `dropped`;
    /// it overrides `presence_only` (no shape sets both).
    bool keep_others = false;
    std::vector<std::string> dropped;
};
using json_shape_cptr = std::shared_ptr<const json_shape>;

/// `value` written as JSON with only what `shape` keeps (an object not matching the shape's
/// expectations — a string where an object was expected — is kept as it is).
std::string shaped_json(const rapidjson::Value& value, const json_shape& shape);

/// What the controller reads of a v1 Pod: kube::decode_pod (the horizontal side) and
/// decode_vertical_pod (VPAPlus). A decoder that reads another field must add it here; the test
/// kube/json_shape_test decodes a pod with every field both ways and compares.
json_shape_cptr pod_shape();

/// What the controller reads of an apps/v1 Deployment (kube::scale_from_deployment, with
/// decode_rollout_status): its pod template — most of it — and managed fields are dropped. The
/// test kube/json_shape_test decodes a Deployment both ways and compares.
json_shape_cptr deployment_shape();

/// What the controller keeps of its own kinds (HPAPlus, CronHPA, VPAPlus): all but the managed
/// fields, which it reads of plain HPAs only (kube/api/native_hpa).
json_shape_cptr custom_resource_shape();

} // namespace hpaplus::kube
