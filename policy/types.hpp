// policy/types.hpp — the vocabulary of the decision core: the autoscaler spec (autoscaling/v2 plus
// the HPAPlus extensions), the pods and metric samples it reads, and its status. Plain data, no
// I/O.
#pragma once

#include "core/kubernetes.hpp"
#include "core/label_selector.hpp"
#include "core/quantity.hpp"
#include "core/time.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::policy {

// ---------------------------------------------------------------------------------------------
// Spec

/// `formula` is HPAPlus: one value computed from other (named) metrics of the same object.
enum class metric_source_type { object, pods, resource, container_resource, external, formula };
enum class metric_target_type { utilization, value, average_value };

/// `autoscaling/v2` MetricTarget.
struct metric_target {
    metric_target_type type = metric_target_type::utilization;
    std::optional<std::int32_t> average_utilization;
    std::optional<core::quantity> value;
    std::optional<core::quantity> average_value;
};

/// `autoscaling/v2` MetricIdentifier.
struct metric_identifier {
    std::string name;
    std::optional<core::label_selector_spec> selector;
};

/// HPAPlus: what utilization is measured against.
enum class usage_basis { requests, limits };

/// HPAPlus: what a metric proposes once its backend has failed for longer than `stale_after`.
enum class on_failure { fail, hold, replicas, ignore };

/// HPAPlus: per-metric fallback when the metric cannot be read.
struct fallback_spec {
    /// For this long after the last good reading, its proposal is reused.
    std::chrono::seconds stale_after{0};
    on_failure action = on_failure::fail;
    std::int32_t replicas = 0; ///< for on_failure::replicas
};

/// HPAPlus metrics[].tolerance: this metric's own band around its target. A side left out is
/// the object's (behavior.*.tolerance, else the controller's --horizontal-pod-autoscaler-tolerance).
struct metric_tolerance {
    std::optional<core::quantity> scale_up;
    std::optional<core::quantity> scale_down;
};

/// One entry of `spec.metrics`.
struct metric_spec {
    metric_source_type type = metric_source_type::resource;
    std::string resource_name;               ///< Resource / ContainerResource
    std::string container;                   ///< ContainerResource
    metric_identifier metric;                ///< Pods / Object / External
    core::object_reference described_object; ///< Object
    metric_target target;
    bool target_set = true; ///< false only for an input of a Formula that gives no target
    std::string name;       ///< HPAPlus: how a Formula refers to this metric ("" = unnamed)
    std::string formula;    ///< HPAPlus: a Formula's expression
    usage_basis basis = usage_basis::requests; ///< HPAPlus
    std::optional<fallback_spec> fallback;     ///< HPAPlus
    std::string backend;       ///< HPAPlus: named metric backend ("" = the Kubernetes metrics APIs)
    std::string backend_query; ///< HPAPlus: the backend's query template
    std::optional<metric_tolerance> tolerance; ///< HPAPlus: this metric's own band
    /// HPAPlus: a sample older than this (from the answer's own timestamp) fails the metric.
    std::optional<std::chrono::seconds> max_sample_age;
};

enum class select_policy { max, min, disabled };
enum class scaling_policy_type { pods, percent };

struct scaling_policy {
    scaling_policy_type type = scaling_policy_type::pods;
    std::int32_t value = 0;
    std::int32_t period_seconds = 0;
};

/// `autoscaling/v2` HPAScalingRules; unset fields are filled by apply_defaults().
struct scaling_rules {
    std::optional<std::int32_t> stabilization_window_seconds;
    std::optional<select_policy> select;
    std::optional<std::vector<scaling_policy>> policies;
    std::optional<core::quantity> tolerance;
};

struct behavior_spec {
    std::optional<scaling_rules> scale_up;
    std::optional<scaling_rules> scale_down;
};

/// HPAPlus: what to do while the target rolls out.
enum class rollout_policy { continue_scaling, freeze, freeze_scale_down };

/// HPAPlus: whether decisions are written.
enum class run_mode { automatic, dry_run, off };

/// The spellings of rolloutPolicy and mode, as spec fields and as annotations on native HPAs.
inline constexpr const char* rollout_policy_spellings = "Continue, Freeze or FreezeScaleDown";
inline std::optional<rollout_policy> parse_rollout_policy(std::string_view text) {
    if (text == "Continue") return rollout_policy::continue_scaling;
    if (text == "Freeze") return rollout_policy::freeze;
    if (text == "FreezeScaleDown") return rollout_policy::freeze_scale_down;
    return std::nullopt;
}
inline constexpr const char* run_mode_spellings = "Auto, DryRun or Off";
inline std::optional<run_mode> parse_run_mode(std::string_view text) {
    if (text == "Auto") return run_mode::automatic;
    if (text == "DryRun") return run_mode::dry_run;
    if (text == "Off") return run_mode::off;
    return std::nullopt;
}

