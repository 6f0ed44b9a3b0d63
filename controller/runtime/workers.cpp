// controller/runtime/workers.cpp — spawning, waking, stopping and running per-object workers.
#include "controller/runtime/workers.hpp"

#include <optional>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace hpaplus::controller {

namespace asio = boost::asio;

void log_failure(const std::string& what, std::exception_ptr e) {
    if (!e) return;
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& x) {
        spdlog::error("{}: {}", what, x.what());
    }
}

worker_pool::worker_pool(std::string kind, worker_rules& rules, std::string lane)
    : kind_(std::move(kind)), lane_(std::move(lane)), rules_(rules) {}

worker_pool::~worker_pool() {
    stop();
}

void worker_pool::start(asio::any_io_executor ex, std::atomic<std::size_t>& running,
                        const kube::snapshot& objects) {
    if (acting_) return;
    executor_ = std::move(ex);
    running_ = &running;
    acting_ = true;
    for (const auto& [key, object] : objects)
        if (wanted(*object)) spawn(object->namespace_(), object->name(), true);
    spdlog::info("{}: acting on {} {} objects", lane_, workers_.size(), kind_);
}

void worker_pool::resync(const kube::snapshot& objects) {
    if (!acting_) return;
    std::vector<std::string> unowned;
    for (const auto& [key, w] : workers_)
        if (owns_ && !owns_(key)) unowned.push_back(key);
    for (const auto& key : unowned)
        forget(key);
    const std::size_t before = workers_.size();
    for (const auto& [key, object] : objects)
        if (!workers_.count(key) && wanted(*object))
            spawn(object->namespace_(), object->name(), true);
    if (!unowned.empty() || workers_.size() != before)
        spdlog::info("{}: {} objects: {} workers ({} new, {} handed over)", lane_, kind_,
                     workers_.size(), workers_.size() - before, unowned.size());
}

void worker_pool::stop() {
    acting_ = false;
    for (auto& [key, w] : workers_)
        w->stop();
    workers_.clear();
}

void worker_pool::spawn(std::string_view namespace_view, std::string_view name_view, bool listed) {
    const std::string ns(namespace_view), name(name_view);
    std::string key = ns + "/" + name;
    if (!acting_ || workers_.count(key)) return;
    auto w = rules_.make(executor_, ns, name);
    const auto first_delay = rules_.first_delay(*w, listed);
    workers_.emplace(std::move(key), w);
    ++*running_;
    std::atomic<std::size_t>* running = running_;
    asio::co_spawn(executor_, run(w, first_delay),
                   [running, w, kind = kind_](std::exception_ptr e) {
                       --*running;
                       log_failure(w->key + ": " + kind + " worker ended", e);
                   });
}

void worker_pool::forget(const std::string& key) {
    const auto it = workers_.find(key);
    if (it == workers_.end()) return;
    it->second->stop();
    rules_.forgotten(*it->second);
    workers_.erase(it);
}

void worker_pool::poke(std::string_view key) {
    if (const auto it = workers_.find(key); it != workers_.end()) it->second->poke();
}

void worker_pool::poke_aimed_at(std::string_view ns, std::string_view target) {
    const std::string prefix = std::string(ns) + "/";
    for (auto it = workers_.lower_bound(prefix);
         it != workers_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
        if (it->second->target == target) it->second->poke();
    }
}

void worker_pool::on_change(kube::change what, const kube::object_cptr& object,
                            const kube::object_cptr& previous) {
    if (!acting_) return;
    if (what == kube::change::deleted || !wanted(*object)) {
        forget(object->key);
    } else if (!workers_.count(object->key)) {
        spawn(object->namespace_(), object->name(), false);
    } else if (!previous || rules_.wakes(*object, *previous)) {
        workers_.at(object->key)->poke();
    }
}

asio::awaitable<void> worker_pool::run(std::shared_ptr<worker_slot> w,
                                       std::chrono::milliseconds first_delay) {
    auto next = std::chrono::steady_clock::now() + first_delay;
    std::optional<std::chrono::steady_clock::time_point> last_acted; ///< when it ended
    while (!w->stopped) {
        auto now = std::chrono::steady_clock::now();
        if (w->wake) {
            w->wake = false;
            const auto earliest = last_acted ? *last_acted + rules_.min_spacing(*w) : now;
            next = std::min(next, std::max(now, earliest));
        }
        if (next > now) {
            w->timer.expires_at(next);
            boost::system::error_code ec;
            co_await w->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            if (w->stopped) break;
            if (ec) continue; // woken: the next pass is worked out again
            now = std::chrono::steady_clock::now();
            stats_.lateness.record(now - w->timer.expiry());
        }
        pass_result result;
        try {
            result = co_await rules_.pass(*w);
        } catch (const std::exception& e) {
            // A bug, not an expected failure: log it, count it, and keep the object alive.
            ++stats_.failures;
            spdlog::error("{}: {} pass failed unexpectedly: {}", w->key, kind_, e.what());
            result.error = true;
            result.next = std::chrono::steady_clock::now() + rules_.after_failure(*w);
        }
        if (!result.exists) {
            // Deleted. The DELETED event forgets the worker; a pass that found the object gone
            // from the server while the cache still held it forgets it here, so an event for the
            // name (a new object) spawns a worker again.
            if (const auto it = workers_.find(w->key); it != workers_.end() && it->second == w) {
                rules_.forgotten(*w);
                workers_.erase(it);
            }
            break;
        }
        // Its end, not its start: what it changed (a /scale write) was done by then.
        if (result.acted) last_acted = std::chrono::steady_clock::now();
        ++stats_.passes;
        if (result.error) ++stats_.errors;
        next = result.next;
    }
}

} // namespace hpaplus::controller
