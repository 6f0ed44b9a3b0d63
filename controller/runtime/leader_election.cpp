// controller/runtime/leader_election.cpp — Lease-based leader election.
#include "controller/runtime/leader_election.hpp"

#include "kube/resources.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <unistd.h>

namespace hpaplus::controller {
namespace {

namespace asio = boost::asio;

} // namespace

bool leader_elector::is_mine(const kube::lease_info& lease) const {
    return options_.shared ? !lease.holder.empty() && lease.shards == options_.shards
                           : lease.holder == options_.identity;
}

std::string host_name() {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) return "hpaplus";
    return host;
}

std::string default_identity() {
    return host_name() + "_" + std::to_string(::getpid());
}

leader_elector::leader_elector(kube::api_client& client, leader_election_options options,
                               std::function<void()> on_started_leading,
                               std::function<void()> on_stopped_leading)
    : client_(client), options_(std::move(options)), on_started_(std::move(on_started_leading)),
      on_stopped_(std::move(on_stopped_leading)) {
    if (options_.identity.empty()) options_.identity = default_identity();
}

struct leader_elector::deadline_timer {
    asio::steady_timer timer;
};

// Cancelling the timer runs its handler later with operation_aborted, which touches nothing.
leader_elector::~leader_elector() = default;

void leader_elector::watch_deadline(const asio::any_io_executor& executor) {
    if (!deadline_)
        deadline_ = std::make_unique<deadline_timer>(deadline_timer{asio::steady_timer(executor)});
    deadline_->timer.expires_at(valid_until_.load());
    deadline_->timer.async_wait([this](const boost::system::error_code& ec) {
        if (ec || !leading_ || std::chrono::steady_clock::now() < valid_until_.load()) return;
        problem_ = "could not renew the Lease " + options_.lease_namespace + "/" +
                   options_.lease_name + " within the renew deadline";
        stop_leading("let the renew deadline pass without a renewal");
    });
}

asio::awaitable<bool> leader_elector::try_acquire_or_renew(bool may_take) {
    contended_ = false;
    const auto& ns = options_.lease_namespace;
    const auto& name = options_.lease_name;
    const auto now = std::chrono::steady_clock::now();
    const auto duration_seconds = static_cast<std::int32_t>(
        std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::seconds>(
                                      options_.lease_duration + std::chrono::milliseconds(999))
                                      .count()));
    kube::lease_info next;
    next.holder = options_.identity;
    next.shards = options_.shards;
    next.duration_seconds = duration_seconds;
    next.renew_time = core::format_micro_time(core::wall_now());

    const std::string lease_name = "Lease " + ns + "/" + name;
    // What /readyz and the log report is replaced only when this attempt ends: a hanging request
    // leaves the last problem (or the missed deadline) in view instead of an "ok".
    const auto settle = [this](std::string problem, std::string standing_by = {}) {
        problem_ = std::move(problem);
        standing_by_ = std::move(standing_by);
    };
    auto current = co_await kube::get(client_, kube::resources::leases, ns, name);
    if (!current && current.ec == kube::errc::not_found) {
        if (!may_take) {
            settle({});
            co_return false;
        }
        next.acquire_time = next.renew_time;
        std::string body = kube::lease_body(ns, name, next);
        auto created = co_await kube::create(client_, kube::resources::leases, ns, std::move(body));
        contended_ = created.ec == kube::errc::already_exists;
        if (!created) {
            settle("cannot create the " + lease_name + ": " + created.message());
            co_return false;
        }
        settle({});
        observed_at_ = now;
        co_return true;
    }
    if (!current) {
        settle("cannot read the " + lease_name + ": " + current.message());
        co_return false;
    }
    auto lease = kube::parse_lease(current.body);
    if (!lease) {
        settle("the " + lease_name + " is not a Lease the server should send");
        co_return false;
    }
    const std::string record =
        lease->holder + "\n" + lease->renew_time + "\n" + lease->resource_version;
    if (record != observed_record_) {
        observed_record_ = record;
        observed_at_ = now;
    }
    const auto held_for = std::chrono::seconds(lease->duration_seconds);
    const bool mine = is_mine(*lease);
    if (!mine && !lease->holder.empty() && observed_at_ + held_for > now) {
        settle({}, lease->shards == options_.shards || lease->shards == 0
                       ? lease->holder
                       : lease->holder + " (--shards " + std::to_string(lease->shards) + ")");
        // Taken by another while this replica led: it stops at once, not at its deadline.
        if (leading_) stop_leading(("saw the Lease held by " + standing_by_).c_str());
        co_return false;
    }
    if (!mine && !may_take) {
        settle({});
        co_return false;
    }

    next.resource_version = lease->resource_version;
    next.acquire_time = mine ? lease->acquire_time : next.renew_time;
    next.transitions = mine ? lease->transitions : lease->transitions + 1;
    std::string body = kube::lease_body(ns, name, next);
    const std::string no_sub; // named: GCC 12 mishandles temporaries in co_await calls
    auto updated =
        co_await kube::update(client_, kube::resources::leases, ns, name, std::move(body), no_sub);
    contended_ = updated.ec == kube::errc::conflict;
    if (!updated) {
        settle("cannot update the " + lease_name + ": " + updated.message());
        co_return false;
    }
    settle({});
    observed_at_ = now;
    co_return true;
}