/// HPAPlus spec.unreadyPods: whether Running pods past their start-up windows that are not Ready
/// are left out as upstream does (Ignore), or counted with what they measure (Count), so a
/// workload whose pods all shed readiness under load scales out instead of down.
enum class unready_pods { ignore, count };
inline constexpr const char* unready_pods_spellings = "Ignore or Count";
inline std::optional<unready_pods> parse_unready_pods(std::string_view text) {
    if (text == "Ignore") return unready_pods::ignore;
    if (text == "Count") return unready_pods::count;
    return std::nullopt;
}

/// HPAPlus: which of the pods the target's selector matches count (KEP-5325's
/// podSelectionStrategy): all of them (upstream), or only those the target owns.
enum class pod_selection { label_selector, owner_references };
inline constexpr const char* pod_selection_spellings = "LabelSelector or OwnerReferences";
inline std::optional<pod_selection> parse_pod_selection(std::string_view text) {
    if (text == "LabelSelector") return pod_selection::label_selector;
    if (text == "OwnerReferences") return pod_selection::owner_references;
    return std::nullopt;
}

/// HPAPlus spec.prediction: forecast the named metric from its own past (forecast/) and let the
/// forecast vote as one more metric, so the autoscaler scales before a recurring rise.
struct prediction_spec {
    std::string metric; ///< the name of one of spec.metrics
    enum class source { backend, recorded };
    source history = source::recorded;
    std::string backend;                                    ///< Backend: the named metric backend
    std::string query;                                      ///< Backend: its range query
    std::chrono::nanoseconds step{std::chrono::minutes(1)}; ///< the history's resolution
    std::vector<std::chrono::nanoseconds> periods{std::chrono::hours(24), std::chrono::hours(168)};
    std::chrono::nanoseconds look_ahead{std::chrono::minutes(5)};
    double margin = 0.1;
    bool preview = false; ///< mode Preview: computed and shown, never votes
};

/// The forecast a reconcile is given for spec.prediction (computed outside the decision).
struct prediction_input {
    std::optional<double> value; ///< the forecast of the named metric; nullopt: none, see `why`
    std::string why;             ///< the reason there is none (a condition reason)
    std::string message;
    std::optional<std::chrono::nanoseconds> period; ///< the rhythm the forecast found
    std::optional<core::time_point> next_peak;      ///< when its next cycle's highest value is due
};

/// The autoscaler spec: `autoscaling/v2` HorizontalPodAutoscalerSpec plus the HPAPlus fields.
struct autoscaler_spec {
    core::object_reference scale_target_ref;
    std::optional<std::int32_t> min_replicas;
    std::int32_t max_replicas = 0;
    std::vector<metric_spec> metrics;
    std::optional<behavior_spec> behavior;
    // HPAPlus-only fields; their defaults give upstream behaviour.
    std::optional<std::int32_t> sync_period_seconds;
    rollout_policy rollout = rollout_policy::continue_scaling;
    run_mode mode = run_mode::automatic;
    pod_selection pods = pod_selection::label_selector;
    unready_pods unready = unready_pods::ignore;
    std::optional<prediction_spec> prediction;
};

// ---------------------------------------------------------------------------------------------
// Status

/// `autoscaling/v2` MetricValueStatus.
struct metric_value_status {
    std::optional<core::quantity> value;
    std::optional<core::quantity> average_value;
    std::optional<std::int32_t> average_utilization;
};

/// `autoscaling/v2` MetricStatus (the fields that apply to `type`).
struct metric_status {
    metric_source_type type = metric_source_type::resource;
    std::string resource_name;
    std::string container;
    metric_identifier metric;
    std::optional<core::object_reference> described_object;
    metric_value_status current;
};

struct autoscaler_status {
    std::optional<std::int64_t> observed_generation;
    std::optional<core::time_point> last_scale_time;
    std::int32_t current_replicas = 0;
    std::int32_t desired_replicas = 0;
    std::vector<std::optional<metric_status>> current_metrics; ///< nullopt = a metric that failed
    std::vector<core::condition> conditions;
};

/// The autoscaler object as the decision core needs it.
struct autoscaler {
    std::string namespace_;
    std::string name;
    std::int64_t generation = 0;
    autoscaler_spec spec;
    autoscaler_status status;
};

