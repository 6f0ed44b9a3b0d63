// controller/vpaplus/worker.cpp — VPAPlus workers.
#include "controller/vpaplus/worker.hpp"

#include <spdlog/spdlog.h>

namespace hpaplus::controller {
namespace {

struct vpaplus_slot : worker_slot {
    using worker_slot::worker_slot;
    vertical_memory memory;
};

std::chrono::steady_clock::duration interval_of(const vertical_env& env) {
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(env.options.interval);
}

} // namespace

std::shared_ptr<worker_slot> vpaplus_rules::make(boost::asio::any_io_executor ex,
                                                 const std::string& ns, const std::string& name) {
    return std::make_shared<vpaplus_slot>(std::move(ex), ns, name);
}

boost::asio::awaitable<pass_result> vpaplus_rules::pass(worker_slot& slot) {
    auto& w = static_cast<vpaplus_slot&>(slot);
    const auto outcome = co_await run_vpaplus(env_, w.ns, w.name, w.memory);
    if (!outcome.exists) co_return pass_result{false, false, {}};
    if (outcome.error) spdlog::warn("{}: {}", w.key, *outcome.error);
    co_return pass_result{true, outcome.error.has_value(),
                          std::chrono::steady_clock::now() + interval_of(env_)};
}

std::chrono::steady_clock::duration vpaplus_rules::after_failure(const worker_slot&) {
    return interval_of(env_);
}

std::chrono::steady_clock::duration vpaplus_rules::min_spacing(const worker_slot&) {
    return interval_of(env_);
}

} // namespace hpaplus::controller
