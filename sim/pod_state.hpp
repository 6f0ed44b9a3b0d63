// sim/pod_state.hpp — small readings of pod and object state shared by the workload model and the
// metrics APIs.
#pragma once

#include "sim/store.hpp"

#include <string>

namespace hpaplus::sim {

/// The pod's Ready condition is True.
bool pod_ready(const stored_object& pod);
/// The uid of the Deployment that owns the pod, or "".
std::string deployment_owner_uid(const stored_object& pod);
/// An annotation's value, or "".
std::string annotation(const json& obj, const std::string& key);

} // namespace hpaplus::sim
