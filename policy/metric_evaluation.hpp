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
    /// Object / External: the oldest value's own time, when the answer gives one
    /// (metrics[].maxSampleAgeSeconds judges it; per-pod samples carry their own).
    std::optional<core::time_point> sample_time;
    /// What the samples' pod names view into (the PodMetrics list, a backend's answer), kept with
    /// them; a sample filled in for a pod without one views the pod's record instead.
    std::shared_ptr<const void> names;
};

/// Object / External: keeps `t` as the reading's sample time when it is older than the one kept
/// (an unset time — the epoch — is no time).
void note_sample_time(metric_reading& r, core::time_point t);

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
    unready_pods unready = unready_pods::ignore; ///< HPAPlus spec.unreadyPods
};

/// The calculator's part of a metric context.
inline calculator_context calculator_of(const metric_context& ctx) {
    return {ctx.spec_replicas, ctx.tol, ctx.pods, ctx.config, ctx.now, ctx.unready};
}

struct metric_outcome {
    bool ok = false;
    std::int32_t proposal = 0;
    std::string name; ///< e.g. "cpu resource utilization (percentage of request)"
    std::optional<metric_status> status; ///< set when ok
    std::string error;          ///< the wrapped error (upstream's computeReplicasForMetric)
    std::string failure_reason; ///< FailedGetResourceMetric, FailedGetPodsMetric, ...
    std::string failure_detail; ///< the Warning event's text; the condition says "...: " + this
    /// unreadyPods Count: the pods counted that upstream leaves out, and whether the current
    /// replicas stood in for ready pods (none was counted).
    counted_pods counted_unready;
    bool replicas_stood_in = false;
};

/// Evaluates one metric on already-fetched data, with its own tolerance band when it has one; a
/// sample older than its maxSampleAgeSeconds fails it as a failed read would.
metric_outcome evaluate_metric(const metric_spec& spec, const metric_reading& reading,
                               const metric_context& ctx);

/// The tolerances of an autoscaler (`tolerancesForHpa`, with configurable tolerance always on).
tolerances tolerances_for(const autoscaler_spec& spec, const controller_config& config);
/// One metric's band: its metrics[].tolerance, each side it leaves out the object's `band`.
tolerances tolerances_for(const metric_spec& spec, const tolerances& band);

/// The time of a reading's oldest sample, when its answer said (nullopt: unknown, or a failed
/// read).
std::optional<core::time_point> oldest_sample(const metric_reading& reading);
/// "sample from 9m58s ago, older than maxSampleAgeSeconds 120" when the reading is older than
/// spec.maxSampleAgeSeconds at `now`; nullopt when fresh enough, of unknown age or unbounded.
std::optional<std::string> stale_sample(const metric_spec& spec, const metric_reading& reading,
                                        core::time_point now);

/// Go's `%+v` of a *metav1.LabelSelector (used in upstream's event texts): `nil` or
/// `&LabelSelector{...}`.
std::string go_selector_string(const std::optional<core::label_selector_spec>& selector);

/// How upstream names a metric in conditions and rescale reasons
/// ("cpu resource utilization (percentage of request)", "pods metric qps", ...).
std::string metric_name(const metric_spec& spec);

/// The metric type's name in the API (`Resource`, `ContainerResource`, ...).
const char* to_string(metric_source_type type);

} // namespace hpaplus::policy
