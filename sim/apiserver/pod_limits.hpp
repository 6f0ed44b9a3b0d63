// sim/apiserver/pod_limits.hpp — the admission plugins that bound what pods may ask for, as
// kube-apiserver runs them on every pod create (the API's and the workload controllers' alike):
// LimitRanger (a namespace's LimitRanges default a container's requests and limits, then bound
// them) and ResourceQuota (a pod is refused when it would take a quota's usage past its hard
// limit), with the quota controller that keeps each ResourceQuota's status.
#pragma once

#include "sim/api_error.hpp"
#include "sim/json_util.hpp"
#include "sim/store.hpp"

#include <optional>
#include <string>

namespace hpaplus::sim {

/// LimitRanger's mutation: each container's missing requests and limits from the namespace's
/// LimitRanges (type Container: default, defaultRequest; max and min standing in as upstream's
/// defaulting has them), noted in the pod's `kubernetes.io/limit-ranger` annotation. A pod with
/// generateName gets its name here, as the API server names it before admission.
void apply_limit_ranges(object_store& store, const std::string& ns, json_doc& pod);

/// LimitRanger's and ResourceQuota's verdict on creating `pod` in `ns`: a 403 in upstream's
/// words (`pods "web-x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2,
/// limited: pods=2`), or nullopt.
std::optional<api_error> admit_pod_limits(object_store& store, const std::string& ns,
                                          const json& pod);

/// The quota controller: each ResourceQuota of `ns` gets status.hard (its spec.hard) and
/// status.used (what the namespace's pods that are not finished use), written when changed.
void refresh_quota_status(object_store& store, const std::string& ns);

} // namespace hpaplus::sim
