// controller/runtime/shards.cpp — shard Leases, membership, and each replica's share.
#include "controller/runtime/shards.hpp"

#include "core/hash.hpp"
#include "kube/resources.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <cstdio>

namespace hpaplus::controller {
namespace {

namespace asio = boost::asio;
using core::fnv1a;

// A member Lease's name: the identity (hostname_pid) need not be a valid object name; its hash is.
std::string member_prefix(const leader_election_options& o) {
    return o.lease_name + "-member-";
}
std::string member_name(const leader_election_options& o) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(o.identity)));
    return member_prefix(o) + hex;
}

} // namespace

std::size_t shard_of(std::string_view key, std::size_t shards) {
    return shards <= 1 ? 0 : static_cast<std::size_t>(fnv1a(key) % shards);
}

shard_coordinator::shard_coordinator(kube::api_client& client, leader_election_options options,
                                     std::size_t shards, std::function<void()> on_change)
    : client_(client), options_(std::move(options)), on_change_(std::move(on_change)) {
    if (options_.identity.empty()) options_.identity = default_identity();
    live_.assign(1, options_.identity);
    auto member = options_;
    member.lease_name = member_name(options_);
    member.role = "a member of the " + std::to_string(shards) + " shards' replicas";
    member_ = std::make_unique<leader_elector>(
        client_, member, [] {}, [] {});
    for (std::size_t i = 0; i < shards; ++i) {
        auto shard = options_;
        shard.lease_name = options_.lease_name + "-shard-" + std::to_string(i);
        shard.role = "the holder of shard " + std::to_string(i);
        electors_.push_back(std::make_unique<leader_elector>(
            client_, shard, [this] { on_change_(); }, [this] { on_change_(); }));
    }
}

shard_coordinator::~shard_coordinator() = default;

bool shard_coordinator::holds(std::size_t shard) const {
    return shard < electors_.size() && electors_[shard]->leading();
}

bool shard_coordinator::may_write(std::string_view key) const {
    if (!key.empty()) return electors_[shard_of(key, electors_.size())]->holds_lease();
    for (const auto& e : electors_)
        if (e->holds_lease()) return true;
    return false;
}

std::vector<std::size_t> shard_coordinator::held() const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < electors_.size(); ++i)
        if (electors_[i]->leading()) out.push_back(i);
    return out;
}

// Counts the members whose Lease changed within its duration (this replica always counts) and the
// shards each holds, and deletes the member Leases of replicas gone for ten lease durations (no one
// else would).
asio::awaitable<void> shard_coordinator::survey() {
    const auto& ns = options_.lease_namespace;
    const std::string every, from_start; // named: GCC 12 mishandles temporaries in co_await calls
    auto listed = co_await kube::list(client_, kube::resources::leases, ns, every, 0, from_start);
    if (!listed) {
        problem_ = "cannot list the Leases of " + ns + ": " + listed.message();
        co_return;
    }
    const auto leases = kube::parse_lease_list(listed.body);
    if (!leases) {
        problem_ = "the Leases of " + ns + " are not a LeaseList the server should send";
        co_return;
    }
    const auto now = std::chrono::steady_clock::now();
    const std::string members = member_prefix(options_);
    const std::string shards = options_.lease_name + "-shard-";
    const std::string self = member_name(options_);
    std::map<std::string, seen, std::less<>> next;
    std::vector<std::string> gone;
    live_.assign(1, options_.identity);
    shards_of_.clear();
    for (const auto& l : *leases) {
        if (l.name.compare(0, shards.size(), shards) == 0 && !l.holder.empty())
            ++shards_of_[l.holder];
        if (l.name.compare(0, members.size(), members) != 0 || l.name == self) continue;
        std::string record = l.holder + "\n" + l.renew_time + "\n" + l.resource_version;
        const auto it = seen_members_.find(l.name);
        const auto changed =
            it != seen_members_.end() && it->second.record == record ? it->second.changed : now;
        next.emplace(l.name, seen{std::move(record), changed});
        if (!l.holder.empty() && now < changed + std::chrono::seconds(l.duration_seconds))
            live_.push_back(l.holder);
        else if (now - changed > 10 * options_.lease_duration)
            gone.push_back(l.name);
    }
    seen_members_ = std::move(next);
    std::size_t held = 0;
    for (const auto& [holder, count] : shards_of_)
        held += count;
    free_ = electors_.size() > held ? electors_.size() - held : 0;
    for (const auto& name : gone) {
        auto removed = co_await kube::remove(client_, kube::resources::leases, ns, name);
        if (removed || removed.ec == kube::errc::not_found) seen_members_.erase(name);
    }
}

