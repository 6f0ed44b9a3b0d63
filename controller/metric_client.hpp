// controller/metric_client.hpp — one autoscaler's metrics from the Kubernetes metrics APIs
// (metrics.k8s.io for Resource and ContainerResource, custom.metrics.k8s.io/v1beta2 for Pods and
// Object, external.metrics.k8s.io/v1beta1 for External), turned into the readings policy/ reads,
// with upstream's error texts. One PodMetrics list serves every resource metric of the object.
#pragma once

#include "kube/api_client.hpp"
#include "policy/metric_evaluation.hpp"

#include <boost/asio/awaitable.hpp>

#include <string>
#include <vector>

namespace hpaplus::controller {

/// One reading per entry of `hpa.spec.metrics`, in order. `pod_selector` is the target's
/// selector (string form). A metric with a named backend gets an error until backends exist.
/// Runs on: the client's executor. Cancellation: none (bounded by the request timeouts).
boost::asio::awaitable<std::vector<policy::metric_reading>>
read_metrics(kube::api_client& client, const policy::autoscaler& hpa,
             const std::string& pod_selector);

/// The selector string for a metric's `selector` (empty when none).
std::string selector_text(const std::optional<core::label_selector_spec>& spec);

} // namespace hpaplus::controller
