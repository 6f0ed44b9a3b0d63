// controller/runtime/shards.cpp — shard Leases, membership, and each replica's share.
#include "controller/runtime/shards.hpp"

#include "core/hash.hpp"
#include "kube/resources.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
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
    : client_(client), options_(std::move(options)), on_change_(std::move(on_change)),
      confirmed_(std::max<std::size_t>(shards, 1)) {
    if (options_.identity.empty()) options_.identity = default_identity();
    options_.shards = confirmed_.size();
    live_.assign(1, options_.identity);
    const std::string count = std::to_string(options_.shards);
    const auto lost = [this](std::size_t i) {
        return [this, i] {
            confirmed_[i] = false;
            on_change_();
        };
    };
    auto layout = options_;
    if (options_.shards == 1) {
        layout_ = std::make_unique<leader_elector>(
            client_, layout, [] {}, lost(0));
        return;
    }
    layout.shared = true;
    layout.role = "a replica of the " + count + "-shard layout";
    layout_ = std::make_unique<leader_elector>(
        client_, layout, [] {},
        [this] {
            for (auto& c : confirmed_)
                c = false;
            on_change_();
        });
    auto member = options_;
    member.lease_name = member_name(options_);
    member.role = "a member of the " + count + " shards' replicas";
    member_ = std::make_unique<leader_elector>(
        client_, member, [] {}, [] {});
    for (std::size_t i = 0; i < options_.shards; ++i) {
        auto shard = options_;
        shard.lease_name = options_.lease_name + "-shard-" + std::to_string(i);
        shard.role = "the holder of shard " + std::to_string(i) + " of " + count;
        electors_.push_back(std::make_unique<leader_elector>(
            client_, shard, [] {}, lost(i)));
    }
}

shard_coordinator::~shard_coordinator() = default;

bool shard_coordinator::holds(std::size_t shard) const {
    return shard < shard_count() && confirmed_[shard] && layout_->leading() &&
           shard_lease(shard).leading();
}

bool shard_coordinator::may_write(std::string_view key) const {
    if (!layout_->holds_lease()) return false;
    const auto fenced = [this](std::size_t i) {
        return confirmed_[i] && shard_lease(i).holds_lease();
    };
    if (!key.empty()) return fenced(shard_of(key, shard_count()));
    for (std::size_t i = 0; i < shard_count(); ++i)
        if (fenced(i)) return true;
    return false;
}

std::vector<std::size_t> shard_coordinator::held() const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < shard_count(); ++i)
        if (holds(i)) out.push_back(i);
    return out;
}

