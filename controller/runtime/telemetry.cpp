// controller/runtime/telemetry.cpp — metric families and their updates.
#include "controller/runtime/telemetry.hpp"

#include "controller/runtime/process_metrics.hpp"
#include "core/build_info.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

namespace hpaplus::controller {

namespace {

using prometheus::Counter;
using prometheus::Gauge;
using prometheus::Histogram;
template <class T> using family = prometheus::Family<T>;

const Histogram::BucketBoundaries latency_buckets(metrics::fetch_latency::bounds.begin(),
                                                  metrics::fetch_latency::bounds.end());

// kube-controller-manager's: metrics.ExponentialBuckets(0.001, 2, 15).
Histogram::BucketBoundaries kcm_buckets() {
    Histogram::BucketBoundaries b;
    for (int i = 0; i < 15; ++i)
        b.push_back(0.001 * std::ldexp(1.0, i));
    return b;
}

// kube-controller-manager's help texts (its metrics are ALPHA, and say so).
constexpr const char* kcm_action_error_help =
    "The label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label "
    "'error' should be either 'spec', 'internal', or 'none'.";

constexpr const char* native_kind = "HorizontalPodAutoscaler";

// kube-state-metrics' spelling of a condition's status label.
constexpr const char* status_labels[] = {"true", "false", "unknown"};
std::size_t status_index(core::condition_status s) {
    switch (s) {
    case core::condition_status::true_:
        return 0;
    case core::condition_status::false_:
        return 1;
    case core::condition_status::unknown:
        return 2;
    }
    return 2;
}

} // namespace

struct telemetry::impl {
    std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
    family<Counter>& reconciles = prometheus::BuildCounter()
                                      .Name("hpaplus_reconciles_total")
                                      .Help("Reconciles per HPAPlus object")
                                      .Register(*registry);
    family<Counter>& errors =
        prometheus::BuildCounter()
            .Name("hpaplus_reconcile_errors_total")
            .Help("Reconciles that ended with an error (metrics, scale, invalid spec) per object")
            .Register(*registry);
    family<Counter>& rescales = prometheus::BuildCounter()
                                    .Name("hpaplus_rescales_total")
                                    .Help("Successful /scale writes per object")
                                    .Register(*registry);
    family<Gauge>& desired = prometheus::BuildGauge()
                                 .Name("hpaplus_desired_replicas")
                                 .Help("Desired replicas of the last reconcile per object")
                                 .Register(*registry);
    family<Gauge>& current = prometheus::BuildGauge()
                                 .Name("hpaplus_current_replicas")
                                 .Help("Current replicas seen by the last reconcile per object")
                                 .Register(*registry);
    family<Gauge>& sync_period = prometheus::BuildGauge()
                                     .Name("hpaplus_sync_period_seconds")
                                     .Help("The period each object is decided at")
                                     .Register(*registry);
    family<Gauge>& last_reconcile =
        prometheus::BuildGauge()
            .Name("hpaplus_last_reconcile_timestamp_seconds")
            .Help("When each object's last reconcile ended (seconds since the epoch)")
            .Register(*registry);
    family<Gauge>& min_replicas = prometheus::BuildGauge()
                                      .Name("hpaplus_spec_min_replicas")
                                      .Help("spec.minReplicas (1 when unset) per object")
                                      .Register(*registry);
    family<Gauge>& max_replicas = prometheus::BuildGauge()
                                      .Name("hpaplus_spec_max_replicas")
                                      .Help("spec.maxReplicas per object")
                                      .Register(*registry);
    family<Gauge>& metric_target =
        prometheus::BuildGauge()
            .Name("hpaplus_metric_target")
            .Help("The target of each spec.metrics entry: percent for Utilization, else the "
                  "metric's base unit")
            .Register(*registry);
    family<Gauge>& metric_current =
        prometheus::BuildGauge()
            .Name("hpaplus_metric_current")
            .Help("The current value of each spec.metrics entry as the last reconcile read it, in "
                  "its target's unit (absent while the metric fails)")
            .Register(*registry);
    family<Gauge>& sample_age =
        prometheus::BuildGauge()
            .Name("hpaplus_metric_sample_age_seconds")
            .Help("How old each spec.metrics entry's oldest sample was when the last reconcile "
                  "decided, by its answer's own timestamp (what maxSampleAgeSeconds judges; "
                  "absent when the answer gives no time)")
            .Register(*registry);
    family<Histogram>& sample_to_decision =
        prometheus::BuildHistogram()
            .Name("hpaplus_sample_to_decision_seconds")
            .Help("From a metric sample's time to the first decision that used it: how late a "
                  "spike is acted on (per metric type)")
            .Register(*registry);
    const Histogram::BucketBoundaries sample_buckets{1,  2,  5,  10,  15,  20,  30,
                                                     45, 60, 90, 120, 180, 300, 600};
    family<Gauge>& condition =
        prometheus::BuildGauge()
            .Name("hpaplus_condition")
            .Help("The status conditions of each object: 1 on the series of the condition's "
                  "status, 0 on the others (kube-state-metrics' shape)")
            .Register(*registry);
    Histogram& duration = prometheus::BuildHistogram()
                              .Name("hpaplus_reconcile_duration_seconds")
                              .Help("Duration of one reconcile")
                              .Register(*registry)
                              .Add({}, latency_buckets);
    Histogram& read_duration =
        prometheus::BuildHistogram()
            .Name("hpaplus_metric_read_duration_seconds")
            .Help("Time to read one object's metrics (every backend at once)")
            .Register(*registry)
            .Add({}, latency_buckets);
    family<Counter>& untrusted =
        prometheus::BuildCounter()
            .Name("hpaplus_untrusted_records_total")
            .Help("Records users may write that HPAPlus did not believe, as reported (pods with a "
                  "start-up boost record not its own; HPAPlusCheckpoints not owned or dated ahead)")
            .Register(*registry);
    Counter& untrusted_boosts = untrusted.Add({{"record", "startup-boost"}});
    Counter& untrusted_checkpoints = untrusted.Add({{"record", "checkpoint"}});
    family<Counter>& requests =
        prometheus::BuildCounter()
            .Name("hpaplus_api_requests_total")
            .Help("Kubernetes API requests by verb and HTTP code (0 = no answer)")
            .Register(*registry);
    Gauge& workers = prometheus::BuildGauge()
                         .Name("hpaplus_workers")
                         .Help("Worker coroutines (one per object, every kind)")
                         .Register(*registry)
                         .Add({});
    family<Gauge>& kind_workers =
        prometheus::BuildGauge()
            .Name("hpaplus_kind_workers")
            .Help("Worker coroutines per kind (HPAPlus, CronHPA, VPAPlus)")
            .Register(*registry);
    family<Counter>& kind_reconciles =
        prometheus::BuildCounter()
            .Name("hpaplus_kind_reconciles_total")
            .Help("Passes of the workers of a kind (reconciles, CronHPA runs, VPAPlus passes)")
            .Register(*registry);
    family<Counter>& kind_errors =
        prometheus::BuildCounter()
            .Name("hpaplus_kind_reconcile_errors_total")
            .Help("Passes of the workers of a kind that ended with an error")
            .Register(*registry);
    /// What the pools had counted at the last scrape, per kind (counters only go up by the news).
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>, std::less<>> pool_counts;
    Gauge& leader = prometheus::BuildGauge()
                        .Name("hpaplus_leader")
                        .Help("1 while this replica holds the leader Lease")
                        .Register(*registry)
                        .Add({});
    family<Gauge>& shard_held =
        prometheus::BuildGauge()
            .Name("hpaplus_shard_held")
            .Help("With --shards: 1 while this replica holds the shard's Lease, else 0")
            .Register(*registry);
    Gauge& shards_held = prometheus::BuildGauge()
                             .Name("hpaplus_shards_held")
                             .Help("With --shards: the shards this replica holds")
                             .Register(*registry)
                             .Add({});
    Gauge& shard_members =
        prometheus::BuildGauge()
            .Name("hpaplus_shard_replicas")
            .Help("With --shards: the live replicas this one sees (itself included)")
            .Register(*registry)
            .Add({});
    /// Always 1; the labels say which build is running (kube-state-metrics' and Go's habit).
    Gauge& build_info = prometheus::BuildGauge()
                            .Name("hpaplus_build_info")
                            .Help("1, labelled with the version, git commit and "
                                  "compiler of this build")
                            .Register(*registry)
                            .Add({{"version", std::string(core::this_build().version)},
                                  {"revision", std::string(core::this_build().revision)},
                                  {"compiler", std::string(core::this_build().compiler)}});

