// controller/cronhpa/worker.cpp — CronHPA workers: when to wake.
#include "controller/cronhpa/worker.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace hpaplus::controller {
namespace {

struct cronhpa_slot : worker_slot {
    using worker_slot::worker_slot;
    cron::run_memory memory;
};

} // namespace

std::shared_ptr<worker_slot> cronhpa_rules::make(boost::asio::any_io_executor ex,
                                                 const std::string& ns, const std::string& name) {
    return std::make_shared<cronhpa_slot>(std::move(ex), ns, name);
}

boost::asio::awaitable<pass_result> cronhpa_rules::pass(worker_slot& slot) {
    auto& w = static_cast<cronhpa_slot&>(slot);
    const cron_outcome outcome = co_await run_cronhpa(env_, w.ns, w.name, w.memory);
    if (!outcome.exists) co_return pass_result{false, false, {}};
    // Held while the caches are behind: tried again soon (a due job stays due until it runs).
    if (outcome.held)
        co_return pass_result{
            true, false, std::chrono::steady_clock::now() + std::chrono::milliseconds(500), false};
    if (outcome.error) spdlog::warn("{}: {}", w.key, *outcome.error);
    const auto now = std::chrono::steady_clock::now();
    auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(env_.options.cron_max_sleep);
    if (outcome.wake) {
        // Fire times are whole seconds; a few ms past one makes sure it is due on waking.
        const auto until = *outcome.wake - env_.options.wall_clock() + std::chrono::milliseconds(5);
        delay =
            std::min(delay, std::max(std::chrono::milliseconds(0),
                                     std::chrono::duration_cast<std::chrono::milliseconds>(until)));
    }
    co_return pass_result{true, outcome.error.has_value(), now + delay};
}

std::chrono::steady_clock::duration cronhpa_rules::after_failure(const worker_slot&) {
    return env_.options.cron_max_sleep;
}

} // namespace hpaplus::controller
