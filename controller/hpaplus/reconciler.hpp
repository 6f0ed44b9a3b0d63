// controller/hpaplus/reconciler.hpp — one reconcile of one HPAPlus: cached reads → metrics →
// policy → `/scale` only when replicas change (conflicts retried on fresh data) → status only when
// it changed → Events. Everything an object remembers between reconciles is in `object_memory`.
#pragma once

#include "controller/hpaplus/prediction_source.hpp"
#include "controller/hpaplus/selector_registry.hpp"
#include "controller/runtime/lane_scratch.hpp"
#include "controller/runtime/options.hpp"
#include "controller/runtime/pod_cache.hpp"
#include "kinds/records.hpp"
#include "kinds/scale_target.hpp"
#include "kube/event_recorder.hpp"
#include "kube/object_cache.hpp"
#include "metrics/metric_sources.hpp"
#include "policy/behavior.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace hpaplus::controller {

class debug_snapshots;

/// The object's record (kinds/records.hpp) as last seen, with a copy of its autoscaler the
/// reconcile lends out: made once per stored version of the object.
struct decoded_autoscaler {
    kube::object_cptr source; ///< the version it was made from (null: none yet)
    std::shared_ptr<const kinds::autoscaler_record> record; ///< null: the object was not decoded
    policy::autoscaler hpa;                                 ///< record->hpa, lent to each pass
};

/// What /metrics shows of an object's last pass that decided (telemetry reads it). Kept in the
/// object's memory and refilled in place each pass, so steady passes allocate nothing for it.
struct pass_report {
    std::int32_t min_replicas = 0;
    std::int32_t max_replicas = 0;
    /// kube-controller-manager's reconcile labels: scale_up | scale_down | none, and
    /// internal | none (a spec error never gets this far).
    std::string_view action = "none";
    std::string_view error = "none";
    struct metric {
        bool computed = false;         ///< the pass computed it (upstream observes only those)
        std::string_view type;         ///< spec.metrics[i].type as the API spells it
        std::string name;              ///< cpu, memory, or the metric's name
        std::string_view target_type;  ///< Utilization | Value | AverageValue
        std::optional<double> target;  ///< percent for Utilization, else the base unit
        std::optional<double> current; ///< as the status reports it, in the target's unit
        std::string_view action;       ///< its proposal against status.currentReplicas before
        std::string_view error;        ///< internal | none
        /// When its oldest sample was taken, as its answer said (metrics[].maxSampleAgeSeconds
        /// judges the same), and how long before this pass's decision.
        std::optional<core::time_point> sample_time;
        std::optional<double> sample_age; ///< seconds
    };
    std::vector<metric> metrics; ///< one per spec.metrics entry
    /// The status conditions after the pass: type and status.
    std::vector<std::pair<std::string, core::condition_status>> conditions;
};

/// What was last logged of each of an object's problems ("" = none), so that a problem is logged
/// once when it appears or changes and once when it ends, not every period.
struct logged_problems {
    std::string standing_back; ///< who else writes the HPA's status
    std::string invalid_spec;
    std::string annotations;
    std::string multiple; ///< the other autoscaler on the target
    std::string metrics;  ///< the indexes of the failing metrics
    std::string fallback; ///< the FallbackActive condition's status and reason
};

/// What the controller keeps per object (upstream keeps the same in memory; after a restart the
/// first reconcile seeds it again).
struct object_memory {
    /// The object's record as last seen: while the cache holds the same version, nothing is copied.
    decoded_autoscaler decoded;
    policy::history hist;
    pod_cache::selection
        pods; ///< the target's pods, reused while its namespace's pods are unchanged
    kinds::target_view target; ///< the last view of the target (not decoded again while unchanged)
    /// The other autoscalers picking its pods, kept while neither its pods (pods.generation) nor
    /// the namespace's selectors (selector_registry::version) changed.
    std::vector<policy::peer_autoscaler> peers;
    std::uint64_t peers_pods = 0, peers_selectors = 0;
    /// The target's selector as last put into the kind's selector registry, and parsed (not
    /// parsed again while the target keeps it: the decision and the metrics read use it).
    std::string registered_selector;
    std::shared_ptr<const core::label_selector> selector;
    /// The object's resourceVersion when its stored status was last found equal to the status
    /// whose kinds::status_digest is status_digest, or that this object's last status write was
    /// applied over: while both hold, the status needs no text, no parse and no write (64-bit
    /// digest: a collision would only delay a write until the next change of the object).
    std::string status_version;
    std::uint64_t status_digest = 0;
    /// The shared PodMetrics read its metrics came from last (metric_sources::read).
    std::uint64_t pod_metrics_read = 0;
    /// spec.prediction: the named metric's past and the last forecast.
    prediction_memory prediction;
    pass_report report; ///< what /metrics shows of the last pass that decided
    logged_problems logged;
    /// What the selected pods' start-up boost records must agree with (made when one has one).
    policy::boost_authority boosts;
    /// Both clocks as the last pass read them: a wall-clock step since then moves `hist` with it.
    core::time_point wall_seen{};
    std::chrono::steady_clock::time_point steady_seen{};
};

