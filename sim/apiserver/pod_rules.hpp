// sim/apiserver/pod_rules.hpp — what the API server enforces for pods beyond storage: the
// pods/resize and pods/eviction subresources (with PodDisruptionBudgets), QoS classes, and the
// immutability of a pod's spec.
#pragma once

#include "core/outcome.hpp"
#include "sim/api_error.hpp"
#include "sim/store.hpp"

#include <optional>
#include <string>

namespace hpaplus::sim {

/// The pod after a resize request: only containers' (and sidecars') cpu/memory resources change;
/// the QoS class must stay. `patch_type` is the Content-Type of a PATCH, or "" for a PUT body.
api_result<json_doc> resize_pod(const stored_object& pod, const json& body,
                                const std::string& patch_type);

/// An ordinary update may not change the pod spec except images, activeDeadlineSeconds and
/// added tolerations (resources change only through pods/resize).
std::optional<api_error> check_pod_update(const resource_type& t, const json& before,
                                          const json& after);

/// Whether evicting `pod` is allowed by the PodDisruptionBudgets of its namespace; the error is
/// the 429 the API server returns.
std::optional<api_error> check_disruption_budgets(object_store& store, const stored_object& pod);

} // namespace hpaplus::sim
