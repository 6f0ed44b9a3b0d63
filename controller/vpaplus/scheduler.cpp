// controller/vpaplus/scheduler.cpp — VPAPlus workers and their wake-ups.
#include "controller/vpaplus/scheduler.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace hpaplus::controller {

namespace asio = boost::asio;

struct vertical_scheduler::worker : worker_slot {
    using worker_slot::worker_slot;
    vertical::vertical_memory memory;
};

vertical_scheduler::vertical_scheduler(vertical::vertical_env env)
    : env_(env), workers_(
                     "VPAPlus",
                     [](asio::any_io_executor ex, const std::string& ns, const std::string& name) {
                         return std::make_shared<worker>(std::move(ex), ns, name);
                     },
                     [this](std::shared_ptr<worker_slot> w) { return run_worker(std::move(w)); }) {}

vertical_scheduler::~vertical_scheduler() = default;

void vertical_scheduler::start(asio::any_io_executor ex, std::size_t& running) {
    workers_.start(std::move(ex), running, *env_.vpapluses.items());
}

void vertical_scheduler::stop() {
    workers_.stop();
}

asio::awaitable<void> vertical_scheduler::run_worker(std::shared_ptr<worker_slot> slot) {
    const auto w = std::static_pointer_cast<worker>(slot);
    while (!w->stopped) {
        w->wake = false;
        vertical::vertical_outcome outcome;
        try {
            outcome = co_await vertical::run_vpaplus(env_, w->ns, w->name, w->memory);
        } catch (const std::exception& e) {
            spdlog::error("{}: VPAPlus pass failed unexpectedly: {}", w->key, e.what());
        }
        if (!outcome.exists) break;
        ++passes_;
        if (outcome.error) spdlog::warn("{}: {}", w->key, *outcome.error);
        if (w->wake || w->stopped) continue;
        w->timer.expires_after(env_.options.interval);
        boost::system::error_code ec;
        co_await w->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

} // namespace hpaplus::controller
