// controller/runtime/shards.hpp — the work split over replicas (--shards N). An object belongs to
// shard `shard_of(namespace/name, N)`; shard i is the Lease `<lease-name>-shard-<i>`, held,
// renewed, fenced and released as leader_elector holds one Lease. Replicas find each other through
// membership Leases (`<lease-name>-member-<hash of identity>`), which each replica renews like a
// shard's: a member counts as live while its record keeps changing within its lease duration (seen
// on this replica's clock, as a Lease's expiry is). With M live members a replica holds at most
// ⌈N / M⌉ shards: over that share it gives up its highest-numbered ones (the holder is cleared, so
// another takes them at once), under it takes free or expired ones; while a live replica holds
// fewer than ⌊N / M⌋ and none is free, the busiest one gives one more up. A replica that dies stops
// renewing both kinds, so within a lease duration its shards are free and the others' share grows;
// one that joins shrinks the others' share, they give shards up and it takes them.
#pragma once

#include "controller/runtime/leader_election.hpp"
#include "controller/runtime/options.hpp"

#include <boost/asio/awaitable.hpp>

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
    /// `options` names the Leases and sets their timing; `shards` ≥ 2.
    shard_coordinator(kube::api_client& client, leader_election_options options, std::size_t shards,
                      std::function<void()> on_change);
    ~shard_coordinator();

    /// Renews membership and shards every retry period until stop(). Runs on: the client's
    /// executor. Cancellation: stop() ends it within one retry period.
    boost::asio::awaitable<void> run();
    void stop() { stopped_ = true; }
    /// Gives every held shard and the membership up. Runs on: the client's executor.
    boost::asio::awaitable<void> release();

    /// Whether shard `i` is held (workers run for it).
    bool holds(std::size_t shard) const;
    /// Whether this replica is the one that works on the object `key` (its shard is held).
    bool owns(std::string_view key) const { return holds(shard_of(key, electors_.size())); }
    /// The write fence: the shard of `key` is held and renewed recently enough that no other
    /// replica can hold it (leader_elector::holds_lease); an empty key (a write not tied to one
    /// object, an Event) needs any such shard.
    bool may_write(std::string_view key) const;
    std::vector<std::size_t> held() const;
    std::size_t shard_count() const { return electors_.size(); }
    /// Live members seen in the last round, this replica included.
    std::size_t members() const { return live_.size(); }
    /// Why the last round could not read or write a Lease ("" when it could).
    const std::string& problem() const { return problem_; }

  private:
    boost::asio::awaitable<void> survey();
    std::size_t surplus(std::size_t held) const;

    kube::api_client& client_;
    leader_election_options options_;
    std::function<void()> on_change_;
    std::unique_ptr<leader_elector> member_;
    std::vector<std::unique_ptr<leader_elector>> electors_;
    struct seen {
        std::string record; ///< holder + renewTime + resourceVersion
        std::chrono::steady_clock::time_point changed;
    };
    std::map<std::string, seen, std::less<>> seen_members_; ///< by Lease name
    std::vector<std::string> live_; ///< live members' identities (this one first)
    std::map<std::string, std::size_t, std::less<>> shards_of_; ///< shards held, by holder
    std::size_t free_ = 0; ///< shards no one holds, in the last survey
    std::size_t rounds_ = 0;
    std::chrono::steady_clock::time_point gave_up_at_{}; ///< when it last gave a shard up
    std::string problem_;
    bool stopped_ = false;
};

} // namespace hpaplus::controller
