// controller/runtime/manager.cpp — informers, lanes, and what the lanes count summed.
#include "controller/runtime/manager.hpp"

#include "controller/hpaplus/worker.hpp"
#include "controller/runtime/lane.hpp"
#include "controller/runtime/run_and_wait.hpp"
#include "core/hash.hpp"
#include "kinds/api_group.hpp"
#include "kinds/records.hpp"

#include <algorithm>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace hpaplus::controller {
namespace {

namespace asio = boost::asio;

std::unique_ptr<kube::informer> informer_of(kube::api_client& client, const kube::resource_path& r,
                                            const controller_options& options,
                                            kinds::record_decoder decode) {
    kube::informer_options o = options.informer;
    o.decode = std::move(decode);
    return std::make_unique<kube::informer>(client, r.path(options.watch_namespace), o);
}

// A kind of HPAPlus's own: a cluster without its CRD still gets its plain HPAs scaled.
std::unique_ptr<kube::informer> crd_informer_of(kube::api_client& client,
                                                const kube::resource_path& r,
                                                const controller_options& options,
                                                kinds::record_decoder decode) {
    kube::informer_options o = options.informer;
    o.absent_means_empty = true;
    o.decode = std::move(decode);
    return std::make_unique<kube::informer>(client, r.path(options.watch_namespace), o);
}

// Tells an observer of the manager's thread about the reconciles of a lane on another thread.
class relay final : public reconcile_observer {
  public:
    relay(asio::any_io_executor home, reconcile_observer& target)
        : home_(std::move(home)), target_(target) {}
    void reconciled(const std::string& kind, const std::string& ns, const std::string& name,
                    const reconcile_outcome& outcome, std::chrono::nanoseconds took) override {
        asio::post(home_, [&target = target_, kind, ns, name, outcome, took] {
            target.reconciled(kind, ns, name, outcome, took);
        });
    }
    void forgotten(const std::string& kind, const std::string& ns,
                   const std::string& name) override {
        asio::post(home_,
                   [&target = target_, kind, ns, name] { target.forgotten(kind, ns, name); });
    }

  private:
    asio::any_io_executor home_;
    reconcile_observer& target_;
};

} // namespace

std::size_t lane_of(std::string_view key, std::size_t lanes) {
    // shard_of takes FNV-1a modulo the shards; mixing the hash first (splitmix64's finalizer)
    // keeps the lanes of one shard's objects as spread as the objects of every shard.
    std::uint64_t h = core::fnv1a(key);
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return static_cast<std::size_t>(h % lanes);
}

manager::manager(asio::any_io_executor home, kube::api_client& client,
                 const controller_options& options, std::vector<lane_resources> lanes)
    : executor_(std::move(home)), options_(options), threaded_(lanes.size() > 1) {
    // Every object is decoded once, as it arrives, into its kind's record (kinds/records.hpp).
    hpapluses_ = crd_informer_of(client, kinds::resources::hpapluses, options,
                                 kinds::autoscaler_decoder(false));
    pods_ = informer_of(client, kube::resources::pods, options,
                        kinds::pod_decoder(options.enable_vertical));
    deployments_ =
        informer_of(client, kube::resources::deployments, options, kinds::deployment_decoder());
    // Only their controllers: the links podSelection OwnerReferences follows.
    replicasets_ =
        informer_of(client, kube::resources::replicasets, options, kinds::replicaset_decoder());
    if (options.native_hpas.selection != native_hpa_selection::none)
        hpas_ =
            informer_of(client, kube::resources::hpas, options, kinds::autoscaler_decoder(true));
    if (options.enable_cronhpa)
        cronhpas_ =
            crd_informer_of(client, kinds::resources::cronhpas, options, kinds::cronhpa_decoder());
    if (options.enable_vertical)
        vpapluses_ =
            crd_informer_of(client, kinds::resources::vpapluses, options, kinds::vpaplus_decoder());
    for (const kube::informer* i : informers())
        all_informers_.push_back(i);
    // "Who scales this workload", "which floor", "which VPAPlus": answered by index, per cache.
    for (kube::informer* i : {hpapluses_.get(), hpas_.get(), cronhpas_.get(), vpapluses_.get()})
        if (i) kinds::index_by_target(*i);

    for (auto& r : lanes) {
        // A lane on another thread reads mirrors; the mirrors are made here, on the informers'
        // thread, before the informers run, so each sees every change.
        const auto view = [&](kube::informer* source) -> kube::object_cache* {
            if (!source) return nullptr;
            if (!threaded_) return source;
            mirrors_.push_back(std::make_unique<kube::mirror>(*source, r.executor));
            if (source != pods_.get() && source != deployments_.get() &&
                source != replicasets_.get())
                kinds::index_by_target(*mirrors_.back());
            return mirrors_.back().get();
        };
        lane_caches caches{*view(hpapluses_.get()),   view(hpas_.get()),
                           *view(pods_.get()),        *view(deployments_.get()),
                           *view(replicasets_.get()), view(cronhpas_.get()),
                           view(vpapluses_.get()),    [this] { return caches_current(); }};
        const std::string lane_name =
            "lane " + std::to_string(lanes_.size() + 1) + "/" + std::to_string(lanes.size());
        lanes_.push_back(std::make_unique<lane>(r.executor, r.client, r.sources, caches, options,
                                                forecasts_, lane_name, &snapshots_));
        if (r.recorder) lanes_.back()->add_observer(r.recorder);
    }
    if (threaded_) {
        // Each object is reconciled on one lane only, but AmbiguousSelector must see the
        // selectors of all: a lane's registry passes its changes on to the others'.
        const auto share = [this](selector_registry* (*pick)(lane&)) {
            for (auto& from : lanes_) {
                if (!pick(*from)) continue;
                pick(*from)->on_change([this, pick, from = from.get()](
                                           const std::string& ns, const std::string& name,
                                           const selector_registry::selector_ptr& selector) {
                    for (auto& to : lanes_) {
                        if (to.get() == from) continue;
                        asio::post(to->executor(), [registry = pick(*to), ns, name, selector] {
                            if (selector)
                                registry->put(ns, name, selector, false);
                            else
                                registry->erase(ns, name, false);
                        });
                    }
                });
            }
        };
        share([](lane& l) { return &l.hpaplus_selectors(); });
        share([](lane& l) { return l.hpa_selectors(); });
        // No lane has run anything of its own yet, so this thread may set their owners itself.
        for (std::size_t i = 0; i < lanes_.size(); ++i)
            lanes_[i]->set_owner(owner(i, nullptr));
    }
}

