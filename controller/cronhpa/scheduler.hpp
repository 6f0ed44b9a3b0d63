// controller/cronhpa/scheduler.hpp — one worker coroutine per CronHPA. A worker sleeps until the
// next fire time of its jobs (at most --cron-max-sleep, so a wall-clock step costs little), runs
// what is due (cron_runner.hpp), and is woken at once when its spec changes. When the job in
// force of a CronHPA changes, the HPAPlus it holds a floor on is told (`floor_changed`).
#pragma once

#include "controller/cronhpa/runner.hpp"
#include "controller/runtime/worker_set.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>

namespace hpaplus::controller {

class cron_scheduler {
  public:
    /// Called with a CronHPA's namespace and target when the floor it holds may have changed.
    using floor_handler =
        std::function<void(const std::string& ns, const policy::object_reference& target)>;

    cron_scheduler(cron_env env, floor_handler floor_changed);
    ~cron_scheduler();
    cron_scheduler(const cron_scheduler&) = delete;
    cron_scheduler& operator=(const cron_scheduler&) = delete;

    /// Spawns a worker for every cached CronHPA and follows changes. `running` counts live
    /// workers (shared with the manager's drain).
    void start(boost::asio::any_io_executor ex, std::size_t& running);
    void stop();
    /// The CronHPA informer's change handler.
    void on_change(const char* type, const kube::object_cptr& object,
                   const kube::object_cptr& previous);
    std::size_t worker_count() const { return workers_.size(); }
    std::uint64_t runs() const { return runs_; }

  private:
    struct worker;
    boost::asio::awaitable<void> run_worker(std::shared_ptr<worker_slot> slot);

    cron_env env_;
    floor_handler floor_changed_;
    worker_set workers_;
    std::uint64_t runs_ = 0;
};

} // namespace hpaplus::controller