// ---------------------------------------------------------------------------------------------
// What the controller reads about the target and its pods

/// `autoscaling/v1` Scale.
struct scale_snapshot {
    std::int32_t spec_replicas = 0;
    std::int32_t status_replicas = 0;
    std::string selector;
};

enum class pod_phase { pending, running, succeeded, failed, unknown };

struct container_spec {
    std::string name;
    core::resource_list requests;
    core::resource_list limits;
    bool restart_always = false; ///< an init container with restartPolicy Always (a sidecar)
    friend bool operator==(const container_spec&, const container_spec&) = default;
};

/// A container whose CPU request a start-up boost raised (VPAPlus startupBoost, read from the
/// pod's annotation while the boost is in force): the request and limit it has without the boost,
/// which its CPU is counted against instead, so a boost alone scales the workload neither down
/// nor up.
struct boosted_container {
    std::string name;
    std::optional<core::quantity> request;
    std::optional<core::quantity> limit;
    std::string by = {}; ///< the VPAPlus the record names (policy/boost_trust.hpp checks it)
    friend bool operator==(const boosted_container&, const boosted_container&) = default;
};

/// What the pods of one template share — a ReplicaSet's pods, a StatefulSet revision's: their
/// namespace, owner and containers with their requests and limits. The pod cache holds one per
/// distinct value and every pod alike points to it (kinds/records.cpp), so ten thousand pods of
/// one ReplicaSet cost one set of containers, not ten thousand.
struct pod_template {
    std::string namespace_;
    /// Its controller (metadata.ownerReferences[controller: true]); empty kind when none.
    core::object_reference controller;
    std::vector<container_spec> containers;
    std::vector<container_spec> init_containers;
    core::resource_list pod_requests; ///< spec.resources (pod-level resources)
    core::resource_list pod_limits;
    friend bool operator==(const pod_template&, const pod_template&) = default;
};

/// The shared empty template a pod starts with (never null).
const std::shared_ptr<const pod_template>& empty_pod_template();

/// The parts of a v1 Pod the autoscaler reads: what is its own, and the template it shares.
struct pod_info {
    std::string name;
    core::label_map labels; ///< its own (a StatefulSet's pods differ), equal sets share a buffer
    pod_phase phase = pod_phase::pending;
    bool deleting = false;                       ///< metadata.deletionTimestamp is set
    std::optional<core::condition_status> ready; ///< the Ready condition, if present
    std::optional<core::time_point> start_time;
    std::optional<core::time_point> ready_transition_time; ///< its lastTransitionTime
    std::vector<boosted_container> boosted; ///< containers whose start-up boost is in force
    std::shared_ptr<const pod_template> shared = empty_pod_template(); ///< never null

    const std::string& namespace_() const { return shared->namespace_; }
    const core::object_reference& controller() const { return shared->controller; }
    const std::vector<container_spec>& containers() const { return shared->containers; }
    const std::vector<container_spec>& init_containers() const { return shared->init_containers; }
    const core::resource_list& pod_requests() const { return shared->pod_requests; }
    const core::resource_list& pod_limits() const { return shared->pod_limits; }
    /// A template of its own to change, copied from the one it had (for code that builds pods:
    /// the decoder, tools and tests). The reference holds until `shared` is replaced.
    pod_template& own_template();

    friend bool operator==(const pod_info& a, const pod_info& b);
};

/// One pod's metric value in milli-units, as the metrics clients produce it. The pod's name is a
/// view: into the answer it came from, which the reading holds (metric_reading::names), or into
/// the pod's own record for a sample the calculator fills in.
struct pod_sample {
    std::string_view pod;
    std::int64_t milli = 0;
    core::time_point timestamp{};
    std::chrono::nanoseconds window{0};
};

/// Controller-wide settings (kube-controller-manager flags); defaults are upstream's.
struct controller_config {
    double tolerance = 0.1;
    std::chrono::seconds downscale_stabilization_window{300};
    std::chrono::seconds cpu_initialization_period{300};
    std::chrono::seconds initial_readiness_delay{30};
    double scale_up_limit_factor = 2.0;
    double scale_up_limit_minimum = 4.0;
    /// kube-controller-manager's HPAScaleToZero feature gate (alpha, off by default). On: the
    /// ScaledToZero condition is written after each rescale, and a workload the autoscaler scaled
    /// to zero is scaled up from it by its metrics (KEP-2021). Off: neither, the condition is
    /// removed, and zero replicas disable scaling. HPAPlus objects always run with it on.
    bool scale_to_zero = false;
};

} // namespace hpaplus::policy
