// controller/runtime/telemetry.cpp — metric families and their updates.
#include "controller/runtime/telemetry.hpp"

#include "core/build_info.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <map>
#include <unordered_map>

namespace hpaplus::controller {

namespace {
const prometheus::Histogram::BucketBoundaries latency_buckets = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
} // namespace

struct telemetry::impl {
    std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
    prometheus::Family<prometheus::Counter>& reconciles = prometheus::BuildCounter()
                                                              .Name("hpaplus_reconciles_total")
                                                              .Help("Reconciles per HPAPlus object")
                                                              .Register(*registry);
    prometheus::Family<prometheus::Counter>& errors =
        prometheus::BuildCounter()
            .Name("hpaplus_reconcile_errors_total")
            .Help("Reconciles that ended with an error (metrics, scale, invalid spec) per object")
            .Register(*registry);
    prometheus::Family<prometheus::Counter>& rescales =
        prometheus::BuildCounter()
            .Name("hpaplus_rescales_total")
            .Help("Successful /scale writes per object")
            .Register(*registry);
    prometheus::Family<prometheus::Gauge>& desired =
        prometheus::BuildGauge()
            .Name("hpaplus_desired_replicas")
            .Help("Desired replicas of the last reconcile per object")
            .Register(*registry);
    prometheus::Family<prometheus::Gauge>& current =
        prometheus::BuildGauge()
            .Name("hpaplus_current_replicas")
            .Help("Current replicas seen by the last reconcile per object")
            .Register(*registry);
    prometheus::Histogram& duration = prometheus::BuildHistogram()
                                          .Name("hpaplus_reconcile_duration_seconds")
                                          .Help("Duration of one reconcile")
                                          .Register(*registry)
                                          .Add({}, latency_buckets);
    prometheus::Family<prometheus::Histogram>& fetch =
        prometheus::BuildHistogram()
            .Name("hpaplus_metric_fetch_duration_seconds")
            .Help("Time to read one object's metrics, per backend")
            .Register(*registry);
    prometheus::Family<prometheus::Counter>& untrusted =
        prometheus::BuildCounter()
            .Name("hpaplus_untrusted_records_total")
            .Help("Records users may write that HPAPlus did not believe, as reported (pods with a "
                  "start-up boost record not its own; HPAPlusCheckpoints not owned or dated ahead)")
            .Register(*registry);
    prometheus::Counter& untrusted_boosts = untrusted.Add({{"record", "startup-boost"}});
    prometheus::Counter& untrusted_checkpoints = untrusted.Add({{"record", "checkpoint"}});
    prometheus::Family<prometheus::Counter>& requests =
        prometheus::BuildCounter()
            .Name("hpaplus_api_requests_total")
            .Help("Kubernetes API requests by verb and HTTP code (0 = no answer)")
            .Register(*registry);
    prometheus::Gauge& workers = prometheus::BuildGauge()
                                     .Name("hpaplus_workers")
                                     .Help("Worker coroutines (one per object, every kind)")
                                     .Register(*registry)
                                     .Add({});
    prometheus::Family<prometheus::Gauge>& kind_workers =
        prometheus::BuildGauge()
            .Name("hpaplus_kind_workers")
            .Help("Worker coroutines per kind (HPAPlus, CronHPA, VPAPlus)")
            .Register(*registry);
    prometheus::Family<prometheus::Counter>& kind_reconciles =
        prometheus::BuildCounter()
            .Name("hpaplus_kind_reconciles_total")
            .Help("Passes of the workers of a kind (reconciles, CronHPA runs, VPAPlus passes)")
            .Register(*registry);
    prometheus::Family<prometheus::Counter>& kind_errors =
        prometheus::BuildCounter()
            .Name("hpaplus_kind_reconcile_errors_total")
            .Help("Passes of the workers of a kind that ended with an error")
            .Register(*registry);
    /// What the pools had counted at the last scrape, per kind (counters only go up by the news).
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>, std::less<>> pool_counts;
    prometheus::Gauge& leader = prometheus::BuildGauge()
                                    .Name("hpaplus_leader")
                                    .Help("1 while this replica holds the leader Lease")
                                    .Register(*registry)
                                    .Add({});
    prometheus::Family<prometheus::Gauge>& shard_held =
        prometheus::BuildGauge()
            .Name("hpaplus_shard_held")
            .Help("With --shards: 1 while this replica holds the shard's Lease, else 0")
            .Register(*registry);
    prometheus::Gauge& shards_held = prometheus::BuildGauge()
                                         .Name("hpaplus_shards_held")
                                         .Help("With --shards: the shards this replica holds")
                                         .Register(*registry)
                                         .Add({});
    prometheus::Gauge& shard_members =
        prometheus::BuildGauge()
            .Name("hpaplus_shard_replicas")
            .Help("With --shards: the live replicas this one sees (itself included)")
            .Register(*registry)
            .Add({});
    /// Always 1; the labels say which build is running (kube-state-metrics' and Go's habit).
    prometheus::Gauge& build_info =
        prometheus::BuildGauge()
            .Name("hpaplus_build_info")
            .Help("1, labelled with the version, git commit and "
                  "compiler of this build")
            .Register(*registry)
            .Add({{"version", std::string(core::this_build().version)},
                  {"revision", std::string(core::this_build().revision)},
                  {"compiler", std::string(core::this_build().compiler)}});
};

// One lane's handles: found once by labels, then updated directly (a lookup by labels hashes them
// all, five times per reconcile); an object's series appear when first set.
struct telemetry::recorder::series {
    explicit series(telemetry::impl& shared_) : shared(shared_) {}
    telemetry::impl& shared;
    std::map<std::pair<std::string, int>, prometheus::Counter*> requests;
    struct object_series {
        prometheus::Counter* reconciles = nullptr;
        prometheus::Counter* errors = nullptr;
        prometheus::Counter* rescales = nullptr;
        prometheus::Gauge* desired = nullptr;
        prometheus::Gauge* current = nullptr;
    };
    std::unordered_map<std::string, object_series> objects; ///< by kind/namespace/name
    prometheus::Histogram* metrics_api_fetch = nullptr; ///< fetch{backend="metricsAPI"}, once used
};

namespace {
// `kind/namespace/name` in a buffer the thread reuses: a pass looks its series up without a string.
const std::string& object_key(const std::string& kind, const std::string& ns,
                              const std::string& name) {
    thread_local std::string key;
    key.assign(kind).append("/").append(ns).append("/").append(name);
    return key;
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
    const auto counter = [&](prometheus::Counter*& c, prometheus::Family<prometheus::Counter>& f) {
        if (!c) c = &f.Add(labels());
        c->Increment();
    };
    const auto gauge = [&](prometheus::Gauge*& g, prometheus::Family<prometheus::Gauge>& f,
                           double value) {
        if (!g) g = &f.Add(labels());
        g->Set(value);
    };
    counter(s.reconciles, shared.reconciles);
    if (outcome.error) counter(s.errors, shared.errors);
    if (outcome.rescaled) counter(s.rescales, shared.rescales);
    if (outcome.valid) {
        gauge(s.desired, shared.desired, outcome.desired_replicas);
        gauge(s.current, shared.current, outcome.current_replicas);
    }
    shared.duration.Observe(std::chrono::duration<double>(took).count());
    if (outcome.untrusted_boosts)
        shared.untrusted_boosts.Increment(static_cast<double>(outcome.untrusted_boosts));
    if (outcome.untrusted_checkpoints)
        shared.untrusted_checkpoints.Increment(static_cast<double>(outcome.untrusted_checkpoints));
    if (outcome.metrics_latency.count() > 0) {
        // Family::Add gives every lane the same series.
        if (!series_->metrics_api_fetch)
            series_->metrics_api_fetch =
                &shared.fetch.Add({{"backend", "metricsAPI"}}, latency_buckets);
        series_->metrics_api_fetch->Observe(
            std::chrono::duration<double>(outcome.metrics_latency).count());
    }
}

void telemetry::recorder::forgotten(const std::string& kind, const std::string& ns,
                                    const std::string& name) {
    auto& objects = series_->objects;
    auto& shared = series_->shared;
    const auto it = objects.find(object_key(kind, ns, name));
    if (it == objects.end()) return;
    // Family::Remove drops the series from the exposition.
    const auto& s = it->second;
    if (s.reconciles) shared.reconciles.Remove(s.reconciles);
    if (s.errors) shared.errors.Remove(s.errors);
    if (s.rescales) shared.rescales.Remove(s.rescales);
    if (s.desired) shared.desired.Remove(s.desired);
    if (s.current) shared.current.Remove(s.current);
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
    for (const pool_summary& pool : pools) {
        const prometheus::Labels labels{{"kind", pool.kind}};
        total += pool.workers;
        impl_->kind_workers.Add(labels).Set(static_cast<double>(pool.workers));
        auto& [passes, errors] = impl_->pool_counts[pool.kind];
        impl_->kind_reconciles.Add(labels).Increment(static_cast<double>(pool.passes - passes));
        impl_->kind_errors.Add(labels).Increment(static_cast<double>(pool.errors - errors));
        passes = pool.passes;
        errors = pool.errors;
    }
    impl_->workers.Set(static_cast<double>(total));
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

std::string telemetry::exposition() const {
    return prometheus::TextSerializer().Serialize(impl_->registry->Collect());
}

} // namespace hpaplus::controller
