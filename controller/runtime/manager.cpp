// controller/runtime/manager.cpp — informers, worker pools and wake-ups between kinds.
#include "controller/runtime/manager.hpp"

#include "controller/coordination.hpp"
#include "controller/cronhpa/worker.hpp"
#include "controller/hpaplus/worker.hpp"
#include "controller/runtime/pod_cache.hpp"
#include "controller/vpaplus/worker.hpp"
#include "kube/api/cronhpa.hpp"
#include "kube/event_recorder.hpp"
#include "kube/json_shape.hpp"
#include "kube/scale_target.hpp"
#include "metrics/metric_sources.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <unistd.h>

namespace hpaplus::controller {
namespace {

namespace asio = boost::asio;

std::string host_name() {
    char buffer[256] = {};
    if (::gethostname(buffer, sizeof buffer - 1) != 0) return "hpaplus";
    return buffer;
}

bool rolling_out(const kube::object_cptr& o) {
    if (!o) return false;
    const kube::target_view v = kube::scale_from_deployment(o->json);
    return v.rollout && v.rollout->in_progress;
}

std::unique_ptr<kube::informer> informer_of(kube::api_client& client, const kube::resource_path& r,
                                            const controller_options& options) {
    return std::make_unique<kube::informer>(client, r.path(options.watch_namespace),
                                            options.informer);
}

// A kind of HPAPlus's own: a cluster without its CRD still gets its plain HPAs scaled.
std::unique_ptr<kube::informer> crd_informer_of(kube::api_client& client,
                                                const kube::resource_path& r,
                                                const controller_options& options) {
    kube::informer_options o = options.informer;
    o.absent_means_empty = true;
    return std::make_unique<kube::informer>(client, r.path(options.watch_namespace), o);
}

} // namespace

manager::manager(kube::api_client& client, metrics::metric_sources& sources,
                 const controller_options& options, reconcile_observer* observer)
    : options_(options) {
    hpapluses_ = crd_informer_of(client, kube::resources::hpapluses, options);
    // Pods are most of the cache: each is decoded as it arrives, and its JSON is kept — only what
    // the decoders read (kube/json_shape.hpp) — only when the vertical module reads it.
    auto pod_options = options.informer;
    pod_options.keep = kube::pod_shape();
    pod_options.decode_pods = true;
    pod_options.keep_json = options.enable_vertical;
    pods_ = std::make_unique<kube::informer>(
        client, kube::resources::pods.path(options.watch_namespace), pod_options);
    pod_cache_ = std::make_unique<pod_cache>(*pods_);
    auto deployment_options = options.informer;
    deployment_options.keep = kube::deployment_shape(); // not their pod templates
    deployments_ = std::make_unique<kube::informer>(
        client, kube::resources::deployments.path(options.watch_namespace), deployment_options);
    if (options.native_hpas.selection != native_hpa_selection::none)
        hpas_ = informer_of(client, kube::resources::hpas, options);
    events_ = std::make_unique<kube::event_recorder>(client, host_name(),
                                                     options.event_aggregation_window);
    if (options.enable_cronhpa) {
        cronhpas_ = crd_informer_of(client, kube::resources::cronhpas, options);
        cronhpa_rules_ = std::make_unique<cronhpa_rules>(cron_env{
            client, *cronhpas_, *hpapluses_, hpas_.get(), *deployments_, *events_, options});
        cronhpa_workers_ = std::make_unique<worker_pool>("CronHPA", *cronhpa_rules_);
        cronhpas_->on_change([this](kube::change what, const kube::object_cptr& o,
                                    const kube::object_cptr& prev) { on_cronhpa(what, o, prev); });
    }
    if (options.enable_vertical) {
        vpapluses_ = crd_informer_of(client, kube::resources::vpapluses, options);
        metrics::http_backend* history = nullptr;
        if (const auto& name = options.vertical.history_backend; !name.empty()) {
            history = sources.backend(name);
            if (!history || history->config().type != metrics::backend_type::prometheus)
                throw std::runtime_error("--vertical-history-backend: --metric-backends has no "
                                         "prometheus backend named \"" +
                                         name + "\"");
        }
        vpaplus_rules_ = std::make_unique<vpaplus_rules>(vertical::vertical_env{
            client, *vpapluses_, *pods_, *deployments_,
            [this](const std::string& ns, const policy::object_reference& workload) {
                auto use = find_horizontal_use(*hpapluses_, "HPAPlus", ns, workload);
                if (use.name.empty() && hpas_)
                    use = find_horizontal_use(*hpas_, "HorizontalPodAutoscaler", ns, workload);
                return use;
            },
            *events_, options.vertical, history});
        vpaplus_workers_ = std::make_unique<worker_pool>("VPAPlus", *vpaplus_rules_);
        vpapluses_->on_change(
            [this](kube::change what, const kube::object_cptr& o, const kube::object_cptr& prev) {
                vpaplus_workers_->on_change(what, o, prev);
            });
    }
    env_ = std::make_unique<reconcile_env>(reconcile_env{client, sources, *pod_cache_,
                                                         *deployments_, *events_, options,
                                                         cronhpas_.get(), vpapluses_.get()});
    hpaplus_rules_ = std::make_unique<hpaplus_rules>(
        *env_, autoscaler_kind{"HPAPlus", "autoscaling.hpaplus.io/v1alpha1", *hpapluses_,
                               kube::resources::hpapluses, false, hpas_.get()});
    if (observer) hpaplus_rules_->add_observer(observer);
    hpapluses_workers_ = std::make_unique<worker_pool>("HPAPlus", *hpaplus_rules_);
    hpapluses_->on_change(
        [this](kube::change what, const kube::object_cptr& o, const kube::object_cptr& prev) {
            hpapluses_workers_->on_change(what, o, prev);
        });
    if (hpas_) {
        hpa_rules_ = std::make_unique<hpaplus_rules>(
            *env_, autoscaler_kind{"HorizontalPodAutoscaler", "autoscaling/v2", *hpas_,
                                   kube::resources::hpas, true, hpapluses_.get()});
        if (observer) hpa_rules_->add_observer(observer);
        hpa_workers_ = std::make_unique<worker_pool>("HorizontalPodAutoscaler", *hpa_rules_);
        hpas_->on_change(
            [this](kube::change what, const kube::object_cptr& o, const kube::object_cptr& prev) {
                hpa_workers_->on_change(what, o, prev);
            });
    }
    deployments_->on_change(
        [this](kube::change what, const kube::object_cptr& o, const kube::object_cptr& prev) {
            on_deployment(what, o, prev);
        });
}

manager::~manager() {
    // Workers go before the rules and caches they use.
    hpapluses_workers_.reset();
    hpa_workers_.reset();
    cronhpa_workers_.reset();
    vpaplus_workers_.reset();
}

void manager::add_observer(reconcile_observer* observer) {
    hpaplus_rules_->add_observer(observer);
    if (hpa_rules_) hpa_rules_->add_observer(observer);
}

asio::awaitable<bool> manager::start_caches() {
    auto ex = co_await asio::this_coro::executor;
    executor_ = ex;
    const auto all = informers();
    for (kube::informer* i : all) {
        asio::co_spawn(ex, i->run(),
                       [](std::exception_ptr e) { log_failure("informer stopped", e); });
    }
    for (kube::informer* i : all) {
        const bool synced = co_await i->wait_synced(options_.cache_sync_timeout);
        if (!synced) co_return false;
    }
    co_return true;
}

std::vector<kube::informer*> manager::informers() const {
    std::vector<kube::informer*> all{hpapluses_.get(), pods_.get(), deployments_.get()};
    if (hpas_) all.push_back(hpas_.get());
    if (cronhpas_) all.push_back(cronhpas_.get());
    if (vpapluses_) all.push_back(vpapluses_.get());
    return all;
}

std::vector<const worker_pool*> manager::pools() const {
    std::vector<const worker_pool*> all{hpapluses_workers_.get()};
    if (hpa_workers_) all.push_back(hpa_workers_.get());
    if (cronhpa_workers_) all.push_back(cronhpa_workers_.get());
    if (vpaplus_workers_) all.push_back(vpaplus_workers_.get());
    return all;
}

manager_stats manager::stats() const {
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

bool manager::synced() const {
    for (const kube::informer* i : informers())
        if (!i->synced()) return false;
    return true;
}

std::string manager::unsynced_report() const {
    std::string out;
    for (const kube::informer* i : informers()) {
        if (i->synced()) continue;
        if (!out.empty()) out += "; ";
        out += i->collection() + ": " + (i->last_error().empty() ? "no answer" : i->last_error());
    }
    return out;
}

std::string manager::unserved_report() const {
    std::string out;
    for (const kube::informer* i : informers()) {
        if (i->served()) continue;
        if (!out.empty()) out += ", ";
        out += i->collection();
    }
    return out;
}

void manager::stop_caches() {
    for (kube::informer* i : informers())
        i->stop();
}

void manager::start_workers() {
    if (acting_) return;
    acting_ = true;
    hpapluses_workers_->start(executor_, running_, *hpapluses_->items());
    if (hpa_workers_) hpa_workers_->start(executor_, running_, *hpas_->items());
    if (cronhpa_workers_) cronhpa_workers_->start(executor_, running_, *cronhpas_->items());
    if (vpaplus_workers_) vpaplus_workers_->start(executor_, running_, *vpapluses_->items());
}

void manager::set_owner(const std::function<bool(std::string_view key)>& owns) {
    hpapluses_workers_->set_owner(owns);
    if (hpa_workers_) hpa_workers_->set_owner(owns);
    if (cronhpa_workers_) cronhpa_workers_->set_owner(owns);
    if (vpaplus_workers_) vpaplus_workers_->set_owner(owns);
}

void manager::reshard() {
    hpapluses_workers_->resync(*hpapluses_->items());
    if (hpa_workers_) hpa_workers_->resync(*hpas_->items());
    if (cronhpa_workers_) cronhpa_workers_->resync(*cronhpas_->items());
    if (vpaplus_workers_) vpaplus_workers_->resync(*vpapluses_->items());
}

void manager::stop_workers() {
    acting_ = false;
    if (cronhpa_workers_) cronhpa_workers_->stop();
    if (vpaplus_workers_) vpaplus_workers_->stop();
    hpapluses_workers_->stop();
    if (hpa_workers_) hpa_workers_->stop();
}

asio::awaitable<void> manager::drain(std::chrono::milliseconds grace) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (running_ > 0 && std::chrono::steady_clock::now() < deadline) {
        timer.expires_after(std::chrono::milliseconds(20));
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    if (running_ > 0) spdlog::warn("{} reconciles still running after the grace period", running_);
}

void manager::on_deployment(kube::change what, const kube::object_cptr& object,
                            const kube::object_cptr& previous) {
    if (!acting_) return;
    // A target that appears or goes, or starts or ends a rollout, is worth a reconcile now.
    if (what != kube::change::modified || rolling_out(object) != rolling_out(previous)) {
        hpapluses_workers_->poke_aimed_at(object->namespace_, "Deployment/" + object->name);
        if (hpa_workers_)
            hpa_workers_->poke_aimed_at(object->namespace_, "Deployment/" + object->name);
    }
}

void manager::on_cronhpa(kube::change what, const kube::object_cptr& object,
                         const kube::object_cptr& previous) {
    if (!acting_) return;
    cronhpa_workers_->on_change(what, object, previous);
    // A floor that appears, moves or goes: the HPAPlus it is aimed at decides again now.
    const bool deleted = what == kube::change::deleted;
    for (const auto& target : floor_changes(previous, deleted ? nullptr : object)) {
        if (target.kind == kube::hpaplus_kind)
            hpapluses_workers_->poke(object->namespace_ + "/" + target.name);
        else
            hpapluses_workers_->poke_aimed_at(object->namespace_, target.kind + "/" + target.name);
        if (hpa_workers_ && target.kind != kube::hpaplus_kind)
            hpa_workers_->poke_aimed_at(object->namespace_, target.kind + "/" + target.name);
    }
}

} // namespace hpaplus::controller