manager::~manager() = default;

template <class F> void manager::on_each_lane(F f) const {
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        if (threaded_) {
            run_and_wait(lanes_[i]->executor(), [&f, this, i] { f(*lanes_[i], i); });
        } else {
            f(*lanes_[i], i);
        }
    }
}

void manager::add_observer(reconcile_observer* observer) {
    if (threaded_) {
        relays_.push_back(std::make_unique<relay>(executor_, *observer));
        observer = relays_.back().get();
    }
    on_each_lane([observer](lane& l, std::size_t) { l.add_observer(observer); });
}

asio::awaitable<bool> manager::start_caches() {
    auto ex = co_await asio::this_coro::executor;
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
    std::vector<kube::informer*> all{hpapluses_.get(), pods_.get(), deployments_.get(),
                                     replicasets_.get()};
    if (hpas_) all.push_back(hpas_.get());
    if (cronhpas_) all.push_back(cronhpas_.get());
    if (vpapluses_) all.push_back(vpapluses_.get());
    return all;
}

std::vector<pool_summary> manager::pools() const {
    std::vector<std::vector<pool_summary>> each(lanes_.size());
    on_each_lane([&each](lane& l, std::size_t i) { each[i] = l.pool_summaries(); });
    std::vector<pool_summary> out = std::move(each.front());
    for (std::size_t i = 1; i < each.size(); ++i) {
        for (std::size_t k = 0; k < out.size(); ++k) { // every lane has the same kinds, in order
            out[k].workers += each[i][k].workers;
            out[k].passes += each[i][k].passes;
            out[k].errors += each[i][k].errors;
        }
    }
    return out;
}

manager_stats manager::stats() const {
    std::vector<manager_stats> each(lanes_.size());
    on_each_lane([&each](lane& l, std::size_t i) { each[i] = l.stats(); });
    manager_stats out;
    for (const auto& s : each) {
        out.reconciles += s.reconciles;
        out.errors += s.errors;
        out.rescales += s.rescales;
        out.status_writes += s.status_writes;
        out.failures += s.failures;
        out.lateness.add(s.lateness);
    }
    return out;
}

std::size_t manager::worker_count() const {
    std::vector<std::size_t> each(lanes_.size());
    on_each_lane([&each](lane& l, std::size_t i) { each[i] = l.worker_count(); });
    std::size_t total = 0;
    for (const std::size_t n : each)
        total += n;
    return total;
}

bool manager::synced() const {
    for (const kube::informer* i : informers())
        if (!i->synced()) return false;
    return true;
}

bool manager::caches_current() const {
    return std::all_of(all_informers_.begin(), all_informers_.end(),
                       [](const kube::informer* i) { return i->current(); });
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

void manager::stop_forecasts() {
    forecasts_.stop();
}

void manager::stop_caches() {
    for (kube::informer* i : informers())
        i->stop();
}

void manager::start_workers() {
    if (acting_) return;
    acting_ = true;
    on_each_lane([](lane& l, std::size_t) { l.start_workers(); });
}

std::function<bool(std::string_view)>
manager::owner(std::size_t lane_index, std::function<bool(std::string_view)> owns) const {
    if (!threaded_) return owns;
    return [owns = std::move(owns), n = lanes_.size(), lane_index](std::string_view key) {
        return lane_of(key, n) == lane_index && (!owns || owns(key));
    };
}

void manager::set_owner(const std::function<bool(std::string_view key)>& owns) {
    on_each_lane([this, &owns](lane& l, std::size_t i) { l.set_owner(owner(i, owns)); });
}

void manager::reshard() {
    on_each_lane([](lane& l, std::size_t) { l.reshard(); });
}

void manager::stop_workers() {
    acting_ = false;
    on_each_lane([](lane& l, std::size_t) { l.stop_workers(); });
}

std::size_t manager::running_workers() const {
    std::size_t running = 0;
    for (const auto& l : lanes_)
        running += l->running();
    return running;
}

asio::awaitable<void> manager::drain(std::chrono::milliseconds grace) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (running_workers() > 0 && std::chrono::steady_clock::now() < deadline) {
        timer.expires_after(std::chrono::milliseconds(20));
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    if (const auto left = running_workers(); left > 0)
        spdlog::warn("{} reconciles still running after the grace period", left);
}

} // namespace hpaplus::controller
