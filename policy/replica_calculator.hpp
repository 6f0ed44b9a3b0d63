// policy/replica_calculator.hpp — the upstream replica calculator on already-fetched data.
// Every function mirrors its namesake in kube-controller-manager's replica_calculator.go,
// including integer truncation, ceil rounding and the rebalancing of missing and unready pods.
#pragma once

#include "policy/pod_grouping.hpp"
#include "policy/types.hpp"

#include "core/outcome.hpp"
#include <boost/system/result.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::policy {

/// Usage-ratio tolerances (KEP-4951): a ratio r is within when 1 - down <= r <= 1 + up.
struct tolerances {
    double scale_down = 0.1;
    double scale_up = 0.1;
    bool within(double ratio) const noexcept {
        return 1.0 - scale_down <= ratio && ratio <= 1.0 + scale_up;
    }
};

/// What every pod-based calculation needs besides the samples.
struct calculator_context {
    std::int32_t current_replicas = 0; ///< scale.spec.replicas
    tolerances tol;
    const std::vector<const pod_info*>* pods =
        nullptr; ///< pods selected by the target (namespace + selector)
    const controller_config* config = nullptr;
    core::time_point now{};
    unready_pods unready = unready_pods::ignore; ///< HPAPlus spec.unreadyPods
};

/// unreadyPods Count: the pods a calculation counted that upstream would have left out (views of
/// the pods' names).
using counted_pods = std::vector<std::string_view>;

/// Result of a utilization calculation.
struct utilization_result {
    std::int32_t replicas = 0;
    std::int32_t utilization = 0; ///< integer percent, as reported in status
    std::int64_t raw_average = 0; ///< average usage in milli-units
    counted_pods counted_unready;
};

/// `GetResourceReplicas` (Resource / ContainerResource, Utilization target). `basis` = limits is
/// HPAPlus.
core::outcome<utilization_result>
resource_utilization_replicas(const calculator_context& ctx, const sample_set& samples,
                              std::int32_t target_utilization, std::string_view resource,
                              std::string_view container, usage_basis basis);

/// Result of a plain-value calculation.
struct usage_result {
    std::int32_t replicas = 0;
    std::int64_t usage = 0; ///< average (pods) or total (objects) in milli-units
    counted_pods counted_unready;
};

/// `calcPlainMetricReplicas` (Resource AverageValue with `resource` set; Pods metrics with it
/// empty).
core::outcome<usage_result> plain_metric_replicas(const calculator_context& ctx,
                                                  const sample_set& samples,
                                                  std::int64_t target_usage,
                                                  std::string_view resource);

/// `getUsageRatioReplicaCount` (Object / External Value targets): from zero replicas ceil(ratio),
/// otherwise ceil(ratio × Running-and-Ready pods) unless within tolerance. unreadyPods Count adds
/// the Running pods past their start-up windows that are not Ready (not being deleted); when that
/// still counts none, the current replicas stand in for them.
struct ratio_replicas {
    std::int32_t replicas = 0;
    counted_pods counted_unready;
    bool replicas_stood_in = false; ///< Count, no pod counted: the current replicas did
};
core::outcome<ratio_replicas> usage_ratio_replicas(const calculator_context& ctx,
                                                   double usage_ratio);

/// `Get…PerPodMetricReplicas` (Object / External AverageValue targets): uses status.replicas, no
/// pods.
usage_result per_pod_replicas(std::int32_t status_replicas, std::int64_t usage,
                              std::int64_t target_per_pod, const tolerances& tol);

/// `GetResourceUtilizationRatio`: over samples of known pods; error when no sample matches a
/// request.
struct utilization_ratio {
    double ratio = 0;
    std::int32_t utilization = 0;
    std::int64_t raw_average = 0;
};
core::outcome<utilization_ratio> resource_utilization_ratio(const sample_set& samples,
                                                            const pod_amounts& requests,
                                                            std::int32_t target_utilization);

/// int32(ceil(x)) with upstream's cap at INT32_MAX for values beyond it.
std::int32_t ceil_replicas(double x) noexcept;

} // namespace hpaplus::policy
