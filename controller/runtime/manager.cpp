// controller/runtime/manager.cpp — informers, workers and wake-ups.
#include "controller/runtime/manager.hpp"

#include "controller/coordination.hpp"
#include "controller/runtime/worker_slot.hpp"
#include "kube/api/cronhpa.hpp"
#include "kube/decode.hpp"
#include "kube/scale_target.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <rapidjson/document.h>
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

// spec.syncPeriodSeconds of a cached HPAPlus (the default when unset or unreadable).
std::chrono::seconds sync_period_of(const kube::object_cptr& o, std::chrono::seconds fallback) {
    if (!o) return fallback;
    rapidjson::Document doc;
    doc.Parse(o->json.data(), o->json.size());
    kube::json_decoder d;
    const auto v = d.opt_int(kube::json_node{&doc, ""}["spec"]["syncPeriodSeconds"], 1, 86400);
    return d.ok() && v ? std::chrono::seconds(*v) : fallback;
}

bool rolling_out(const kube::object_cptr& o) {
    if (!o) return false;
    const kube::target_view v = kube::scale_from_deployment(o->json);
    return v.rollout && v.rollout->in_progress;
}

std::string collection(const kube::resource_path& r, const std::string& ns) {
    return r.path(ns);
}

} // namespace

void log_failure(const std::string& what, std::exception_ptr e) {
    if (!e) return;
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& x) {
        spdlog::error("{}: {}", what, x.what());
    }
}

struct manager::worker : worker_slot {
    using worker_slot::worker_slot;
    std::string target; ///< Kind/name, from the last reconcile
    object_memory memory;
};

manager::manager(kube::api_client& client, metrics::metric_sources& sources,
                 const controller_options& options, reconcile_observer* observer)
    : client_(client), options_(options) {
    if (observer) observers_.push_back(observer);
    const std::string& ns = options.watch_namespace;
    hpapluses_ = std::make_unique<kube::informer>(
        client, collection(kube::resources::hpapluses, ns), options.informer);
    pods_ = std::make_unique<kube::informer>(client, collection(kube::resources::pods, ns),
                                             options.informer);
    pod_cache_ = std::make_unique<pod_cache>(*pods_);
    deployments_ = std::make_unique<kube::informer>(
        client, collection(kube::resources::deployments, ns), options.informer);
    events_ = std::make_unique<kube::event_recorder>(client, host_name(),
                                                     options.event_aggregation_window);
    if (options.enable_cronhpa) {
        cronhpas_ = std::make_unique<kube::informer>(
            client, collection(kube::resources::cronhpas, ns), options.informer);
        crons_ = std::make_unique<cron_scheduler>(
            cron_env{client, *cronhpas_, *hpapluses_, *deployments_, *events_, options},
            [this](const std::string& ns, const policy::object_reference& target) {
                on_floor_change(ns, target);
            });
        cronhpas_->on_change(
            [this](const char* type, const kube::object_cptr& o, const kube::object_cptr& prev) {
                crons_->on_change(type, o, prev);
            });
    }
    if (options.enable_vertical) {
        vpapluses_ = std::make_unique<kube::informer>(
            client, collection(kube::resources::vpapluses, ns), options.informer);
        metrics::http_backend* history = nullptr;
        if (const auto& name = options.vertical.history_backend; !name.empty()) {
            history = sources.backend(name);
            if (!history || history->config().type != metrics::backend_type::prometheus)
                throw std::runtime_error("--vertical-history-backend: --metric-backends has no "
                                         "prometheus backend named \"" +
                                         name + "\"");
        }
        verticals_ = std::make_unique<vertical_scheduler>(vertical::vertical_env{
            client, *vpapluses_, *pods_, *deployments_,
            [this](const std::string& ns, const policy::object_reference& workload) {
                return find_horizontal_use(*hpapluses_, ns, workload);
            },
            *events_, options.vertical, history});
        vpapluses_->on_change(
            [this](const char* type, const kube::object_cptr& o, const kube::object_cptr& prev) {
                verticals_->on_change(type, o, prev);
            });
    }
    env_ = std::make_unique<reconcile_env>(reconcile_env{client, sources, *hpapluses_, *pod_cache_,
                                                         *deployments_, *events_, options,
                                                         cronhpas_.get(), vpapluses_.get()});
    hpapluses_->on_change([this](const char* type, const kube::object_cptr& o,
                                 const kube::object_cptr& prev) { on_hpaplus(type, o, prev); });
    deployments_->on_change(
        [this](const char* type, const kube::object_cptr& o, const kube::object_cptr& prev) {
            on_deployment(type, o, prev);
        });
}

