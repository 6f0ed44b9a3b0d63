// kube/informer.hpp — a cache of one resource kept current by LIST + WATCH, the way client-go's
// Reflector does it: paginated list, watch from the list's resourceVersion with bookmarks, re-watch
// from the last version when a watch ends, relist when the server says the version is gone (410),
// and exponential backoff (800 ms doubling to 5 s) on errors, into an object_cache. It knows
// whether what it holds is current (current()): the controller writes nothing that depends on a
// cache that fell behind.
#pragma once

#include "core/label_interner.hpp"
#include "kube/api_client.hpp"
#include "kube/informer_options.hpp"
#include "kube/object_cache.hpp"

#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace hpaplus::kube {

class informer final : public object_cache {
  public:
    /// `collection` is the list path, e.g. `/api/v1/pods` or
    /// `/apis/apps/v1/namespaces/ns/deployments`.
    informer(api_client& client, std::string collection, informer_options options = {});

    /// Lists and watches until stop(). Runs on: the client's executor.
    /// Cancellation: stop() ends it after the current watch returns (at most the watch timeout).
    boost::asio::awaitable<void> run();
    void stop() { stopped_ = true; }

    /// True once the first list has been applied.
    bool synced() const { return synced_; }
    /// False while the server answers 404 to the list (with `absent_means_empty`).
    bool served() const { return served_; }
    /// Waits until synced() or `timeout`; returns synced(). Runs on: the client's executor
    /// (the same one run() uses). Cancellation: none; bounded by `timeout`.
    boost::asio::awaitable<bool> wait_synced(std::chrono::milliseconds timeout);
    /// How many full lists were made (1 at start, +1 for every relist after a 410).
    std::uint64_t lists() const { return lists_; }
    const std::string& collection() const { return collection_; }
    /// The last error, for status and logs ("" when the last step succeeded).
    const std::string& last_error() const { return last_error_; }
    /// Whether what it holds may be acted on: synced, and lists and watches working — or failing
    /// for less than `max_stale` (a dropped watch resumed at once loses nothing). After a longer
    /// gap, false until a full list has been applied and a second has passed. Any thread.
    bool current() const;

  private:
    boost::asio::awaitable<bool> list();
    boost::asio::awaitable<api_response> watch();
    /// Whether the server's current resourceVersion (a one-item list) is older than ours (false
    /// when it cannot tell, e.g. versions that are not numbers); nullopt while it is unreachable.
    boost::asio::awaitable<std::optional<bool>> server_went_back();
    /// Applies one watch event (`type` as on the wire; a BOOKMARK only moves the resourceVersion);
    /// false when it does not decode — another type, an object that is not one — and the watch
    /// must end.
    bool apply(std::string_view type, std::string_view json);
    /// Makes `fresh` the cache at `version`, telling handlers what changed.
    void replace(std::map<std::string, object_cptr, std::less<>> fresh, std::string version);

    api_client& client_;
    std::string collection_;
    informer_options options_;
    std::string resource_version_;
    bool synced_ = false;
    bool served_ = true;
    bool stopped_ = false;
    std::uint64_t lists_ = 0;
    std::uint64_t watch_lines_ = 0; ///< lines (events and bookmarks) the current watch delivered
    /// Freshness, read by current() from any thread (steady-clock nanoseconds): since when lists
    /// or watches fail (0: they work), and when the cache last caught up after a long gap.
    std::atomic<bool> synced_flag_{false};
    std::atomic<std::int64_t> stale_since_{0};
    std::atomic<std::int64_t> caught_up_at_{0};
    bool behind_reported_ = false; ///< the log said it fell behind (and will say it caught up)
    /// The list or watch failed: the cache may fall behind from now.
    void went_stale();
    /// A watch was accepted (`listed`: false) or a full list applied (true).
    void caught_up(bool listed);
    std::string last_error_;
    core::label_interner labels_; ///< the pods of a ReplicaSet share one label set
};

} // namespace hpaplus::kube
