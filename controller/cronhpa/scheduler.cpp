// controller/cronhpa/scheduler.cpp — CronHPA workers and their wake-ups.
#include "controller/cronhpa/scheduler.hpp"

#include "controller/coordination.hpp"
#include "controller/runtime/manager.hpp"
#include "controller/runtime/worker_slot.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

namespace hpaplus::controller {
namespace {

namespace asio = boost::asio;

} // namespace

struct cron_scheduler::worker : worker_slot {
    using worker_slot::worker_slot;
    cron_memory memory;
};

cron_scheduler::cron_scheduler(cron_env env, floor_handler floor_changed)
    : env_(env), floor_changed_(std::move(floor_changed)),
      workers_(
          "CronHPA",
          [](asio::any_io_executor ex, const std::string& ns, const std::string& name) {
              return std::make_shared<worker>(std::move(ex), ns, name);
          },
          [this](std::shared_ptr<worker_slot> w) { return run_worker(std::move(w)); }) {}

cron_scheduler::~cron_scheduler() = default;

void cron_scheduler::start(asio::any_io_executor ex, std::size_t& running) {
    workers_.start(std::move(ex), running, *env_.cronhpas.items());
}

void cron_scheduler::stop() {
    workers_.stop();
}

void cron_scheduler::on_change(const char* type, const kube::object_cptr& object,
                               const kube::object_cptr& previous) {
    if (!workers_.acting()) return;
    workers_.on_change(type, object, previous);
    // A floor that appears, moves or goes: the HPAPlus it is aimed at decides again now.
    const bool deleted = std::string_view(type) == "DELETED";
    for (const auto& target : floor_changes(previous, deleted ? nullptr : object))
        floor_changed_(object->namespace_, target);
}

asio::awaitable<void> cron_scheduler::run_worker(std::shared_ptr<worker_slot> slot) {
    const auto w = std::static_pointer_cast<worker>(slot);
    while (!w->stopped) {
        w->wake = false;
        cron_outcome outcome;
        try {
            outcome = co_await run_cronhpa(env_, w->ns, w->name, w->memory);
        } catch (const std::exception& e) {
            spdlog::error("{}: CronHPA run failed unexpectedly: {}", w->key, e.what());
        }
        if (!outcome.exists) break;
        ++runs_;
        if (outcome.error) spdlog::warn("{}: {}", w->key, *outcome.error);
        if (w->wake) continue; // changed while we ran
        auto delay =
            std::chrono::duration_cast<std::chrono::milliseconds>(env_.options.cron_max_sleep);
        if (outcome.wake) {
            // Fire times are whole seconds; a few ms past one makes sure it is due on waking.
            const auto until =
                *outcome.wake - std::chrono::system_clock::now() + std::chrono::milliseconds(5);
            delay = std::min(
                delay, std::max(std::chrono::milliseconds(0),
                                std::chrono::duration_cast<std::chrono::milliseconds>(until)));
        }
        w->timer.expires_after(delay);
        boost::system::error_code ec;
        co_await w->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

} // namespace hpaplus::controller