manager::~manager() {
    for (auto& [key, w] : workers_)
        w->stop();
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
    if (cronhpas_) all.push_back(cronhpas_.get());
    if (vpapluses_) all.push_back(vpapluses_.get());
    return all;
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

void manager::stop_caches() {
    for (kube::informer* i : informers())
        i->stop();
}

void manager::start_workers() {
    if (acting_) return;
    acting_ = true;
    for (const auto& [key, object] : *hpapluses_->items())
        spawn(object->namespace_, object->name, true);
    spdlog::info("acting on {} HPAPlus objects", workers_.size());
    if (crons_) crons_->start(executor_, running_);
    if (verticals_) verticals_->start(executor_, running_);
}

void manager::stop_workers() {
    acting_ = false;
    if (crons_) crons_->stop();
    if (verticals_) verticals_->stop();
    for (auto& [key, w] : workers_)
        w->stop();
    workers_.clear();
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

void manager::spawn(const std::string& ns, const std::string& name, bool listed) {
    std::string key = ns + "/" + name;
    if (!acting_ || workers_.count(key)) return;
    auto w = std::make_shared<worker>(executor_, ns, name);
    // Objects listed together start spread over their own period (so they do not all fire at
    // once after a restart); an object created later starts now.
    std::chrono::milliseconds first_delay{0};
    if (listed) {
        const auto period = std::chrono::duration_cast<std::chrono::milliseconds>(
            sync_period_of(hpapluses_->find(ns, name), options_.default_sync_period));
        first_delay = std::chrono::milliseconds(static_cast<std::int64_t>(
            std::hash<std::string>{}(key) % static_cast<std::size_t>(period.count())));
    }
    workers_.emplace(std::move(key), w);
    ++running_;
    asio::co_spawn(executor_, run_worker(w, first_delay), [this, w](std::exception_ptr e) {
        --running_;
        log_failure(w->key + ": worker ended", e);
    });
}

void manager::forget(const std::string& key) {
    const auto it = workers_.find(key);
    if (it == workers_.end()) return;
    it->second->stop();
    for (auto* o : observers_)
        o->forgotten(it->second->ns, it->second->name);
    workers_.erase(it);
}

void manager::wake(const std::string& key) {
    const auto it = workers_.find(key);
    if (it == workers_.end()) return;
    it->second->poke();
}

void manager::wake_targeting(const std::string& ns, const std::string& target) {
    const std::string prefix = ns + "/";
    for (auto it = workers_.lower_bound(prefix);
         it != workers_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
        if (it->second->target == target) wake(it->first);
    }
}

void manager::on_hpaplus(const char* type, const kube::object_cptr& object,
                         const kube::object_cptr& previous) {
    if (!acting_) return;
    const std::string_view t = type;
    if (t == "ADDED") {
        spawn(object->namespace_, object->name, false);
    } else if (t == "MODIFIED") {
        // Our own status writes keep the generation; a spec edit bumps it.
        if (!workers_.count(object->key))
            spawn(object->namespace_, object->name, false);
        else if (!previous || object->generation != previous->generation)
            wake(object->key);
    } else if (t == "DELETED") {
        forget(object->key);
    }
}

void manager::on_deployment(const char* type, const kube::object_cptr& object,
                            const kube::object_cptr& previous) {
    if (!acting_) return;
    const std::string_view t = type;
    // A target that appears or goes, or starts or ends a rollout, is worth a reconcile now.
    if (t != "MODIFIED" || rolling_out(object) != rolling_out(previous))
        wake_targeting(object->namespace_, "Deployment/" + object->name);
}

void manager::on_floor_change(const std::string& ns, const policy::object_reference& target) {
    if (!acting_) return;
    if (target.kind == kube::hpaplus_kind)
        wake(ns + "/" + target.name);
    else
        wake_targeting(ns, target.kind + "/" + target.name);
}

asio::awaitable<void> manager::run_worker(std::shared_ptr<worker> w,
                                          std::chrono::milliseconds first_delay) {
    auto delay = first_delay;
    while (!w->stopped) {
        if (delay.count() > 0 && !w->wake) {
            w->timer.expires_after(delay);
            boost::system::error_code ec;
            co_await w->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            if (w->stopped) break;
            if (!ec) stats_.lateness.record(std::chrono::steady_clock::now() - w->timer.expiry());
        }
        w->wake = false;
        const auto started = std::chrono::steady_clock::now();
        reconcile_outcome outcome;
        try {
            outcome = co_await reconcile(*env_, w->ns, w->name, w->memory);
        } catch (const std::exception& e) {
            // A bug, not an expected failure: log it, count it, and keep the object alive.
            ++stats_.failures;
            spdlog::error("{}: reconcile failed unexpectedly: {}", w->key, e.what());
            outcome.error = e.what();
        }
        const auto took = std::chrono::steady_clock::now() - started;
        if (!outcome.exists) break; // deleted; the DELETED event forgets the worker
        ++stats_.reconciles;
        if (outcome.error) ++stats_.errors;
        if (outcome.rescaled) ++stats_.rescales;
        if (outcome.status_written) ++stats_.status_writes;
        for (auto* o : observers_)
            if (!w->stopped)
                o->reconciled(w->ns, w->name, outcome,
                              std::chrono::duration_cast<std::chrono::nanoseconds>(took));
        w->target = outcome.target;
        const auto elapsed = std::chrono::steady_clock::now() - started;
        delay = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(outcome.period) - elapsed);
        if (delay.count() <= 0) delay = std::chrono::milliseconds(0);
    }
}

} // namespace hpaplus::controller
