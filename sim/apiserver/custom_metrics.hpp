// sim/apiserver/custom_metrics.hpp — custom.metrics.k8s.io/v1beta2 and
// external.metrics.k8s.io/v1beta1 served from values set with kubectl:
//   pods metric:     pod annotation sim.hpaplus.io/metric.NAME=VALUE, or a Deployment annotation
//                    sim.hpaplus.io/pods-metric.NAME=TOTAL spread over its ready pods
//   object metric:   annotation sim.hpaplus.io/metric.NAME=VALUE on the described object
//   external metric: a ConfigMap labelled sim.hpaplus.io/external-metric=NAME with data.value;
//                    its other labels are the series' metricLabels
#pragma once

#include "core/label_selector.hpp"
#include "sim/store.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hpaplus::sim {

struct metrics_answer {
    int status = 200;
    std::string body; ///< a MetricValueList / ExternalMetricValueList, or a Status
};

/// Every custom Pods metric a pod has now (name → value), from its own annotations and its
/// Deployment's `sim.hpaplus.io/pods-metric.NAME`.
std::vector<std::pair<std::string, double>> pod_custom_metrics(object_store& store,
                                                               const stored_object& pod);

/// `parts` is the path after `/apis/custom.metrics.k8s.io/v1beta2/`.
metrics_answer custom_metrics(object_store& store, const std::vector<std::string>& parts,
                              const core::label_selector& selector);

/// `parts` is the path after `/apis/external.metrics.k8s.io/v1beta1/`.
metrics_answer external_metrics(object_store& store, const std::vector<std::string>& parts,
                                const core::label_selector& selector);

} // namespace hpaplus::sim
