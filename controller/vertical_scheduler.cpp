// controller/vertical_scheduler.cpp — VPAPlus workers and their wake-ups.
#include "controller/vertical_scheduler.hpp"

#include "controller/manager.hpp"
#include "controller/worker_slot.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace hpaplus::controller {

namespace asio = boost::asio;

struct vertical_scheduler::worker : worker_slot {
    using worker_slot::worker_slot;
    vertical_memory memory;
};

vertical_scheduler::vertical_scheduler(vertical_env env) : env_(env) {}

vertical_scheduler::~vertical_scheduler() {
    stop();
}

void vertical_scheduler::start(asio::any_io_executor ex, std::size_t& running) {
    if (acting_) return;
    executor_ = std::move(ex);
    running_ = &running;
    acting_ = true;
    for (const auto& [key, object] : *env_.vpapluses.items())
        spawn(object->namespace_, object->name);
    spdlog::info("running {} VPAPlus objects", workers_.size());
}

void vertical_scheduler::stop() {
    acting_ = false;
    for (auto& [key, w] : workers_)
        w->stop();
    workers_.clear();
}

void vertical_scheduler::spawn(const std::string& ns, const std::string& name) {
    std::string key = ns + "/" + name;
    if (!acting_ || workers_.count(key)) return;
    auto w = std::make_shared<worker>(executor_, ns, name);
    workers_.emplace(std::move(key), w);
    ++*running_;
    std::size_t* running = running_;
    asio::co_spawn(executor_, run_worker(w), [running, w](std::exception_ptr e) {
        --*running;
        log_failure(w->key + ": VPAPlus worker ended", e);
    });
}

void vertical_scheduler::on_change(const char* type, const kube::object_cptr& object,
                                   const kube::object_cptr& previous) {
    if (!acting_) return;
    if (std::string_view(type) == "DELETED") {
        if (const auto it = workers_.find(object->key); it != workers_.end()) {
            it->second->stop();
            workers_.erase(it);
        }
    } else if (!workers_.count(object->key)) {
        spawn(object->namespace_, object->name);
    } else if (!previous || object->generation != previous->generation) {
        workers_.at(object->key)->poke();
    }
}

asio::awaitable<void> vertical_scheduler::run_worker(std::shared_ptr<worker> w) {
    while (!w->stopped) {
        w->wake = false;
        vertical_outcome outcome;
        try {
            outcome = co_await run_vpaplus(env_, w->ns, w->name, w->memory);
        } catch (const std::exception& e) {
            spdlog::error("{}: VPAPlus pass failed unexpectedly: {}", w->key, e.what());
        }
        if (!outcome.exists) break;
        ++passes_;
        if (outcome.error) spdlog::warn("{}: {}", w->key, *outcome.error);
        if (w->wake || w->stopped) continue;
        w->timer.expires_after(env_.options.vertical.interval);
        boost::system::error_code ec;
        co_await w->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

} // namespace hpaplus::controller
