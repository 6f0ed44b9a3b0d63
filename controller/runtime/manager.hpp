// controller/runtime/manager.hpp — the informers and one worker pool per kind (workers.hpp): the
// HPAPlus workers, the plain HorizontalPodAutoscaler workers (unless --native-hpas=none), the
// CronHPA workers (with --cronhpa) and the VPAPlus workers (with
// --enable-vertical). It routes the informers' changes to the pools and the wake-ups between
// kinds (coordination.hpp): a Deployment that starts or ends a rollout, a CronHPA floor that
// appears, moves or goes.
#pragma once

#include "controller/runtime/options.hpp"
#include "controller/runtime/workers.hpp"
#include "kube/informer.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::kube {
class event_recorder;
}
namespace hpaplus::metrics {
class metric_sources;
}

namespace hpaplus::controller {

class reconcile_observer;
class hpaplus_rules;
class cronhpa_rules;
class vpaplus_rules;
class pod_cache;
struct reconcile_env;

/// The counters of the horizontal autoscalers' workers, HPAPlus objects and plain HPAs (the demo,
/// the tests and the benchmark read them).
struct manager_stats {
    std::uint64_t reconciles = 0;
    std::uint64_t errors = 0; ///< reconciles that returned an error (incl. invalid specs)
    std::uint64_t rescales = 0;
    std::uint64_t status_writes = 0;
    std::uint64_t failures = 0; ///< reconciles that threw (bugs; logged)
    /// How late each periodic wake-up was against its timer (not counted: wake-ups on a change).
    core::latency_histogram lateness;
};

class manager {
  public:
    manager(kube::api_client& client, metrics::metric_sources& sources,
            const controller_options& options, reconcile_observer* observer = nullptr);
    ~manager();
    manager(const manager&) = delete;
    manager& operator=(const manager&) = delete;

    /// Starts the informers and waits for their first lists; false after cache_sync_timeout.
    /// Runs on: the client's executor.
    boost::asio::awaitable<bool> start_caches();
    /// Spawns a worker for every cached object of every kind and follows changes (the leader's
    /// work).
    void start_workers();
    /// Cancels every worker; a pass in flight finishes.
    void stop_workers();
    /// Only objects whose key `owns` get workers, in every kind (a sharded replica's shards).
    void set_owner(const std::function<bool(std::string_view key)>& owns);
    /// After what `owns` says changed: workers for newly owned objects, none for the others.
    void reshard();
    /// Waits until no worker runs, at most `grace`. Runs on: the client's executor.
    boost::asio::awaitable<void> drain(std::chrono::milliseconds grace);
    /// Stops the informers (after stop_workers, at shutdown).
    void stop_caches();

    bool synced() const;
    /// `cronhpas: <last error>` for each informer that has not synced ("" when all have).
    std::string unsynced_report() const;
    /// The collections the server does not serve (CRDs not installed), comma-separated.
    std::string unserved_report() const;
    bool acting() const { return acting_; }
    /// Workers of horizontal autoscalers: HPAPlus objects and plain HPAs.
    std::size_t worker_count() const {
        return hpapluses_workers_->size() + (hpa_workers_ ? hpa_workers_->size() : 0);
    }
    std::size_t running_workers() const { return running_; }
    manager_stats stats() const;
    /// The worker pool of every kind this process runs (HPAPlus first).
    std::vector<const worker_pool*> pools() const;
    const kube::informer& hpapluses() const { return *hpapluses_; }
    /// Plain HorizontalPodAutoscalers (null with --native-hpas=none).
    const kube::informer* hpas() const { return hpas_.get(); }
    const kube::informer& deployments() const { return *deployments_; }
    /// null without --enable-vertical
    const kube::informer* vpapluses() const { return vpapluses_.get(); }
    /// Adds another observer of every reconcile (the demo's progress view).
    void add_observer(reconcile_observer* observer);

  private:
    void on_deployment(kube::change what, const kube::object_cptr& object,
                       const kube::object_cptr& previous);
    void on_cronhpa(kube::change what, const kube::object_cptr& object,
                    const kube::object_cptr& previous);
    std::vector<kube::informer*> informers() const;

    boost::asio::any_io_executor executor_; ///< set by start_caches
    const controller_options& options_;
    std::unique_ptr<kube::informer> hpapluses_;
    std::unique_ptr<kube::informer> hpas_; ///< plain HPAs; null with --native-hpas=none
    std::unique_ptr<kube::informer> pods_;
    std::unique_ptr<pod_cache> pod_cache_; ///< decoded pods_ (after pods_: it uses it)
    std::unique_ptr<kube::informer> deployments_;
    std::unique_ptr<kube::informer> cronhpas_;  ///< null with --cronhpa=false
    std::unique_ptr<kube::informer> vpapluses_; ///< null without --enable-vertical
    std::unique_ptr<kube::event_recorder> events_;
    std::unique_ptr<reconcile_env> env_;
    std::unique_ptr<hpaplus_rules> hpaplus_rules_;
    std::unique_ptr<hpaplus_rules> hpa_rules_; ///< null with --native-hpas=none
    std::unique_ptr<cronhpa_rules> cronhpa_rules_;
    std::unique_ptr<vpaplus_rules> vpaplus_rules_;
    std::unique_ptr<worker_pool> hpapluses_workers_;
    std::unique_ptr<worker_pool> hpa_workers_;     ///< null with --native-hpas=none
    std::unique_ptr<worker_pool> cronhpa_workers_; ///< null with --cronhpa=false
    std::unique_ptr<worker_pool> vpaplus_workers_; ///< null without --enable-vertical
    bool acting_ = false;
    std::size_t running_ = 0;
};

} // namespace hpaplus::controller
