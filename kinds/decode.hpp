// kinds/decode.hpp — the Kubernetes objects HPAPlus reads, decoded from their JSON wire form into
// policy types. Kubernetes objects are read leniently (unknown fields ignored, as clients must);
// the autoscaler spec, which HPAPlus owns, strictly (an unknown field there is a typo to report).
#pragma once

#include "kube/json_decoder.hpp"
#include "policy/rollout.hpp"
#include "policy/types.hpp"

#include <string>

namespace hpaplus::kinds {

/// An autoscaling/v2 HorizontalPodAutoscaler or an autoscaling.hpaplus.io/v1alpha1 HPAPlus.
policy::autoscaler decode_autoscaler(kube::json_decoder& d, const kube::json_node& n);

/// True when `n`, an object decode_autoscaler reads, is an HPAPlus (its kind, or without one its
/// apiVersion, says so): it then runs with the HPAScaleToZero gate on
/// (policy::controller_config::scale_to_zero).
bool is_hpaplus(const kube::json_node& n);

/// A `{kind, name, apiVersion}` reference (scaleTargetRef, describedObject), strictly.
core::object_reference decode_reference(kube::json_decoder& d, const kube::json_node& n);

/// A list of Kubernetes-style status conditions.
std::vector<core::condition> decode_conditions(kube::json_decoder& d, const kube::json_node& n);

/// The status of an autoscaler alone (readable even when its spec is not).
policy::autoscaler_status decode_autoscaler_status(kube::json_decoder& d, const kube::json_node& n);

/// The controller among an object's metadata.ownerReferences (empty kind when none).
core::object_reference decode_controller(kube::json_decoder& d, const kube::json_node& metadata);

/// A v1 Pod.
policy::pod_info decode_pod(kube::json_decoder& d, const kube::json_node& n);

/// The cpu entry of a resource list in millicores (nullopt when there is none).
std::optional<std::int64_t> cpu_milli(const core::resource_list& list);

/// An autoscaling/v1 Scale.
policy::scale_snapshot decode_scale(kube::json_decoder& d, const kube::json_node& n);

/// One item of a custom.metrics.k8s.io MetricValueList (v1beta2 `metric.name` or v1beta1
/// `metricName`).
struct custom_metric_item {
    core::object_reference described_object;
    std::string described_namespace;
    std::string metric_name;
    core::time_point timestamp{};
    std::chrono::nanoseconds window{0};
    std::int64_t milli = 0;
};
custom_metric_item decode_custom_metric_item(kube::json_decoder& d, const kube::json_node& n);

/// One item of an external.metrics.k8s.io ExternalMetricValueList.
struct external_metric_item {
    std::string metric_name;
    core::label_map labels;
    core::time_point timestamp{};
    std::int64_t milli = 0;
};
external_metric_item decode_external_metric_item(kube::json_decoder& d, const kube::json_node& n);

/// The rollout fields of an apps/v1 Deployment (or any workload with the same status shape).
policy::workload_rollout_status decode_rollout_status(kube::json_decoder& d,
                                                      const kube::json_node& n);

} // namespace hpaplus::kinds
