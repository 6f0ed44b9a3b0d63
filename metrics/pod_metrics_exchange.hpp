// metrics/pod_metrics_exchange.hpp — the namespaces' PodMetrics reads, shared between the lanes of
// workers (--threads). Each lane serves its own objects from one read per namespace and window
// (shared_pod_metrics); through the exchange, a lane whose objects want a namespace that another
// lane read within the window, or is reading, takes that read instead of sending a list of its
// own. Without it every lane read every namespace's list once per window: two lanes sent twice
// the lists one did and decoded each twice. Thread-safe: every lane calls it from its own thread.
#pragma once

#include "core/hash.hpp"
#include "metrics/metrics_api.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hpaplus::metrics {

/// One namespace's finished PodMetrics read: immutable once made, so any lane may read it.
struct finished_read {
    std::shared_ptr<const pod_metrics_answer> answer;
    /// (pod name, index in answer->items), sorted: an object finds its few pods by binary search.
    std::vector<std::pair<std::string_view, std::size_t>> by_name;
    std::chrono::steady_clock::time_point started;
    std::uint64_t number = 0; ///< pod_metrics_answer::shared_read
};

class pod_metrics_exchange {
  public:
    explicit pod_metrics_exchange(std::chrono::milliseconds window) : window_(window) {}

    /// Called once with the read a lane waited for, on the thread that finished it.
    using on_finished = std::function<void(std::shared_ptr<const finished_read>)>;
    /// What a lane does about namespace `ns` for an object that had read `after_read` last.
    struct claim {
        std::shared_ptr<const finished_read> finished; ///< set: take this read
        bool waiting = false;     ///< another lane's read is in flight: `on_done` will get it
        std::uint64_t number = 0; ///< else: read it yourself under this number, then publish
        std::chrono::steady_clock::time_point started;
    };
    /// The newest read of `ns` that started within the window before `now` and is numbered above
    /// `after_read`: finished, or in flight on some lane (then `on_done` is kept for it); or,
    /// when there is none, a new read for the caller to make, recorded as in flight.
    claim join(std::string_view ns, std::chrono::steady_clock::time_point now,
               std::uint64_t after_read, on_finished on_done);
    /// A read `join` gave out, finished (also when it failed): given to the lanes waiting for
    /// it, then offered to later ones; drops a few reads past their window.
    void publish(const std::string& ns, std::shared_ptr<const finished_read> read);
    /// Namespaces with a read held or in flight (for tests).
    std::size_t namespaces_held() const;

  private:
    struct entry {
        std::shared_ptr<const finished_read> finished;
        std::uint64_t in_flight = 0; ///< the number of the read in flight (0: none)
        std::chrono::steady_clock::time_point in_flight_started;
    };
    bool expired(const entry& e, std::chrono::steady_clock::time_point now) const;

    const std::chrono::milliseconds window_;
    std::uint64_t numbers_ = 0;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, entry, core::string_hash, std::equal_to<>> entries_;
    /// The lanes waiting for each read in flight, by its number.
    std::unordered_map<std::uint64_t, std::vector<on_finished>> waiting_;
    /// Namespaces by when their reads started, oldest first, for dropping expired ones.
    std::deque<std::pair<std::string, std::chrono::steady_clock::time_point>> by_start_;
};

} // namespace hpaplus::metrics