/// Which objects a set of workers reconciles: HPAPlus objects, or plain autoscaling/v2
/// HorizontalPodAutoscalers (the drop-in replacement for kube-controller-manager's controller:
/// same decision core; HPA status; the autoscaling.hpaplus.io/ annotations; standing back from an
/// HPA another controller writes).
struct autoscaler_kind {
    const char* name; ///< "HPAPlus" | "HorizontalPodAutoscaler" (Events, logs, /metrics)
    const char* api_version;
    const kube::object_cache& objects;
    const kube::resource_path& resource;
    bool native = false;
    /// The other kind's objects: one of them aimed at the same workload stops both (null: none).
    const kube::object_cache* others = nullptr;
    selector_registry selectors = {}; ///< this kind's last selectors (AmbiguousSelector)
};

/// The shared, read-mostly things a reconcile uses.
struct reconcile_env {
    kube::api_client& client;
    metrics::metric_sources& metrics;
    pod_cache& pods;
    const kube::object_cache& deployments;
    const kube::object_cache& replicasets; ///< their controllers (podSelection OwnerReferences)
    kube::event_recorder& events;
    const controller_options& options;
    const kube::object_cache* cronhpas = nullptr; ///< their floors; null with --cronhpa=false
    /// VPAPluses sizing the same pods (a condition says who controls what); null without
    /// --enable-vertical.
    const kube::object_cache* vpapluses = nullptr;
    /// Whether the informers behind the caches are current (null: always). While they are not, a
    /// pass decides and writes nothing (reconcile_outcome::held): not from a cache that fell
    /// behind during an outage.
    std::function<bool()> caches_current = {};
    /// What the lane's passes reuse (its spare decisions, the status's pool); the lane's own.
    lane_scratch& scratch;
    /// The thread forecasts run on (the process's, stopped at shutdown).
    forecast_runner& forecasts;
    /// /debug/objects: a pass asked for writes down its input (null: never).
    debug_snapshots* snapshots = nullptr;
};

struct reconcile_outcome {
    bool exists = true;              ///< false: the object is gone from the cache
    bool held = false;               ///< the caches are behind: nothing decided, nothing written
    bool valid = true;               ///< false: the spec cannot be used (condition + Event)
    std::chrono::seconds period{15}; ///< the object's sync period
    /// The scale target once the pass got that far (null when the spec is invalid): in the
    /// object's memory, valid until its next pass.
    const core::object_reference* target = nullptr;
    std::optional<std::string> error; ///< the reconcile's error (metrics, scale read/write)
    std::int32_t current_replicas = 0;
    std::int32_t desired_replicas = 0;
    bool rescaled = false;
    bool status_written = false;
    /// A plain HPA left alone: another controller wrote its status recently (who, and when).
    std::optional<std::string> stood_back;
    std::size_t events = 0;
    /// Time spent reading the object's metrics (every backend at once); 0 = none read.
    std::chrono::nanoseconds metrics_latency{0};
    /// The pass decided: what /metrics shows of it (in the object's memory, valid until its next
    /// pass); null when it stopped before deciding (invalid spec, standing back, held).
    const pass_report* report = nullptr;
    /// Records users may write that this pass reported not believed (each set reported once):
    /// pods' start-up boost records, and the HPAPlusCheckpoint.
    std::size_t untrusted_boosts = 0;
    std::size_t untrusted_checkpoints = 0;
};

/// Runs on: the client's executor (informers are read there). Cancellation: none; bounded by
/// the request timeouts.
boost::asio::awaitable<reconcile_outcome> reconcile(reconcile_env& env, autoscaler_kind& kind,
                                                    const std::string& ns, const std::string& name,
                                                    object_memory& memory);

} // namespace hpaplus::controller
