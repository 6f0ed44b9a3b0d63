// metrics/metrics_api.hpp — the Kubernetes metrics APIs as metric readings: metrics.k8s.io for
// Resource and ContainerResource, custom.metrics.k8s.io/v1beta2 for Pods and Object,
// external.metrics.k8s.io/v1beta1 for External, with upstream's error texts.
#pragma once

#include "core/kubernetes.hpp"
#include "kube/api_client.hpp"
#include "policy/metric_evaluation.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::metrics {

/// The PodMetrics of the target's pods (one list serves every resource metric of an object).
struct pod_metrics_answer {
    /// The pods' metrics: views into `list`, which may hold more (a namespace's shared list).
    std::vector<const core::pod_metrics*> items;
    std::shared_ptr<const std::vector<core::pod_metrics>> list;
    std::string error;
    /// Which shared read answered (shared_pod_metrics numbers them from 1); 0: a read of its own.
    std::uint64_t shared_read = 0;
};

/// Runs on: the client's executor. Cancellation: none (bounded by the request timeouts).
boost::asio::awaitable<pod_metrics_answer>
list_pod_metrics(kube::api_client& client, std::string ns, std::string pod_selector);

/// A Resource or ContainerResource reading from the PodMetrics list.
void set_resource_reading(const pod_metrics_answer& answer, const policy::metric_spec& spec,
                          policy::metric_reading& r);

/// A Pods, Object or External reading from the custom or external metrics API.
/// Runs on: the client's executor. Cancellation: none (bounded by the request timeouts).
boost::asio::awaitable<policy::metric_reading> read_custom_or_external(kube::api_client& client,
                                                                       std::string ns,
                                                                       std::string pod_selector,
                                                                       policy::metric_spec spec);

/// The selector string for a metric's `selector` (empty when none).
std::string selector_text(const std::optional<core::label_selector_spec>& spec);

} // namespace hpaplus::metrics