    // kube-controller-manager's HPA controller families, with its names, labels and buckets, for
    // native HorizontalPodAutoscalers only: what KCM reported before, HPAPlus reports after.
    family<Counter>& kcm_reconciles =
        prometheus::BuildCounter()
            .Name("horizontal_pod_autoscaler_controller_reconciliations_total")
            .Help(std::string("[ALPHA] Number of reconciliations of HPA controller. ") +
                  kcm_action_error_help +
                  " Note that if both spec and internal errors happen during a reconciliation, "
                  "the first one to occur is reported in `error` label.")
            .Register(*registry);
    family<Histogram>& kcm_reconcile_duration =
        prometheus::BuildHistogram()
            .Name("horizontal_pod_autoscaler_controller_reconciliation_duration_seconds")
            .Help(std::string("[ALPHA] The time(seconds) that the HPA controller takes to "
                              "reconcile once. ") +
                  kcm_action_error_help +
                  " Note that if both spec and internal errors happen during a reconciliation, "
                  "the first one to occur is reported in `error` label.")
            .Register(*registry);
    family<Counter>& kcm_metric_computations =
        prometheus::BuildCounter()
            .Name("horizontal_pod_autoscaler_controller_metric_computation_total")
            .Help(std::string("[ALPHA] Number of metric computations. ") + kcm_action_error_help +
                  " The label 'metric_type' corresponds to HPA.spec.metrics[*].type")
            .Register(*registry);
    family<Histogram>& kcm_metric_duration =
        prometheus::BuildHistogram()
            .Name("horizontal_pod_autoscaler_controller_metric_computation_duration_seconds")
            .Help(std::string("[ALPHA] The time(seconds) that the HPA controller takes to "
                              "calculate one metric. ") +
                  kcm_action_error_help +
                  " The label 'metric_type' corresponds to HPA.spec.metrics[*].type")
            .Register(*registry);
    Gauge& kcm_hpas =
        prometheus::BuildGauge()
            .Name("horizontal_pod_autoscaler_controller_num_horizontal_pod_autoscalers")
            .Help("[ALPHA] Current number of controlled HPA objects.")
            .Register(*registry)
            .Add({});
    family<Gauge>& kcm_desired = prometheus::BuildGauge()
                                     .Name("horizontal_pod_autoscaler_controller_desired_replicas")
                                     .Help("[ALPHA] Current desired replica count for HPA objects.")
                                     .Register(*registry);
    const Histogram::BucketBoundaries kcm_duration_buckets = kcm_buckets();

