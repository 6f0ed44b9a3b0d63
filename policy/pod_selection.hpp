// policy/pod_selection.hpp — which of the pods a target's selector matches an autoscaler counts:
// all of them (LabelSelector, upstream's behaviour) or only those whose chain of controllers leads
// to the target (OwnerReferences; KEP-5325's podSelectionStrategy): a canary, a debugging pod or
// another release that shares the labels then neither votes in the metrics nor counts as ready,
// unready or missing.
#pragma once

#include "policy/types.hpp"

#include <span>
#include <string>
#include <vector>

namespace hpaplus::policy {

/// One controller between a pod and the workload: `object` (a ReplicaSet) is controlled by
/// `controller` (its Deployment).
struct controller_link {
    core::object_reference object;
    core::object_reference controller;
    friend bool operator==(const controller_link&, const controller_link&) = default;
};

/// True when `pod`'s controller is `target`, or its controller's controller (through `links`),
/// and so on for a few hops. Kinds and names must be equal; API versions only by group, and only
/// when both are given (a scaleTargetRef may leave it out).
bool owned_by(const pod_info& pod, const core::object_reference& target,
              std::span<const controller_link> links);

/// Keeps in `pods` those `target` owns and returns the names of the others, sorted.
std::vector<std::string> keep_owned(std::vector<const pod_info*>& pods,
                                    const core::object_reference& target,
                                    std::span<const controller_link> links);

/// "N pods match … but are not owned by Kind/name: a, b, c[, and M more]".
std::string excluded_pods_message(const std::vector<std::string>& names,
                                  const core::object_reference& target);

} // namespace hpaplus::policy