void leader_elector::report_waiting() {
    const std::string what = !problem_.empty() ? problem_
                             : !standing_by_.empty()
                                 ? "the Lease " + options_.lease_namespace + "/" +
                                       options_.lease_name + " is held by " + standing_by_ +
                                       "; standing by"
                                 : std::string();
    const auto now = std::chrono::steady_clock::now();
    if (what.empty() || (what == logged_ && now - logged_at_ < std::chrono::minutes(1))) return;
    logged_ = what;
    logged_at_ = now;
    if (!problem_.empty())
        spdlog::warn("leader election: {} is not leading: {}", options_.identity, what);
    else
        spdlog::info("leader election: {}", what);
}

void leader_elector::stop_leading(const char* why) {
    leading_ = false;
    spdlog::warn("leader election: {} {}; stopping", options_.identity, why);
    on_stopped_();
}

asio::awaitable<void> leader_elector::step(bool may_take) {
    // A renewal counts from when it was sent: the server wrote it no earlier than that.
    const auto attempt = std::chrono::steady_clock::now();
    const std::uint64_t releases = releases_;
    // Frozen (or starved) past the deadline: stop before anything else runs on a stale belief.
    if (leading_ && attempt >= valid_until_.load())
        stop_leading("let the renew deadline pass without a renewal");
    bool held = co_await try_acquire_or_renew(may_take || leading_);
    // A shared Lease is renewed by several replicas: one that lost the race reads it again.
    if (!held && options_.shared && contended_)
        held = co_await try_acquire_or_renew(may_take || leading_);
    // A renewal that came back after its deadline proves nothing: the timer has stepped down.
    const bool in_time = std::chrono::steady_clock::now() < attempt + options_.renew_deadline;
    if (held && in_time && !stopped_ && releases == releases_) {
        valid_until_ = attempt + options_.renew_deadline;
        watch_deadline(co_await asio::this_coro::executor);
        if (!leading_) {
            leading_ = true;
            spdlog::info("leader election: {} became {} ({}/{})", options_.identity, options_.role,
                         options_.lease_namespace, options_.lease_name);
            on_started_();
        }
    } else if (leading_ && std::chrono::steady_clock::now() >= valid_until_.load()) {
        stop_leading("could not renew the Lease within the renew deadline");
    }
}

asio::awaitable<void> leader_elector::run() {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    while (!stopped_) {
        co_await step(true);
        if (!leading_ && !stopped_) report_waiting();
        timer.expires_after(options_.retry_period);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

asio::awaitable<void> leader_elector::release() {
    ++releases_;
    if (!leading_) co_return;
    leading_ = false;
    on_stopped_();
    const auto& ns = options_.lease_namespace;
    const auto& name = options_.lease_name;
    auto current = co_await kube::get(client_, kube::resources::leases, ns, name);
    auto lease = current ? kube::parse_lease(current.body) : std::nullopt;
    if (!lease || !is_mine(*lease)) co_return;
    // As client-go's ReleaseOnCancel: no holder, a one-second duration.
    lease->holder.clear();
    lease->duration_seconds = 1;
    lease->renew_time = core::format_micro_time(core::wall_now());
    std::string body = kube::lease_body(ns, name, *lease);
    const std::string no_sub;
    auto released =
        co_await kube::update(client_, kube::resources::leases, ns, name, std::move(body), no_sub);
    if (released)
        spdlog::info("leader election: {} released the Lease {}/{}", options_.identity, ns, name);
    else
        spdlog::warn("leader election: releasing the Lease failed: {}", released.status.message);
}

} // namespace hpaplus::controller
