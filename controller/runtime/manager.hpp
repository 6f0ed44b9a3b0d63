// controller/runtime/manager.hpp — the informers, one worker coroutine per HPAPlus, and the CronHPA
// workers (cron_scheduler.hpp). A worker is
// spawned when its object appears, woken when its spec changes or its target starts or ends a
// rollout, and cancelled when the object is deleted. It reconciles every syncPeriodSeconds
// (first after a per-object phase offset, so objects listed together do not fire together).
// One coroutine per object serializes that object's work; objects never wait on each other.
#pragma once

#include "controller/cronhpa/scheduler.hpp"
#include "controller/hpaplus/reconciler.hpp"
#include "controller/runtime/options.hpp"
#include "controller/vpaplus/scheduler.hpp"
#include "core/latency_histogram.hpp"
#include "kube/event_recorder.hpp"
#include "kube/informer.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <string>

namespace hpaplus::controller {

/// Logs, as "`what`: reason", the exception a spawned coroutine ended with (nothing when none).
/// Every co_spawn of the controller completes with it, so no failure goes unseen.
void log_failure(const std::string& what, std::exception_ptr e);

/// Told about every reconcile (for /metrics and the demo); implementations must be cheap.
class reconcile_observer {
  public:
    virtual ~reconcile_observer() = default;
    virtual void reconciled(const std::string& ns, const std::string& name,
                            const reconcile_outcome& outcome, std::chrono::nanoseconds took) = 0;
    virtual void forgotten(const std::string& ns, const std::string& name) = 0;
};

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
    /// Spawns a worker for every cached HPAPlus and follows changes (the leader's work).
    void start_workers();
    /// Cancels every worker; a reconcile in flight finishes.
    void stop_workers();
    /// Waits until no worker runs, at most `grace`. Runs on: the client's executor.
    boost::asio::awaitable<void> drain(std::chrono::milliseconds grace);
    /// Stops the informers (after stop_workers, at shutdown).
    void stop_caches();

    bool synced() const;
    /// `cronhpas: <last error>` for each informer that has not synced ("" when all have).
    std::string unsynced_report() const;
    bool acting() const { return acting_; }
    std::size_t worker_count() const { return workers_.size(); }
    std::size_t cron_worker_count() const { return crons_ ? crons_->worker_count() : 0; }
    std::size_t vertical_worker_count() const {
        return verticals_ ? verticals_->worker_count() : 0;
    }
    std::size_t running_workers() const { return running_; }
    const manager_stats& stats() const { return stats_; }
    const kube::informer& hpapluses() const { return *hpapluses_; }
    const kube::informer& deployments() const { return *deployments_; }
    /// null without --enable-vertical
    const kube::informer* vpapluses() const { return vpapluses_.get(); }
    /// Adds another observer of every reconcile (the demo's progress view).
    void add_observer(reconcile_observer* observer) { observers_.push_back(observer); }

  private:
    struct worker;
    boost::asio::awaitable<void> run_worker(std::shared_ptr<worker> w,
                                            std::chrono::milliseconds first_delay);
    void spawn(const std::string& ns, const std::string& name, bool listed);
    void forget(const std::string& key);
    void wake(const std::string& key);
    void wake_targeting(const std::string& ns, const std::string& target);
    void on_hpaplus(const char* type, const kube::object_cptr& object,
                    const kube::object_cptr& previous);
    void on_deployment(const char* type, const kube::object_cptr& object,
                       const kube::object_cptr& previous);
    void on_floor_change(const std::string& ns, const policy::object_reference& target);
    std::vector<kube::informer*> informers() const;

    kube::api_client& client_;
    boost::asio::any_io_executor executor_; ///< set by start_caches
    const controller_options& options_;
    std::vector<reconcile_observer*> observers_;
    std::unique_ptr<kube::informer> hpapluses_;
    std::unique_ptr<kube::informer> pods_;
    std::unique_ptr<pod_cache> pod_cache_; ///< decoded pods_ (after pods_: it uses it)
    std::unique_ptr<kube::informer> deployments_;
    std::unique_ptr<kube::informer> cronhpas_; ///< null with --kube::cronhpa=false
    std::unique_ptr<cron_scheduler> crons_;
    std::unique_ptr<kube::informer> vpapluses_; ///< null without --enable-vertical
    std::unique_ptr<vertical_scheduler> verticals_;
    std::unique_ptr<kube::event_recorder> events_;
    std::unique_ptr<reconcile_env> env_;
    std::map<std::string, std::shared_ptr<worker>, std::less<>> workers_; ///< by namespace/name
    bool acting_ = false;
    std::size_t running_ = 0;
    manager_stats stats_;
};

} // namespace hpaplus::controller
