// controller/vpaplus/worker.hpp — the VPAPlus worker rules: a pass of the vertical module
// (controller/vpaplus/runner.hpp) every --vertical-interval.
#pragma once

#include "controller/runtime/workers.hpp"
#include "controller/vpaplus/runner.hpp"

namespace hpaplus::controller {

class vpaplus_rules : public worker_rules {
  public:
    explicit vpaplus_rules(vertical_env env) : env_(std::move(env)) {}

    std::shared_ptr<worker_slot> make(boost::asio::any_io_executor ex, const std::string& ns,
                                      const std::string& name) override;
    boost::asio::awaitable<pass_result> pass(worker_slot& w) override;
    std::chrono::steady_clock::duration after_failure(const worker_slot& w) override;
    /// The updater's interval: a spec change waits for it, as upstream's updater loop does, so
    /// that one interval's eviction and resize budget is never spent twice.
    std::chrono::steady_clock::duration min_spacing(const worker_slot& w) override;

  private:
    vertical_env env_;
};

} // namespace hpaplus::controller