    /// The backends as the last scrape gathered them (set and read on the scraping thread).
    std::vector<metrics::backend_summary> backends;
};

// One object's series on one lane, found once by labels, then updated directly (a lookup by labels
// hashes them all, several times per reconcile); each appears when first set.
struct telemetry::recorder::object_series {
    struct metric_series {
        std::string type, name, target_type; ///< the label values they were added with
        Gauge* target = nullptr;
        Gauge* current = nullptr;
        Gauge* sample_age = nullptr;
        std::optional<core::time_point> last_sample; ///< the newest sample a decision used
    };
    struct condition_series {
        std::string type;
        std::array<Gauge*, 3> by_status{}; ///< true, false, unknown
    };
    Counter* reconciles = nullptr;
    Counter* errors = nullptr;
    Counter* rescales = nullptr;
    Gauge* desired = nullptr;
    Gauge* current = nullptr;
    Gauge* min = nullptr;
    Gauge* max = nullptr;
    Gauge* kcm_desired = nullptr;
    Gauge* period = nullptr;
    Gauge* last = nullptr;
    std::vector<metric_series> metrics;
    std::vector<condition_series> conditions;
};

// One lane's handles.
struct telemetry::recorder::series {
    explicit series(telemetry::impl& shared_) : shared(shared_) {}
    telemetry::impl& shared;
    std::map<std::pair<std::string, int>, Counter*> requests;
    std::unordered_map<std::string, object_series> objects; ///< by kind/namespace/name
    /// kube-controller-manager's series by their label values: a handful, found without building
    /// labels (a native HPA's pass is the hot path). The values are views of static texts.
    using kcm_key = std::tuple<bool, std::string_view, std::string_view, std::string_view>;
    std::map<kcm_key, std::pair<Counter*, Histogram*>> kcm;
    /// hpaplus_sample_to_decision_seconds by metric type (a view of a static text).
    std::map<std::string_view, Histogram*> sample_latency;
    Histogram& sample_to_decision(std::string_view metric_type) {
        Histogram*& h = sample_latency[metric_type];
        if (!h)
            h = &shared.sample_to_decision.Add({{"metric_type", std::string(metric_type)}},
                                               shared.sample_buckets);
        return *h;
    }

