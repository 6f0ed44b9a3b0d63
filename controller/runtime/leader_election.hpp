// controller/runtime/leader_election.hpp — one acting replica, elected on a coordination.k8s.io/v1
// Lease the way client-go's leaderelection does it: a candidate takes the Lease when it is free or
// its holder has not renewed it for leaseDurationSeconds (measured on the candidate's own clock
// from when it last saw the record change, so clock skew does not matter); the leader renews every
// retry period and stops acting when it could not renew within the renew deadline; on shutdown it
// releases the Lease so another replica takes over at once.
//
// Fencing: `holds_lease()` is true only within the renew deadline of the start of the last
// successful renewal, on the monotonic clock. Since no other replica can take the Lease sooner
// than leaseDuration after it saw that renewal, and renewDeadline < leaseDuration, a write made
// while it is true cannot overlap another leader — even if this process was frozen in between.
// The client should be one that only leader election uses (its own connection, no client-side
// rate limit), so reconcile traffic can never delay a renewal.
#pragma once

#include "controller/runtime/options.hpp"
#include "kube/api_client.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace hpaplus::kube {
struct lease_info;
}

namespace hpaplus::controller {

class leader_elector {
  public:
    leader_elector(kube::api_client& client, leader_election_options options,
                   std::function<void()> on_started_leading,
                   std::function<void()> on_stopped_leading);
    ~leader_elector();

    /// Campaigns and leads until stop(); leading can start and stop several times.
    /// Runs on: the client's executor. Cancellation: stop() ends it within one retry period.
    boost::asio::awaitable<void> run();
    void stop() { stopped_ = true; }
    /// One round of run(): renews the Lease while leading; otherwise takes it when it is free or
    /// expired, if `may_take` (a sharded replica that has its share takes no more). Runs on: the
    /// client's executor.
    boost::asio::awaitable<void> step(bool may_take);
    /// Stops leading (on_stopped_leading) and gives the Lease up (holder cleared, so another
    /// replica takes it at once) if this replica holds it. Runs on: the executor.
    boost::asio::awaitable<void> release();

    bool leading() const { return leading_; }
    /// Leading, and the last renewal is recent enough that no one else can hold the Lease: ask
    /// right before each write.
    /// Both read from any thread (a lane's write fence); the elector changes them on its own.
    bool holds_lease() const {
        return leading_ && std::chrono::steady_clock::now() < valid_until_.load();
    }
    const std::string& identity() const { return options_.identity; }
    /// Why the last attempt to take or renew the Lease failed with an API error (no namespace,
    /// no permission, server away), "" when it did not. Another replica holding the Lease is not
    /// a problem: this one stands by.
    const std::string& problem() const { return problem_; }

    /// While not leading, logs why: an API error as a warning, standing by for another replica
    /// as information; each when it changes and at least once a minute while it lasts.
    void report_waiting();

  private:
    /// Holder this replica (or, shared, a replica of the same shard count).
    bool is_mine(const kube::lease_info& lease) const;
    boost::asio::awaitable<bool> try_acquire_or_renew(bool may_take);
    void stop_leading(const char* why);
    /// Steps down when the renew deadline passes, on its own timer: a renewal request that hangs
    /// (a frozen API server) must not keep this replica reporting leadership it no longer has.
    void watch_deadline(const boost::asio::any_io_executor& executor);
    struct deadline_timer;
    std::unique_ptr<deadline_timer> deadline_;

    kube::api_client& client_;
    leader_election_options options_;
    std::function<void()> on_started_;
    std::function<void()> on_stopped_;
    bool stopped_ = false;
    bool contended_ = false; ///< the last write lost a race (409) for the Lease
    std::atomic<bool> leading_ = false;
    /// Bumped by every release(): a step under way when the Lease was released does not make
    /// this replica lead again when its answer comes back (a stopped replica would otherwise
    /// act beside the one that took over).
    std::uint64_t releases_ = 0;
    std::string observed_record_; ///< holder + renewTime + resourceVersion last seen
    std::chrono::steady_clock::time_point observed_at_{};
    std::atomic<std::chrono::steady_clock::time_point> valid_until_{};
    std::string resource_version_;
    std::string problem_;
    std::string standing_by_; ///< the holder while not leading
    std::string logged_;      ///< what was last logged, and when
    std::chrono::steady_clock::time_point logged_at_{};
};

/// This machine's host name ("hpaplus" when it cannot be read): Events' source host.
std::string host_name();
/// `hostname_pid`, the default identity.
std::string default_identity();

} // namespace hpaplus::controller
