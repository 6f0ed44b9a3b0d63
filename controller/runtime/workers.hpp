// controller/runtime/workers.hpp — THE per-object worker loop, for every kind (HPAPlus, CronHPA,
// VPAPlus): one coroutine per object, spawned when the object appears, woken at once when its spec
// (generation) changes or another kind pokes it, stopped when it is deleted. Between passes it
// sleeps until the pass said the next one is due. The loop catches what a pass throws (a bug:
// logged and counted; the object stays alive), counts passes and errors, and measures how late each
// timed wake-up was. What a pass does, and when the next is due, are the kind's `worker_rules`. One
// coroutine per object serializes that object's work; objects never wait on each other.
#pragma once

#include "core/latency_histogram.hpp"
#include "kube/object_cache.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace hpaplus::controller {

/// What every worker has; a kind derives from it to keep what its object remembers between
/// passes.
struct worker_slot {
    worker_slot(boost::asio::any_io_executor ex, std::string ns_, std::string name_)
        : ns(std::move(ns_)), name(std::move(name_)), key(ns + "/" + name), timer(std::move(ex)) {}
    virtual ~worker_slot() = default;

    void stop() {
        stopped = true;
        timer.cancel();
    }
    void poke() {
        wake = true;
        timer.cancel();
    }

    std::string ns;
    std::string name;
    std::string key;    ///< namespace/name
    std::string target; ///< `Kind/name` the object is aimed at, once a pass has read it
    boost::asio::steady_timer timer;
    bool stopped = false;
    bool wake = false;
};

/// What one pass tells the loop.
struct pass_result {
    bool exists = true; ///< false: the object is gone from the cache; the worker ends
    bool error = false; ///< the pass ended with an error (the kind reports it)
    std::chrono::steady_clock::time_point next; ///< when the next pass is due
    bool acted = true; ///< it changed what the object controls (an autoscaler: it rescaled)
};

/// The counters of one kind's workers (for /metrics, the demo and the benchmark).
struct worker_stats {
    std::uint64_t passes = 0;   ///< passes on an existing object (reconciles, runs)
    std::uint64_t errors = 0;   ///< of those, the ones that ended with an error (or threw)
    std::uint64_t failures = 0; ///< of those, the ones that threw (bugs; logged)
    /// How late each timed wake-up was against its timer (not counted: wake-ups on a change).
    core::latency_histogram lateness;
};

/// A pool's counts, as /metrics shows them (summed over lanes with --threads).
struct pool_summary {
    std::string kind;
    std::size_t workers = 0;
    std::uint64_t passes = 0;
    std::uint64_t errors = 0;
};

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

/// One kind's rules.
class worker_rules {
  public:
    virtual ~worker_rules() = default;
    /// A new worker for the object `ns/name`.
    virtual std::shared_ptr<worker_slot> make(boost::asio::any_io_executor ex,
                                              const std::string& ns, const std::string& name) = 0;
    /// One pass. Runs on: the pool's executor.
    virtual boost::asio::awaitable<pass_result> pass(worker_slot& w) = 0;
    /// When the next pass is due after a pass that threw.
    virtual std::chrono::steady_clock::duration after_failure(const worker_slot& w) = 0;
    /// How long the first pass waits; `listed`: the object was there when the workers started.
    virtual std::chrono::milliseconds first_delay(const worker_slot&, bool /*listed*/) {
        return std::chrono::milliseconds(0);
    }
    /// The object was deleted (its worker is gone).
    virtual void forgotten(const worker_slot&) {}
    /// Whether the object gets a worker at all (an object that stops being taken loses it).
    virtual bool takes(const kube::cached_object&) { return true; }
    /// Whether a change from `previous` to `object` wakes the worker; by default a spec change (a
    /// new generation): our own status writes keep the generation. A wake brings the next pass
    /// forward, but never to less than min_spacing() after the end of the last pass that acted.
    virtual bool wakes(const kube::cached_object& object, const kube::cached_object& previous) {
        return object.generation != previous.generation;
    }
    /// The least time from a pass that acted to a pass a wake brings forward. Autoscalers: their
    /// sync period, so that two rescales are always a period apart and no rate limit (the legacy
    /// max(2 x current, 4), a behavior policy) is applied twice within one period — what
    /// upstream's rate-limited queue guarantees by deciding each HPA once per period. 0: a wake
    /// runs a pass at once (CronHPA: a run sets a size; running it twice changes nothing).
    virtual std::chrono::steady_clock::duration min_spacing(const worker_slot&) {
        return std::chrono::steady_clock::duration::zero();
    }
};

class worker_pool {
  public:
    /// `kind` names the workers in logs and metrics ("CronHPA"); `lane` the lane they run on in
    /// logs ("lane 1/2").
    worker_pool(std::string kind, worker_rules& rules, std::string lane = "lane 1/1");
    ~worker_pool();
    worker_pool(const worker_pool&) = delete;
    worker_pool& operator=(const worker_pool&) = delete;

    /// Spawns a worker for every object of `objects` and follows changes; `running` counts live
    /// workers (shared by every pool of a lane; read from another thread by the manager's drain).
    void start(boost::asio::any_io_executor ex, std::atomic<std::size_t>& running,
               const kube::snapshot& objects);
    /// Cancels every worker; a pass in flight finishes.
    void stop();
    /// Only objects whose key (namespace/name) `owns` get a worker (a sharded replica's shards);
    /// by default every object.
    void set_owner(std::function<bool(std::string_view key)> owns) { owns_ = std::move(owns); }
    /// After `owns` changed: spawns the workers of the owned objects of `objects` that have none,
    /// forgets those of objects no longer owned.
    void resync(const kube::snapshot& objects);
    /// The informer's change handler: spawn on appearance (of an object the rules take), wake on a
    /// change the rules say wakes, stop on delete (or when the rules stop taking the object).
    void on_change(kube::change what, const kube::object_cptr& object,
                   const kube::object_cptr& previous);
    /// Wakes the worker of `key` (namespace/name), if any.
    void poke(std::string_view key);
    /// Wakes the workers of namespace `ns` aimed at `target` (`Kind/name`).
    void poke_aimed_at(std::string_view ns, std::string_view target);

    const std::string& kind() const { return kind_; }
    std::size_t size() const { return workers_.size(); }
    bool acting() const { return acting_; }
    const worker_stats& stats() const { return stats_; }
    pool_summary summary() const { return {kind_, workers_.size(), stats_.passes, stats_.errors}; }

  private:
    boost::asio::awaitable<void> run(std::shared_ptr<worker_slot> w,
                                     std::chrono::milliseconds first_delay);
    void spawn(std::string_view ns, std::string_view name, bool listed);
    void forget(const std::string& key);
    bool wanted(const kube::cached_object& object) const {
        return (!owns_ || owns_(object.key)) && rules_.takes(object);
    }

    std::string kind_;
    std::string lane_;
    worker_rules& rules_;
    boost::asio::any_io_executor executor_;
    std::atomic<std::size_t>* running_ = nullptr;
    bool acting_ = false;
    std::function<bool(std::string_view key)> owns_;
    std::map<std::string, std::shared_ptr<worker_slot>, std::less<>> workers_;
    worker_stats stats_;
};

/// Logs, as "`what`: reason", the exception a spawned coroutine ended with (nothing when none).
/// Every co_spawn of the controller completes with it, so no failure goes unseen.
void log_failure(const std::string& what, std::exception_ptr e);

} // namespace hpaplus::controller