    /// A reconcile's series (`metric_type` empty), or a metric computation's.
    std::pair<Counter*, Histogram*>& kcm_series(std::string_view action, std::string_view error,
                                                std::string_view metric_type = {}) {
        const bool metric = !metric_type.empty();
        auto& s = kcm[{metric, action, error, metric_type}];
        if (!s.first) {
            prometheus::Labels labels{{"action", std::string(action)},
                                      {"error", std::string(error)}};
            if (metric) labels.emplace("metric_type", std::string(metric_type));
            s.first =
                &(metric ? shared.kcm_metric_computations : shared.kcm_reconciles).Add(labels);
            s.second = &(metric ? shared.kcm_metric_duration : shared.kcm_reconcile_duration)
                            .Add(labels, shared.kcm_duration_buckets);
        }
        return s;
    }
};

namespace {
// `kind/namespace/name` in a buffer the thread reuses: a pass looks its series up without a string.
const std::string& object_key(const std::string& kind, const std::string& ns,
                              const std::string& name) {
    thread_local std::string key;
    key.assign(kind).append("/").append(ns).append("/").append(name);
    return key;
}

template <class T> void remove_series(family<T>& f, T*& series) {
    if (series) f.Remove(series);
    series = nullptr;
}
} // namespace

telemetry::telemetry() : impl_(std::make_unique<impl>()) {
    impl_->build_info.Set(1);
}
telemetry::~telemetry() = default;

std::unique_ptr<telemetry::recorder> telemetry::new_recorder() {
    return std::unique_ptr<recorder>(new recorder(*this));
}

telemetry::recorder::recorder(telemetry& owner) : series_(std::make_unique<series>(*owner.impl_)) {}
telemetry::recorder::~recorder() = default;

void telemetry::recorder::reconciled(const std::string& kind, const std::string& ns,
                                     const std::string& name, const reconcile_outcome& outcome,
                                     std::chrono::nanoseconds took) {
    auto& shared = series_->shared;
    auto& s = series_->objects[object_key(kind, ns, name)];
    const auto labels = [&] {
        return prometheus::Labels{{"kind", kind}, {"namespace", ns}, {"name", name}};
    };
    const auto counter = [&](Counter*& c, family<Counter>& f) {
        if (!c) c = &f.Add(labels());
        c->Increment();
    };
    const auto gauge = [&](Gauge*& g, family<Gauge>& f, double value) {
        if (!g) g = &f.Add(labels());
        g->Set(value);
    };
    counter(s.reconciles, shared.reconciles);
    gauge(s.period, shared.sync_period, static_cast<double>(outcome.period.count()));
    gauge(
        s.last, shared.last_reconcile,
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
    if (outcome.error) counter(s.errors, shared.errors);
    if (outcome.rescaled) counter(s.rescales, shared.rescales);
    if (outcome.valid) {
        gauge(s.desired, shared.desired, outcome.desired_replicas);
        gauge(s.current, shared.current, outcome.current_replicas);
    }
    const double seconds = std::chrono::duration<double>(took).count();
    const double read_seconds = std::chrono::duration<double>(outcome.metrics_latency).count();
    shared.duration.Observe(seconds);
    if (outcome.untrusted_boosts)
        shared.untrusted_boosts.Increment(static_cast<double>(outcome.untrusted_boosts));
    if (outcome.untrusted_checkpoints)
        shared.untrusted_checkpoints.Increment(static_cast<double>(outcome.untrusted_checkpoints));
    if (outcome.metrics_latency.count() > 0) shared.read_duration.Observe(read_seconds);
    if (const pass_report* report = outcome.report) {
        gauge(s.min, shared.min_replicas, report->min_replicas);
        gauge(s.max, shared.max_replicas, report->max_replicas);
        observe_metrics(s, kind, ns, name, *report);
        observe_conditions(s, kind, ns, name, *report);
    }
    if (kind != native_kind || outcome.stood_back) return;
    // kube-controller-manager's view: the error a spec gives is "spec", any other "internal".
    const std::string_view action = outcome.report ? outcome.report->action : "none";
    const std::string_view error = !outcome.valid ? "spec" : outcome.error ? "internal" : "none";
    auto& [count, time] = series_->kcm_series(action, error);
    count->Increment();
    time->Observe(seconds);
    if (!outcome.report) return;
    // The metrics of an object are read at once: each one's computation took the read's time.
    for (const auto& m : outcome.report->metrics) {
        if (!m.computed) continue;
        auto& [c, h] = series_->kcm_series(m.action, m.error, m.type);
        c->Increment();
        h->Observe(read_seconds);
    }
    if (!s.kcm_desired)
        s.kcm_desired = &shared.kcm_desired.Add({{"namespace", ns}, {"hpa_name", name}});
    s.kcm_desired->Set(outcome.desired_replicas);
}

void telemetry::recorder::observe_metrics(object_series& object, const std::string& kind,
                                          const std::string& ns, const std::string& name,
                                          const pass_report& report) {
    auto& shared = series_->shared;
    auto& all = object.metrics;
    // An entry the spec no longer has, or whose labels changed, goes; the rest are updated.
    for (std::size_t i = report.metrics.size(); i < all.size(); ++i) {
        remove_series(shared.metric_target, all[i].target);
        remove_series(shared.metric_current, all[i].current);
        remove_series(shared.sample_age, all[i].sample_age);
    }
    all.resize(report.metrics.size());
    for (std::size_t i = 0; i < report.metrics.size(); ++i) {
        const auto& m = report.metrics[i];
        auto& s = all[i];
        if (s.type != m.type || s.name != m.name || s.target_type != m.target_type) {
            remove_series(shared.metric_target, s.target);
            remove_series(shared.metric_current, s.current);
            remove_series(shared.sample_age, s.sample_age);
            s.last_sample.reset();
            s.type = m.type;
            s.name = m.name;
            s.target_type = m.target_type;
        }
        const auto set = [&](Gauge*& g, family<Gauge>& f, const std::optional<double>& value) {
            if (!value) return remove_series(f, g);
            if (!g)
                g = &f.Add({{"kind", kind},
                            {"namespace", ns},
                            {"name", name},
                            {"metric_index", std::to_string(i)},
                            {"metric_type", s.type},
                            {"metric_name", s.name},
                            {"target_type", s.target_type}});
            g->Set(*value);
        };
        set(s.target, shared.metric_target, m.target);
        set(s.current, shared.metric_current, m.computed ? m.current : std::nullopt);
        set(s.sample_age, shared.sample_age, m.computed ? m.sample_age : std::nullopt);
        // A sample counts once, at the first decision that used it.
        if (m.computed && m.sample_time && m.sample_age &&
            (!s.last_sample || *m.sample_time > *s.last_sample)) {
            s.last_sample = m.sample_time;
            series_->sample_to_decision(m.type).Observe(std::max(0.0, *m.sample_age));
        }
    }
}

void telemetry::recorder::observe_conditions(object_series& object, const std::string& kind,
                                             const std::string& ns, const std::string& name,
                                             const pass_report& report) {
    auto& shared = series_->shared;
    auto& all = object.conditions;
    // A condition the status no longer has (ScaledToZero removed, say) takes its series along.
    std::erase_if(all, [&](object_series::condition_series& c) {
        const bool kept = std::any_of(report.conditions.begin(), report.conditions.end(),
                                      [&](const auto& rc) { return rc.first == c.type; });
        if (!kept)
            for (auto*& g : c.by_status)
                remove_series(shared.condition, g);
        return !kept;
    });
    for (const auto& condition : report.conditions) {
        const std::string& type = condition.first; // (a lambda may not capture a binding: Clang 14)
        const auto status = condition.second;
        auto it =
            std::find_if(all.begin(), all.end(), [&](const auto& c) { return c.type == type; });
        if (it == all.end()) {
            it = all.insert(all.end(), object_series::condition_series{type, {}});
            for (std::size_t k = 0; k < 3; ++k)
                it->by_status[k] = &shared.condition.Add({{"kind", kind},
                                                          {"namespace", ns},
                                                          {"name", name},
                                                          {"condition", type},
                                                          {"status", status_labels[k]}});
        }
        for (std::size_t k = 0; k < 3; ++k)
            it->by_status[k]->Set(k == status_index(status) ? 1 : 0);
    }
}

void telemetry::recorder::forgotten(const std::string& kind, const std::string& ns,
                                    const std::string& name) {
    auto& objects = series_->objects;
    auto& shared = series_->shared;
    const auto it = objects.find(object_key(kind, ns, name));
    if (it == objects.end()) return;
    // Family::Remove drops the series from the exposition.
    auto& s = it->second;
    remove_series(shared.reconciles, s.reconciles);
    remove_series(shared.errors, s.errors);
    remove_series(shared.rescales, s.rescales);
    remove_series(shared.desired, s.desired);
    remove_series(shared.current, s.current);
    remove_series(shared.min_replicas, s.min);
    remove_series(shared.max_replicas, s.max);
    remove_series(shared.kcm_desired, s.kcm_desired);
    remove_series(shared.sync_period, s.period);
    remove_series(shared.last_reconcile, s.last);
    for (auto& m : s.metrics) {
        remove_series(shared.metric_target, m.target);
        remove_series(shared.metric_current, m.current);
        remove_series(shared.sample_age, m.sample_age);
    }
    for (auto& c : s.conditions)
        for (auto*& g : c.by_status)
            remove_series(shared.condition, g);
    objects.erase(it);
}

void telemetry::recorder::api_request(const std::string& method, int http_status) {
    auto& counter = series_->requests[{method, http_status}];
    if (!counter)
        counter = &series_->shared.requests.Add(
            {{"verb", method}, {"code", std::to_string(http_status)}});
    counter->Increment();
}

void telemetry::observe_pools(const std::vector<pool_summary>& pools) {
    std::size_t total = 0;
    std::size_t native = 0;
    for (const pool_summary& pool : pools) {
        const prometheus::Labels labels{{"kind", pool.kind}};
        total += pool.workers;
        if (pool.kind == native_kind) native = pool.workers;
        impl_->kind_workers.Add(labels).Set(static_cast<double>(pool.workers));
        auto& [passes, errors] = impl_->pool_counts[pool.kind];
        impl_->kind_reconciles.Add(labels).Increment(static_cast<double>(pool.passes - passes));
        impl_->kind_errors.Add(labels).Increment(static_cast<double>(pool.errors - errors));
        passes = pool.passes;
        errors = pool.errors;
    }
    impl_->workers.Set(static_cast<double>(total));
    impl_->kcm_hpas.Set(static_cast<double>(native));
}

void telemetry::observe_backends(const std::vector<metrics::backend_summary>& backends) {
    impl_->backends = backends;
}

void telemetry::set_leader(bool leading) {
    impl_->leader.Set(leading ? 1 : 0);
}

void telemetry::set_shards(const std::vector<bool>& held, std::size_t members) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < held.size(); ++i) {
        impl_->shard_held.Add({{"shard", std::to_string(i)}}).Set(held[i] ? 1 : 0);
        count += held[i] ? 1 : 0;
    }
    impl_->shards_held.Set(static_cast<double>(count));
    impl_->shard_members.Set(static_cast<double>(members));
}

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

