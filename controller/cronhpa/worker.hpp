// controller/cronhpa/worker.hpp — the CronHPA worker rules: a worker sleeps until the next fire
// time of its jobs (at most --cron-max-sleep, so a wall-clock step costs little) and runs what is
// due (runner.hpp).
#pragma once

#include "controller/cronhpa/runner.hpp"
#include "controller/runtime/workers.hpp"

namespace hpaplus::controller {

class cronhpa_rules : public worker_rules {
  public:
    explicit cronhpa_rules(cron_env env) : env_(env) {}

    std::shared_ptr<worker_slot> make(boost::asio::any_io_executor ex, const std::string& ns,
                                      const std::string& name) override;
    boost::asio::awaitable<pass_result> pass(worker_slot& w) override;
    std::chrono::steady_clock::duration after_failure(const worker_slot& w) override;

  private:
    cron_env env_;
};

} // namespace hpaplus::controller