// Counts the live members of this count (this replica always counts) and the shards each holds,
// finds the shard Leases another count still holds, and deletes the member Leases of replicas gone
// for ten lease durations (no one else would).
asio::awaitable<bool> shard_coordinator::survey() {
    const auto& ns = options_.lease_namespace;
    const std::string every, from_start; // named: GCC 12 mishandles temporaries in co_await calls
    auto listed = co_await kube::list(client_, kube::resources::leases, ns, every, 0, from_start);
    if (!listed) {
        round_problem_ = "cannot list the Leases of " + ns + ": " + listed.message();
        co_return false;
    }
    const auto leases = kube::parse_lease_list(listed.body);
    if (!leases) {
        round_problem_ = "the Leases of " + ns + " are not a LeaseList the server should send";
        co_return false;
    }
    const auto now = std::chrono::steady_clock::now();
    const std::string members = member_prefix(options_);
    const std::string shards = options_.lease_name + "-shard-";
    const std::string self = member_name(options_);
    std::map<std::string, seen, std::less<>> next;
    std::vector<std::string> gone;
    live_.assign(1, options_.identity);
    shards_of_.clear();
    foreign_.clear();
    for (const auto& l : *leases) {
        const bool shard = l.name.compare(0, shards.size(), shards) == 0;
        const bool member = l.name.compare(0, members.size(), members) == 0;
        if ((!shard && !member) || l.name == self) continue;
        std::string record = l.holder + "\n" + l.renew_time + "\n" + l.resource_version;
        const auto it = seen_.find(l.name);
        const auto changed =
            it != seen_.end() && it->second.record == record ? it->second.changed : now;
        next.emplace(l.name, seen{std::move(record), changed});
        const bool live =
            !l.holder.empty() && now < changed + std::chrono::seconds(l.duration_seconds);
        const bool ours = l.shards == options_.shards;
        if (shard) {
            if (ours && !l.holder.empty()) ++shards_of_[l.holder];
            if (!ours && live)
                foreign_ += (foreign_.empty() ? "" : ", ") + l.name + " (" + l.holder +
                            (l.shards ? ", --shards " + std::to_string(l.shards) : "") + ")";
            continue;
        }
        if (live && ours)
            live_.push_back(l.holder);
        else if (!live && now - changed > 10 * options_.lease_duration)
            gone.push_back(l.name);
    }
    seen_ = std::move(next);
    std::size_t held = 0;
    for (const auto& [holder, count] : shards_of_)
        held += count;
    free_ = electors_.size() > held ? electors_.size() - held : 0;
    for (const auto& name : gone) {
        auto removed = co_await kube::remove(client_, kube::resources::leases, ns, name);
        if (removed || removed.ec == kube::errc::not_found) seen_.erase(name);
    }
    co_return true;
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

void shard_coordinator::confirm(const std::vector<bool>& held_before) {
    if (stopped_ || !layout_->leading() || !quiet_) return; // a stopped one takes nothing new
    bool changed = false;
    for (std::size_t i = 0; i < shard_count(); ++i) {
        if (confirmed_[i] || !shard_lease(i).leading() || (!electors_.empty() && !held_before[i]))
            continue;
        confirmed_[i] = true;
        changed = true;
        spdlog::info("shards: {} acts on shard {} of {}", options_.identity, i, shard_count());
    }
    if (changed) on_change_();
}

void shard_coordinator::report_foreign() {
    if (foreign_ == foreign_reported_) return;
    foreign_reported_ = foreign_;
    if (!foreign_.empty())
        spdlog::info("shards: {} (--shards {}) waits until these Leases are released or expire: {}",
                     options_.identity, shard_count(), foreign_);
}

// The shards' share-out among this count's replicas: gives surplus shards up, takes free or
// expired ones up to the share, renews the rest.
asio::awaitable<void> shard_coordinator::share_out() {
    const std::size_t n = electors_.size();
    std::size_t held = 0;
    for (const auto& e : electors_)
        held += e->leading() ? 1 : 0;
    for (std::size_t give = surplus(held), i = n; give > 0 && i-- > 0 && !stopped_;) {
        if (!electors_[i]->leading()) continue;
        spdlog::info("shards: {} gives shard {} up ({} live replicas share {} shards)",
                     options_.identity, i, live_.size(), n);
        co_await electors_[i]->release();
        gave_up_at_ = std::chrono::steady_clock::now();
        --held;
        --give;
    }
    // The first round only announces this replica: replicas that start together see each other
    // before any of them takes a share. One that gave a shard up takes none for a lease duration,
    // so that the replica it gave way to has the time to take it (it would otherwise take it
    // straight back, its share not being full). None is taken while another count holds one.
    const bool may_take = rounds_ > 1 && quiet_ &&
                          std::chrono::steady_clock::now() >= gave_up_at_ + options_.lease_duration;
    const std::size_t share = (n + live_.size() - 1) / live_.size();
    // Replicas try free shards in different orders, so that they seldom race for the same one.
    const std::size_t offset = fnv1a(options_.identity) % n;
    for (std::size_t k = 0; k < n && !stopped_; ++k) {
        leader_elector& e = *electors_[(offset + k) % n];
        const bool before = e.leading();
        co_await e.step(may_take && held < share);
        if (e.leading() && !before) ++held;
        if (!e.leading() && before) --held;
        if (round_problem_.empty()) round_problem_ = e.problem();
    }
}

asio::awaitable<void> shard_coordinator::run() {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    std::vector<bool> held_before(shard_count());
    while (!stopped_) {
        round_problem_.clear();
        ++rounds_;
        for (std::size_t i = 0; i < shard_count(); ++i)
            held_before[i] = shard_lease(i).leading();
        if (member_) {
            co_await member_->step(true);
            round_problem_ = member_->problem();
        }
        // Renewed (or taken) before the shards are looked at: a shard held before this renewal
        // is confirmed by it.
        co_await layout_->step(true);
        // Unsurveyed, no other count's Leases are known to be gone: nothing new is confirmed or
        // taken, what is held is renewed.
        quiet_ = co_await survey() && foreign_.empty();
        if (!layout_->leading()) {
            // Another count's layout is in force: nothing of this replica's may stay held.
            for (auto& e : electors_)
                co_await e->release();
            layout_->report_waiting();
        } else {
            confirm(held_before);
            report_foreign();
            if (!electors_.empty()) co_await share_out();
        }
        problem_ = std::move(round_problem_);
        timer.expires_after(options_.retry_period);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

std::string shard_coordinator::problem() const {
    return layout_->problem().empty() ? problem_ : layout_->problem();
}

asio::awaitable<void> shard_coordinator::release() {
    for (auto& e : electors_)
        co_await e->release();
    // Another live replica of this count still renews the layout: it stays this count's.
    if (live_.size() <= 1) co_await layout_->release();
    if (!member_ || !member_->leading()) co_return;
    const std::string name = member_name(options_);
    co_await kube::remove(client_, kube::resources::leases, options_.lease_namespace, name);
}

} // namespace hpaplus::controller