ClientMetric with_labels(std::initializer_list<std::pair<const char*, std::string>> labels) {
    ClientMetric m;
    for (const auto& [k, v] : labels)
        m.label.push_back({k, v});
    return m;
}

// Families made at scrape time from counts kept elsewhere: the backends' (each lane keeps its
// own, added up by the scrape) and the process's (/proc).
std::vector<MetricFamily> backend_families(const std::vector<metrics::backend_summary>& backends) {
    MetricFamily sent{
        "hpaplus_backend_requests_total",
        "Requests sent to each metric backend (metricsAPI: reads of the metrics APIs)",
        MetricType::Counter,
        {}};
    MetricFamily coalesced{"hpaplus_backend_coalesced_total",
                           "Fetches answered by a request in flight or a fresh answer",
                           MetricType::Counter,
                           {}};
    MetricFamily errors{"hpaplus_backend_errors_total",
                        "Failed fetches per backend, by reason: unavailable (unreachable, timed "
                        "out, 5xx), bad_answer (query refused, answer unreadable), circuit_open "
                        "(refused at once while the breaker is open)",
                        MetricType::Counter,
                        {}};
    MetricFamily breaker{"hpaplus_backend_circuit_breaker_state",
                         "1 on the series of each backend's circuit breaker state (open while any "
                         "lane's is)",
                         MetricType::Gauge,
                         {}};
    MetricFamily latency{"hpaplus_metric_fetch_duration_seconds",
                         "Time from sending a request to a metric backend to its answer",
                         MetricType::Histogram,
                         {}};
    for (const auto& b : backends) {
        const auto& s = b.stats;
        auto m = with_labels({{"backend", b.name}, {"type", b.type}});
        m.counter.value = static_cast<double>(s.sent);
        sent.metric.push_back(m);
        m.counter.value = static_cast<double>(s.coalesced);
        coalesced.metric.push_back(m);
        const std::pair<const char*, std::uint64_t> reasons[] = {
            {"unavailable", s.unavailable},
            {"bad_answer", s.bad_answers},
            {"circuit_open", s.short_circuited}};
        for (const auto& [reason, n] : reasons) {
            auto e = with_labels({{"backend", b.name}, {"reason", reason}});
            e.counter.value = static_cast<double>(n);
            errors.metric.push_back(std::move(e));
        }
        using state = metrics::circuit_breaker::state;
        const std::pair<const char*, state> states[] = {
            {"closed", state::closed}, {"open", state::open}, {"half_open", state::half_open}};
        for (const auto& [label, st] : states) {
            auto g = with_labels({{"backend", b.name}, {"state", label}});
            g.gauge.value = s.breaker == st ? 1 : 0;
            breaker.metric.push_back(std::move(g));
        }
        auto h = with_labels({{"backend", b.name}});
        h.histogram.sample_count = s.latency.count;
        h.histogram.sample_sum = s.latency.sum;
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i < metrics::fetch_latency::bounds.size(); ++i) {
            cumulative += s.latency.counts[i];
            h.histogram.bucket.push_back({cumulative, metrics::fetch_latency::bounds[i]});
        }
        h.histogram.bucket.push_back({s.latency.count, std::numeric_limits<double>::infinity()});
        latency.metric.push_back(std::move(h));
    }
    return {std::move(sent), std::move(coalesced), std::move(errors), std::move(breaker),
            std::move(latency)};
}

