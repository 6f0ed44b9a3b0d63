// controller/runtime/lane.cpp — a lane's worker pools and the wake-ups between kinds.
#include "controller/runtime/lane.hpp"

#include "controller/coordination.hpp"
#include "controller/cronhpa/worker.hpp"
#include "controller/hpaplus/worker.hpp"
#include "controller/runtime/leader_election.hpp"
#include "controller/runtime/pod_cache.hpp"
#include "controller/vpaplus/worker.hpp"
#include "kinds/api_group.hpp"
#include "kinds/cronhpa.hpp"
#include "kube/event_recorder.hpp"
#include "metrics/metric_sources.hpp"

namespace hpaplus::controller {
lane::lane(boost::asio::any_io_executor executor, kube::api_client& client,
           metrics::metric_sources& sources, lane_caches caches, const controller_options& options,
           forecast_runner& forecasts, const std::string& name, debug_snapshots* snapshots)
    : executor_(std::move(executor)), caches_(caches) {
    pod_cache_ = std::make_unique<pod_cache>(caches.pods);
    events_ = std::make_unique<kube::event_recorder>(client, host_name(),
                                                     options.event_aggregation_window);
    if (caches.cronhpas) {
        cronhpa_rules_ = std::make_unique<cronhpa_rules>(
            cron_env{client, *caches.cronhpas, caches.hpapluses, caches.hpas, caches.deployments,
                     *events_, options, caches.current});
        cronhpa_workers_ = std::make_unique<worker_pool>("CronHPA", *cronhpa_rules_, name);
        caches.cronhpas->on_change(
            [this](kube::change what, const kube::object_cptr& o, const kube::object_cptr& prev) {
                on_cronhpa(what, o, prev);
            });
    }
    if (caches.vpapluses) {
        metrics::http_backend* history = nullptr;
        if (const auto& name = options.vertical.history_backend; !name.empty()) {
            history = sources.backend(name);
            if (!history || !history->has_history())
                throw std::runtime_error("--vertical-history-backend: --metric-backends has no "
                                         "backend with history (prometheus) named \"" +
                                         name + "\"");
        }
        if (!options.vertical.record_samples.empty())
            sample_recorder_ = std::make_unique<sample_recorder>(options.vertical.record_samples);
        vpaplus_rules_ = std::make_unique<vpaplus_rules>(vertical_env{
            client, *caches.vpapluses, caches.pods, caches.deployments,
            [this](const kinds::vpaplus& v) {
                auto use = find_horizontal_use(caches_.hpapluses, "HPAPlus", v.ns, v.target);
                if (use.name.empty() && caches_.hpas)
                    use = find_horizontal_use(*caches_.hpas, "HorizontalPodAutoscaler", v.ns,
                                              v.target);
                return sharing_for(v, use);
            },
            *events_, options.vertical, sources.list_pool(), history, sample_recorder_.get(),
            caches.current});
        vpaplus_workers_ = std::make_unique<worker_pool>("VPAPlus", *vpaplus_rules_, name);
        caches.vpapluses->on_change(
            [this](kube::change what, const kube::object_cptr& o, const kube::object_cptr& prev) {
                vpaplus_workers_->on_change(what, o, prev);
            });
    }
    scratch_ = std::make_unique<lane_scratch>();
    env_ = std::make_unique<reconcile_env>(reconcile_env{
        client, sources, *pod_cache_, caches.deployments, caches.replicasets, *events_, options,
        caches.cronhpas, caches.vpapluses, caches.current, *scratch_, forecasts, snapshots});
    hpaplus_rules_ = std::make_unique<hpaplus_rules>(
        *env_, autoscaler_kind{"HPAPlus", kinds::group_version, caches.hpapluses,
                               kinds::resources::hpapluses, false, caches.hpas});
    hpapluses_workers_ = std::make_unique<worker_pool>("HPAPlus", *hpaplus_rules_, name);
    caches.hpapluses.on_change(
        [this](kube::change what, const kube::object_cptr& o, const kube::object_cptr& prev) {
            hpapluses_workers_->on_change(what, o, prev);
        });
    if (caches.hpas) {
        hpa_rules_ = std::make_unique<hpaplus_rules>(
            *env_, autoscaler_kind{"HorizontalPodAutoscaler", "autoscaling/v2", *caches.hpas,
                                   kube::resources::hpas, true, &caches.hpapluses});
        hpa_workers_ = std::make_unique<worker_pool>("HorizontalPodAutoscaler", *hpa_rules_, name);
        caches.hpas->on_change(
            [this](kube::change what, const kube::object_cptr& o, const kube::object_cptr& prev) {
                hpa_workers_->on_change(what, o, prev);
            });
    }
}

lane::~lane() {
    // Workers go before the rules and caches they use.
    hpapluses_workers_.reset();
    hpa_workers_.reset();
    cronhpa_workers_.reset();
    vpaplus_workers_.reset();
}

void lane::add_observer(reconcile_observer* observer) {
    hpaplus_rules_->add_observer(observer);
    if (hpa_rules_) hpa_rules_->add_observer(observer);
}

std::vector<worker_pool*> lane::pools() const {
    std::vector<worker_pool*> all{hpapluses_workers_.get()};
    if (hpa_workers_) all.push_back(hpa_workers_.get());
    if (cronhpa_workers_) all.push_back(cronhpa_workers_.get());
    if (vpaplus_workers_) all.push_back(vpaplus_workers_.get());
    return all;
}

std::vector<pool_summary> lane::pool_summaries() const {
    std::vector<pool_summary> out;
    for (const worker_pool* pool : pools())
        out.push_back(pool->summary());
    return out;
}

std::size_t lane::worker_count() const {
    return hpapluses_workers_->size() + (hpa_workers_ ? hpa_workers_->size() : 0);
}

manager_stats lane::stats() const {
    manager_stats out;
    const auto add = [&out](const worker_pool& pool, const hpaplus_rules& rules) {
        const worker_stats& w = pool.stats();
        out.reconciles += w.passes;
        out.errors += w.errors;
        out.rescales += rules.rescales();
        out.status_writes += rules.status_writes();
        out.failures += w.failures;
        out.lateness.add(w.lateness);
    };
    add(*hpapluses_workers_, *hpaplus_rules_);
    if (hpa_workers_) add(*hpa_workers_, *hpa_rules_);
    return out;
}

selector_registry& lane::hpaplus_selectors() {
    return hpaplus_rules_->selectors();
}

selector_registry* lane::hpa_selectors() {
    return hpa_rules_ ? &hpa_rules_->selectors() : nullptr;
}

void lane::start_workers() {
    hpapluses_workers_->start(executor_, running_, *caches_.hpapluses.items());
    if (hpa_workers_) hpa_workers_->start(executor_, running_, *caches_.hpas->items());
    if (cronhpa_workers_) cronhpa_workers_->start(executor_, running_, *caches_.cronhpas->items());
    if (vpaplus_workers_) vpaplus_workers_->start(executor_, running_, *caches_.vpapluses->items());
}

void lane::set_owner(const std::function<bool(std::string_view key)>& owns) {
    for (worker_pool* pool : pools())
        pool->set_owner(owns);
}

void lane::reshard() {
    hpapluses_workers_->resync(*caches_.hpapluses.items());
    if (hpa_workers_) hpa_workers_->resync(*caches_.hpas->items());
    if (cronhpa_workers_) cronhpa_workers_->resync(*caches_.cronhpas->items());
    if (vpaplus_workers_) vpaplus_workers_->resync(*caches_.vpapluses->items());
}

void lane::stop_workers() {
    if (cronhpa_workers_) cronhpa_workers_->stop();
    if (vpaplus_workers_) vpaplus_workers_->stop();
    hpapluses_workers_->stop();
    if (hpa_workers_) hpa_workers_->stop();
}

// A floor that appears, moves or goes: the autoscaler it is aimed at may decide again at once —
// one of the two wakes (with a change of its own spec) that may bring a pass forward, and only to
// a period after its last rescale (worker_rules::min_spacing), so no limit is applied twice.
void lane::on_cronhpa(kube::change what, const kube::object_cptr& object,
                      const kube::object_cptr& previous) {
    if (!cronhpa_workers_->acting()) return;
    cronhpa_workers_->on_change(what, object, previous);
    const bool deleted = what == kube::change::deleted;
    for (const auto& target : floor_changes(previous, deleted ? nullptr : object)) {
        if (target.kind == kinds::hpaplus_kind)
            hpapluses_workers_->poke(std::string(object->namespace_()) + "/" + target.name);
        else
            hpapluses_workers_->poke_aimed_at(object->namespace_(),
                                              target.kind + "/" + target.name);
        if (hpa_workers_ && target.kind != kinds::hpaplus_kind)
            hpa_workers_->poke_aimed_at(object->namespace_(), target.kind + "/" + target.name);
    }
}

} // namespace hpaplus::controller