// How many shards this replica gives up now: all above the share ⌈N / M⌉; and one more when it is
// the busiest replica (ties: the least identity), holds more than ⌊N / M⌋, a live replica holds
// fewer than ⌊N / M⌋ (a newcomer) and no shard is free for it to take — so that work spreads
// instead of only being capped, and a shard another replica just gave up is not given up twice
// (the next busiest, surveying before the newcomer took it, would otherwise give one more).
std::size_t shard_coordinator::surplus(std::size_t held) const {
    const std::size_t n = electors_.size();
    const std::size_t m = live_.size();
    const std::size_t share = (n + m - 1) / m;
    if (held > share) return held - share;
    const std::size_t floor = n / m;
    if (held <= floor) return 0;
    const auto count = [&](const std::string& who) {
        const auto it = shards_of_.find(who);
        return it == shards_of_.end() ? std::size_t{0} : it->second;
    };
    bool starved = false;
    for (const auto& who : live_) {
        if (who == options_.identity) continue;
        if (count(who) < floor) starved = true;
        if (count(who) > held || (count(who) == held && who < options_.identity)) return 0;
    }
    return starved && free_ == 0 ? 1 : 0;
}

asio::awaitable<void> shard_coordinator::run() {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    const std::size_t n = electors_.size();
    // Replicas try free shards in different orders, so that they seldom race for the same one.
    const std::size_t offset = fnv1a(options_.identity) % n;
    while (!stopped_) {
        problem_.clear();
        co_await member_->step(true);
        if (!member_->problem().empty()) problem_ = member_->problem();
        co_await survey();
        std::size_t held = this->held().size();
        for (std::size_t give = surplus(held), i = n; give > 0 && i-- > 0 && !stopped_;) {
            if (!electors_[i]->leading()) continue;
            spdlog::info("shards: {} gives shard {} up ({} live replicas share {} shards)",
                         options_.identity, i, live_.size(), n);
            co_await electors_[i]->release();
            gave_up_at_ = std::chrono::steady_clock::now();
            --held;
            --give;
        }
        // The first round only announces this replica: replicas that start together see each
        // other before any of them takes a share. One that gave a shard up takes none for a lease
        // duration, so that the replica it gave way to has the time to take it (it would otherwise
        // take it straight back, its share not being full).
        const bool may_take = ++rounds_ > 1 && std::chrono::steady_clock::now() >=
                                                   gave_up_at_ + options_.lease_duration;
        const std::size_t share = (n + live_.size() - 1) / live_.size();
        for (std::size_t k = 0; k < n && !stopped_; ++k) {
            leader_elector& e = *electors_[(offset + k) % n];
            const bool before = e.leading();
            co_await e.step(may_take && held < share);
            if (e.leading() && !before) ++held;
            if (!e.leading() && before) --held;
            if (problem_.empty() && !e.problem().empty()) problem_ = e.problem();
        }
        timer.expires_after(options_.retry_period);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

asio::awaitable<void> shard_coordinator::release() {
    for (auto& e : electors_)
        co_await e->release();
    if (!member_->leading()) co_return;
    const std::string name = member_name(options_);
    co_await kube::remove(client_, kube::resources::leases, options_.lease_namespace, name);
}

} // namespace hpaplus::controller