std::vector<MetricFamily> process_families() {
    const process_sample p = read_process_sample();
    const auto one = [](const char* name, const char* help, MetricType type, double value) {
        ClientMetric m;
        (type == MetricType::Counter ? m.counter.value : m.gauge.value) = value;
        return MetricFamily{name, help, type, {m}};
    };
    return {
        one("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
            MetricType::Counter, p.cpu_seconds),
        one("process_resident_memory_bytes", "Resident memory size in bytes.", MetricType::Gauge,
            p.resident_bytes),
        one("process_virtual_memory_bytes", "Virtual memory size in bytes.", MetricType::Gauge,
            p.virtual_bytes),
        one("process_open_fds", "Number of open file descriptors.", MetricType::Gauge, p.open_fds),
        one("process_max_fds", "Maximum number of open file descriptors.", MetricType::Gauge,
            p.max_fds),
        one("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
            MetricType::Gauge, p.start_time_seconds),
    };
}

} // namespace

std::string telemetry::exposition() const {
    auto families = impl_->registry->Collect();
    for (auto& f : backend_families(impl_->backends))
        families.push_back(std::move(f));
    for (auto& f : process_families())
        families.push_back(std::move(f));
    return prometheus::TextSerializer().Serialize(families);
}

} // namespace hpaplus::controller
