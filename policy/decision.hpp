// policy/decision.hpp — one reconcile of one autoscaler, as a pure function of what the controller
// read. decide() runs everything up to the /scale write; finish() applies the write's outcome.
// For a plain autoscaling/v2 HPA the result is what upstream's reconcileAutoscaler decides,
// conditions, events and error texts included; HPAPlus fields add stages on top (fallback,
// rollout gate, dry-run / off), each reported in the decision record.
#pragma once

#include "policy/behavior.hpp"
#include "policy/boost_trust.hpp"
#include "policy/metric_evaluation.hpp"
#include "policy/pod_selection.hpp"
#include "policy/rollout.hpp"
#include "policy/types.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::policy {

/// HPAPlus: the floor a CronHPA holds on the autoscaler (its latest fired job's targetSize).
struct cron_floor {
    std::int32_t replicas = 0;
    std::string cronhpa; ///< the CronHPA's name
    std::string job;
    core::time_point since{}; ///< when that job fired
};

/// Another autoscaler of the namespace and the selector of its target's scale as last read
/// (upstream's hpaSelectors). When it picks one of this autoscaler's pods, the selector is
/// ambiguous and neither autoscaler scales.
struct peer_autoscaler {
    std::string name;
    core::label_selector selector;
};

/// Everything one reconcile reads. `hpa.spec` must be defaulted (apply_defaults).
struct reconcile_input {
    autoscaler hpa;
    std::optional<scale_snapshot> scale; ///< nullopt: the scale read failed with `scale_error`
    /// scale->selector parsed, when the caller keeps it from pass to pass (null: parsed here).
    std::shared_ptr<const core::label_selector> scale_selector;
    std::string scale_error;
    std::vector<const pod_info*>
        pods; ///< pods of the autoscaler's namespace; filtered here by the scale selector
    std::vector<metric_reading> readings;                ///< one per spec.metrics, in order
    std::optional<std::int32_t> recommendation_override; ///< replaces the metric stage only
    std::optional<rollout_state> rollout;                ///< the target's rollout, when known
    std::optional<cron_floor> floor;    ///< raises minReplicas (capped at maxReplicas) while set
    std::vector<peer_autoscaler> peers; ///< the namespace's other autoscalers (AmbiguousSelector)
    /// podSelection OwnerReferences: the controllers between the pods and the target (each
    /// ReplicaSet of the namespace's pods with its Deployment).
    std::vector<controller_link> controllers;
    /// spec.prediction: the forecast of its metric (computed from the metric's past outside).
    prediction_input prediction;
    /// What a selected pod's start-up boost record must agree with to count (owned by the caller,
    /// alive through decide; null: no record is believed).
    const boost_authority* boosts = nullptr;
    controller_config config;
    history hist;
    core::time_point now{};
};

/// One metric's part in the decision.
struct metric_record {
    std::size_t index = 0;
    metric_source_type type = metric_source_type::resource;
    std::optional<std::int32_t> proposal;
    std::optional<metric_status> status;
    std::optional<std::string> error;
    std::string fallback; ///< HPAPlus: "", LastKnownGood, Hold, Replicas, Ignore
    /// HPAPlus unreadyPods Count: the pods it counted that upstream leaves out, and whether the
    /// current replicas stood in for ready pods (an Object/External Value target, none counted).
    std::vector<std::string> counted_unready;
    bool replicas_stood_in = false;
};

/// The value after each stage; unset where the reconcile did not get that far.
struct decision_stages {
    std::optional<std::int32_t> recommended;
    std::optional<std::int32_t> stabilized;
    std::optional<std::int32_t> limited;
    std::string_view limit_reason;     ///< a fixed text (static storage), as normalization's
    std::optional<std::int32_t> gated; ///< HPAPlus: set when a gate changed the limited value
    std::string_view gate_reason;      ///< RolloutFreeze | RolloutFreezeScaleDown | ModeOff (fixed)
    /// podSelection OwnerReferences: the pods the selector matched that the target does not own.
    std::vector<std::string> excluded_pods;
    /// The selected pods whose CPU counts at its unboosted request (a VPAPlus start-up boost).
    std::vector<std::string> boosted_pods;
    /// The selected pods whose boost record was not believed (policy/boost_trust.hpp): their CPU
    /// counts at the request they have.
    std::vector<std::string> ignored_boosts;
    /// unreadyPods Count: every pod a metric counted though it is not Ready (sorted, once each).
    std::vector<std::string> counted_unready;
    /// spec.prediction: the forecast's value, what it asks for and whether it voted.
    struct prediction_stage {
        double value = 0;
        std::int32_t replicas = 0;
        bool voting = false;
        bool decided = false; ///< its proposal was the highest: the forecast set the replicas
        std::optional<std::chrono::nanoseconds> period; ///< the period forecast with
        std::optional<core::time_point> next_peak;
    };
    std::optional<prediction_stage> prediction;
};

struct decision {
    std::int32_t current_replicas = 0; ///< as status will say
    std::int32_t desired_replicas = 0; ///< as status will say
    bool rescale = false;              ///< write /scale to `target_replicas`
    bool dry_run_rescale = false;      ///< DryRun: a write was decided but not made
    bool scale_updated = false;        ///< set by finish(): the write succeeded
    std::int32_t target_replicas = 0;
    std::string rescale_reason;
    std::optional<std::string> error; ///< what the reconcile returns (upstream's retErr)
    std::vector<metric_record> metrics;
    decision_stages stages;
    autoscaler_status status; ///< the status to write
    std::vector<core::event> events;
    history hist;                    ///< the history after this reconcile
    bool stopped_early = false;      ///< scale read or metrics failed: finish() has nothing to add
    std::optional<cron_floor> floor; ///< the cron floor in force, capped at maxReplicas
};

/// True when this reconcile will read metrics (so the caller fetches them only then).
bool needs_metrics(const autoscaler& hpa, const std::optional<scale_snapshot>& scale,
                   const std::optional<cron_floor>& floor, const controller_config& config);

/// minReplicas raised to the cron floor (the floor capped at maxReplicas).
std::int32_t effective_min_replicas(const autoscaler_spec& spec,
                                    const std::optional<cron_floor>& floor);

/// Runs the reconcile up to the /scale write.
decision decide(const reconcile_input& in);
/// The same, decided into `into`: what it held plays no part in the result, but its storage is
/// reused (the status and history are copied into the buffers it already has), so a caller that
/// decides into the decision of an earlier pass allocates almost nothing for them.
void decide(const reconcile_input& in, decision& into);

/// Applies the outcome of the /scale write (`write_error` set when it failed; ignored without a
/// rescale).
void finish(decision& d, const reconcile_input& in, const std::optional<std::string>& write_error);

/// `Kind/namespace/name` of the scale target, as upstream's messages print it.
std::string target_reference(const autoscaler& hpa);

} // namespace hpaplus::policy
