// controller/runtime/lane.hpp — one lane of workers (--threads): the worker pool of every kind,
// with the rules, Event recorder and decoded-pod selections they use, on one executor. A lane
// reads its caches (the informers themselves when it runs on their thread, else mirrors of them:
// kube/object_cache.hpp), routes their changes to its pools and the wake-ups between kinds
// (coordination.hpp): a Deployment that starts or ends a rollout, a CronHPA floor that appears,
// moves or goes. Everything in a lane runs on its executor; only running() is read from outside.
#pragma once

#include "controller/runtime/options.hpp"
#include "controller/runtime/workers.hpp"
#include "kube/object_cache.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace hpaplus::kube {
class api_client;
class event_recorder;
} // namespace hpaplus::kube
namespace hpaplus::metrics {
class metric_sources;
}

namespace hpaplus::controller {

class sample_recorder;

class reconcile_observer;
class hpaplus_rules;
class cronhpa_rules;
class vpaplus_rules;
class pod_cache;
class debug_snapshots;
class selector_registry;
struct reconcile_env;
struct lane_scratch;
class forecast_runner;

/// The caches a lane reads (null: the kind is off).
struct lane_caches {
    kube::object_cache& hpapluses;
    kube::object_cache* hpas;
    kube::object_cache& pods;
    kube::object_cache& deployments;
    kube::object_cache& replicasets;
    kube::object_cache* cronhpas;
    kube::object_cache* vpapluses;
    /// Whether every informer behind these caches is current (kube::informer::current; any
    /// thread); null: always.
    std::function<bool()> current = {};
};

class lane {
  public:
    /// `client` and `sources` are this lane's, used on `executor` only; `name` ("lane 1/2") leads
    /// its log lines.
    lane(boost::asio::any_io_executor executor, kube::api_client& client,
         metrics::metric_sources& sources, lane_caches caches, const controller_options& options,
         forecast_runner& forecasts, const std::string& name = "lane 1/1",
         debug_snapshots* snapshots = nullptr);
    ~lane();
    lane(const lane&) = delete;
    lane& operator=(const lane&) = delete;

    const boost::asio::any_io_executor& executor() const { return executor_; }
    void add_observer(reconcile_observer* observer);
    /// Spawns a worker for every cached object of every kind and follows changes.
    void start_workers();
    /// Cancels every worker; a pass in flight finishes.
    void stop_workers();
    /// Only objects whose key `owns` get workers, in every kind.
    void set_owner(const std::function<bool(std::string_view key)>& owns);
    /// After what `owns` says changed: workers for newly owned objects, none for the others.
    void reshard();
    /// Workers whose coroutine still runs (any thread may read it).
    std::size_t running() const { return running_; }
    /// Horizontal autoscalers' workers (HPAPlus objects and plain HPAs).
    std::size_t worker_count() const;
    manager_stats stats() const;
    std::vector<pool_summary> pool_summaries() const;
    /// The selectors each kind of horizontal autoscaler last scaled by: HPAPlus, then plain HPAs
    /// (null with --native-hpas=none).
    selector_registry& hpaplus_selectors();
    selector_registry* hpa_selectors();

  private:
    void on_cronhpa(kube::change what, const kube::object_cptr& object,
                    const kube::object_cptr& previous);
    std::vector<worker_pool*> pools() const;

    boost::asio::any_io_executor executor_;
    lane_caches caches_;
    std::unique_ptr<pod_cache> pod_cache_;
    std::unique_ptr<kube::event_recorder> events_;
    std::unique_ptr<lane_scratch> scratch_; ///< what this lane's passes reuse (its thread's)
    std::unique_ptr<reconcile_env> env_;
    std::unique_ptr<hpaplus_rules> hpaplus_rules_;
    std::unique_ptr<hpaplus_rules> hpa_rules_; ///< null with --native-hpas=none
    std::unique_ptr<cronhpa_rules> cronhpa_rules_;
    std::unique_ptr<sample_recorder> sample_recorder_; ///< --vertical-record-samples
    std::unique_ptr<vpaplus_rules> vpaplus_rules_;
    std::unique_ptr<worker_pool> hpapluses_workers_;
    std::unique_ptr<worker_pool> hpa_workers_;     ///< null with --native-hpas=none
    std::unique_ptr<worker_pool> cronhpa_workers_; ///< null with --cronhpa=false
    std::unique_ptr<worker_pool> vpaplus_workers_; ///< null without --enable-vertical
    std::atomic<std::size_t> running_ = 0;
};

} // namespace hpaplus::controller
