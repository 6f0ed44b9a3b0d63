// controller/runtime/shards.hpp — which objects this replica acts on (--shards N), and the fence
// every write passes.
//
// The layout Lease `<lease-name>` says which shard count is in force; every Lease HPAPlus writes
// records its writer's count (kube::lease_shards_annotation).
//  - N = 1: the replica holding the layout Lease acts on every object (leader election).
//  - N > 1: every replica of N renews the layout Lease together. An object belongs to shard
//    `shard_of(namespace/name, N)`, the Lease `<lease-name>-shard-<i>`, held, renewed, fenced and
//    released as leader_elector holds one Lease. Replicas of N find each other through membership
//    Leases (`<lease-name>-member-<hash of identity>`), renewed like a shard's: a member counts as
//    live while its record keeps changing within its lease duration (seen on this replica's
//    clock). With M live members a replica holds at most ⌈N / M⌉ shards: over that share it gives
//    up its highest-numbered ones (the holder is cleared, so another takes them at once), under it
//    takes free or expired ones; while a live replica holds fewer than ⌊N / M⌋ and none is free,
//    the busiest one gives one more up.
//
// Changing the count (a rolling update from N to M): a replica of M stands back while the layout
// Lease is another count's and renewed within its duration, so the incumbents keep working until
// they are gone. It takes the layout Lease once it is free (the last replica of N released it on
// shutdown) or expired; it acts only when no shard Lease of another count is held any more
// (released, or not renewed for its duration); and it acts on a shard it took only after a later
// renewal of the layout Lease showed the layout still its own — a replica of another count that
// took the layout Lease in between is seen then, and the shard is given up unused. A replica that
// finds the layout Lease held by another count stops writing at once and gives its shards up. So
// one count's replicas write at any instant, each object by one replica (docs/controller.md,
// "Changing the shard count").
#pragma once

#include "controller/runtime/leader_election.hpp"
#include "controller/runtime/options.hpp"

#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::kube {
class api_client;
}

namespace hpaplus::controller {

/// The shard of the object `key` (namespace/name) among `shards` (≥ 1): FNV-1a, the same in
/// every process and release.
std::size_t shard_of(std::string_view key, std::size_t shards);

class shard_coordinator {
  public:
    /// `on_change` is called whenever a shard was gained or lost (`held()` says which are held).
    /// `options` names the Leases and sets their timing; `shards` ≥ 1.
    shard_coordinator(kube::api_client& client, leader_election_options options, std::size_t shards,
                      std::function<void()> on_change);
    ~shard_coordinator();

    /// Renews the layout, membership and shards every retry period until stop(). Runs on: the
    /// client's executor. Cancellation: stop() ends it within one retry period.
    boost::asio::awaitable<void> run();
    void stop() { stopped_ = true; }
    /// Gives every held shard and the membership up, and the layout Lease when no other live
    /// replica of this count renews it. Runs on: the client's executor.
    boost::asio::awaitable<void> release();

    /// Whether shard `i` is this replica's to act on (workers run for it). Any thread.
    bool holds(std::size_t shard) const;
    /// Whether this replica is the one that works on the object `key` (its shard is held).
    bool owns(std::string_view key) const { return holds(shard_of(key, shard_count())); }
    /// The write fence: the layout Lease and the shard of `key` are held and renewed recently
    /// enough that no replica of another count, and no other replica of this one, can hold them
    /// (leader_elector::holds_lease); an empty key (a write not tied to one object, an Event)
    /// needs any such shard. Any thread.
    bool may_write(std::string_view key) const;
    std::vector<std::size_t> held() const;
    std::size_t shard_count() const { return confirmed_.size(); }
    /// Live members of this count seen in the last round, this replica included.
    std::size_t members() const { return live_.size(); }
    /// Why the layout Lease, or in the last round another Lease, could not be read or written
    /// ("" when it could).
    std::string problem() const;

  private:
    /// false when the Leases could not be listed.
    boost::asio::awaitable<bool> survey();
    std::size_t surplus(std::size_t held) const;
    /// The Lease that holds shard i: with one shard, the layout Lease itself.
    leader_elector& shard_lease(std::size_t i) const {
        return electors_.empty() ? *layout_ : *electors_[i];
    }
    /// Shards held since before this round's layout renewal are confirmed; with one shard, the
    /// layout Lease once no other count holds a shard.
    void confirm(const std::vector<bool>& held_before);
    boost::asio::awaitable<void> share_out();
    void report_foreign();

    kube::api_client& client_;
    leader_election_options options_;
    std::function<void()> on_change_;
    std::unique_ptr<leader_elector> layout_;
    std::unique_ptr<leader_elector> member_;                ///< with more than one shard
    std::vector<std::unique_ptr<leader_elector>> electors_; ///< with more than one shard
    std::vector<std::atomic<bool>> confirmed_; ///< per shard: held and confirmed, acted on
    struct seen {
        std::string record; ///< holder + renewTime + resourceVersion
        std::chrono::steady_clock::time_point changed;
    };
    std::map<std::string, seen, std::less<>> seen_; ///< member and shard Leases, by name
    std::vector<std::string> live_; ///< live members' identities of this count (this one first)
    std::map<std::string, std::size_t, std::less<>> shards_of_; ///< this count's shards, by holder
    std::size_t free_ = 0;         ///< this count's shards no one holds, in the last survey
    std::string foreign_;          ///< shard Leases of another count still held ("" when none)
    std::string foreign_reported_; ///< what report_foreign last logged
    bool quiet_ = false; ///< surveyed in this round, and no other count holds a shard Lease
    std::size_t rounds_ = 0;
    std::chrono::steady_clock::time_point gave_up_at_{}; ///< when it last gave a shard up
    std::string problem_;                                ///< the last round's
    std::string round_problem_;                          ///< this round's, so far
    bool stopped_ = false;
};

} // namespace hpaplus::controller
