// policy/metric_evaluation.hpp — one metric of an autoscaler: its proposal, status and, on failure,
// the condition reason and texts upstream produces (computeReplicasForMetric and
// computeStatusFor*).
#pragma once

#include "core/outcome.hpp"
#include "policy/pod_grouping.hpp"
#include "policy/replica_calculator.hpp"
#include "policy/types.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::policy {

/// What the metric clients returned for one metric; `error` holds the client's own error text.
struct metric_reading {
    std::optional<std::string> error;
    sample_set samples;            ///< Resource, ContainerResource, Pods
    std::int64_t object_value = 0; ///< Object (milli)
    std::vector<std::int64_t>
        external_values; ///< External (milli), already filtered by the metric selector
    /// What the samples' pod names view into (the PodMetrics list, a backend's answer), kept with
    /// them; a sample filled in for a pod without one views the pod's record instead.
    std::shared_ptr<const void> names;
};

/// Stores `samples` in `r`, or their error text in `r.error`.
void set_samples(metric_reading& r, core::outcome<sample_set> samples);

struct metric_context {
    std::string_view namespace_;
    std::int32_t spec_replicas = 0;
    std::int32_t status_replicas = 0;
    tolerances tol;
    const std::vector<const pod_info*>* pods = nullptr;
    const controller_config* config = nullptr;
    core::time_point now{};
};

struct metric_outcome {
    bool ok = false;
    std::int32_t proposal = 0;
    std::string name; ///< e.g. "cpu resource utilization (percentage of request)"
    std::optional<metric_status> status; ///< set when ok
    std::string error;          ///< the wrapped error (upstream's computeReplicasForMetric)
    std::string failure_reason; ///< FailedGetResourceMetric, FailedGetPodsMetric, ...
    std::string failure_detail; ///< the Warning event's text; the condition says "...: " + this
};

/// Evaluates one metric on already-fetched data.
metric_outcome evaluate_metric(const metric_spec& spec, const metric_reading& reading,
                               const metric_context& ctx);

/// The tolerances of an autoscaler (`tolerancesForHpa`, with configurable tolerance always on).
tolerances tolerances_for(const autoscaler_spec& spec, const controller_config& config);

/// Go's `%+v` of a *metav1.LabelSelector (used in upstream's event texts): `nil` or
/// `&LabelSelector{...}`.
std::string go_selector_string(const std::optional<core::label_selector_spec>& selector);

/// How upstream names a metric in conditions and rescale reasons
/// ("cpu resource utilization (percentage of request)", "pods metric qps", ...).
std::string metric_name(const metric_spec& spec);

/// The metric type's name in the API (`Resource`, `ContainerResource`, ...).
const char* to_string(metric_source_type type);

} // namespace hpaplus::policy
