// controller/runtime/manager.hpp — the informers and the lanes of workers (lane.hpp): one lane on
// the informers' own thread, or with --threads N, N lanes each on its thread, reading mirrors of
// the informers and taking the objects whose key hashes to it. The manager is the one place that
// talks to the lanes: it starts, stops, reshards and drains them, and sums what they count.
// Everything here runs on the informers' thread (the client's executor).
#pragma once

#include "controller/hpaplus/forecast_runner.hpp"
#include "controller/runtime/debug_snapshots.hpp"
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

namespace hpaplus::metrics {
class metric_sources;
}

namespace hpaplus::controller {

class reconcile_observer;
class lane;

/// What one lane runs with. A single lane runs on the informers' executor with the process's own
/// client and sources; with several, each has its own executor (one thread), client and sources.
struct lane_resources {
    boost::asio::any_io_executor executor;
    kube::api_client& client;
    metrics::metric_sources& sources;
    reconcile_observer* recorder = nullptr; ///< /metrics for this lane's reconciles (may be null)
};

/// The lane of the object `key` among `lanes` (≥ 1): independent of its shard (shards.hpp), so a
/// replica's shards spread over all its lanes.
std::size_t lane_of(std::string_view key, std::size_t lanes);

class manager {
  public:
    /// `home` and `client` are the informers' (the manager's thread); `lanes` has one entry per
    /// lane (--threads).
    manager(boost::asio::any_io_executor home, kube::api_client& client,
            const controller_options& options, std::vector<lane_resources> lanes);
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
    /// `owns` is called on the lanes' threads.
    void set_owner(const std::function<bool(std::string_view key)>& owns);
    /// After what `owns` says changed: workers for newly owned objects, none for the others.
    void reshard();
    /// Waits until no worker runs, at most `grace`. Runs on: the client's executor.
    boost::asio::awaitable<void> drain(std::chrono::milliseconds grace);
    /// Stops the informers (after stop_workers, at shutdown).
    void stop_caches();
    /// Joins the forecasts' thread (after the workers drained, at shutdown).
    void stop_forecasts();
    const forecast_runner& forecasts() const { return forecasts_; }

    bool synced() const;
    /// Whether every informer is current (kube::informer::current): while one is not, the
    /// workers decide and write nothing. Any thread.
    bool caches_current() const;
    /// `cronhpas: <last error>` for each informer that has not synced ("" when all have).
    std::string unsynced_report() const;
    /// The collections the server does not serve (CRDs not installed), comma-separated.
    std::string unserved_report() const;
    bool acting() const { return acting_; }
    std::size_t lanes() const { return lanes_.size(); }
    /// Workers of horizontal autoscalers: HPAPlus objects and plain HPAs.
    std::size_t worker_count() const;
    std::size_t running_workers() const;
    manager_stats stats() const;
    /// Every kind's pool, summed over the lanes (HPAPlus first).
    std::vector<pool_summary> pools() const;
    const kube::informer& hpapluses() const { return *hpapluses_; }
    /// Plain HorizontalPodAutoscalers (null with --native-hpas=none).
    const kube::informer* hpas() const { return hpas_.get(); }
    const kube::informer& deployments() const { return *deployments_; }
    /// null without --enable-vertical
    const kube::informer* vpapluses() const { return vpapluses_.get(); }
    /// Adds another observer of every reconcile (the demo's progress view, the benchmark). It is
    /// told on this thread, also with several lanes.
    void add_observer(reconcile_observer* observer);
    /// /debug/objects: requests for a pass's input, answered by the object's worker.
    debug_snapshots& snapshots() { return snapshots_; }

  private:
    std::vector<kube::informer*> informers() const;
    std::vector<const kube::informer*> all_informers_; ///< informers(), made once
    /// Lane `lane_index`'s owner: its share of the objects `owns` (null: all) gives this process.
    std::function<bool(std::string_view)> owner(std::size_t lane_index,
                                                std::function<bool(std::string_view)> owns) const;
    /// Runs `f(lane, index)` on each lane's thread in turn, waiting for each (run_and_wait.hpp);
    /// a single lane runs on this thread, so there it is a plain call.
    template <class F> void on_each_lane(F f) const;

    boost::asio::any_io_executor executor_; ///< the informers'
    const controller_options& options_;
    std::unique_ptr<kube::informer> hpapluses_;
    std::unique_ptr<kube::informer> hpas_; ///< plain HPAs; null with --native-hpas=none
    std::unique_ptr<kube::informer> pods_;
    std::unique_ptr<kube::informer> deployments_;
    std::unique_ptr<kube::informer> replicasets_;        ///< their controllers (podSelection)
    std::unique_ptr<kube::informer> cronhpas_;           ///< null with --cronhpa=false
    std::unique_ptr<kube::informer> vpapluses_;          ///< null without --enable-vertical
    debug_snapshots snapshots_;                          ///< before the lanes, which answer it
    forecast_runner forecasts_;                          ///< before the lanes, which use it
    std::vector<std::unique_ptr<kube::mirror>> mirrors_; ///< the lanes' copies (several lanes)
    std::vector<std::unique_ptr<reconcile_observer>> relays_;
    std::vector<std::unique_ptr<lane>> lanes_;
    bool threaded_ = false; ///< lanes run on their own threads
    bool acting_ = false;
};

} // namespace hpaplus::controller
