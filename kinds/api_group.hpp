// kinds/api_group.hpp — where our kinds live on the API server: the group, its version, and the
// resource paths of HPAPlus, CronHPA, VPAPlus and their checkpoints. Everything that names the
// group or a resource of ours takes it from here.
#pragma once

#include "kube/resources.hpp"

namespace hpaplus::kinds {

inline constexpr const char* api_group = "autoscaling.hpaplus.io";
inline constexpr const char* api_version = "v1alpha1";
/// `apiVersion` of our objects: group/version.
inline constexpr const char* group_version = "autoscaling.hpaplus.io/v1alpha1";
/// The prefix of our annotations and labels (`autoscaling.hpaplus.io/`).
inline constexpr const char* annotation_prefix = "autoscaling.hpaplus.io/";

namespace resources {
extern const kube::resource_path hpapluses;
extern const kube::resource_path cronhpas;
extern const kube::resource_path vpapluses;
extern const kube::resource_path vpapluscheckpoints;
extern const kube::resource_path hpapluscheckpoints;
} // namespace resources

} // namespace hpaplus::kinds
