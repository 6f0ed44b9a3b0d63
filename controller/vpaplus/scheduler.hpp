// controller/vpaplus/scheduler.hpp — one worker coroutine per VPAPlus: a pass
// (vertical_runner.hpp) every --vertical-interval, at once when its spec changes, cancelled when
// the object is deleted.
#pragma once

#include "controller/runtime/worker_set.hpp"
#include "vertical/runner.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <map>
#include <memory>
#include <string>

namespace hpaplus::controller {

class vertical_scheduler {
  public:
    explicit vertical_scheduler(vertical::vertical_env env);
    ~vertical_scheduler();
    vertical_scheduler(const vertical_scheduler&) = delete;
    vertical_scheduler& operator=(const vertical_scheduler&) = delete;

    /// Spawns a worker for every cached VPAPlus and follows changes. `running` counts live
    /// workers (shared with the manager's drain).
    void start(boost::asio::any_io_executor ex, std::size_t& running);
    void stop();
    /// The VPAPlus informer's change handler.
    void on_change(const char* type, const kube::object_cptr& object,
                   const kube::object_cptr& previous) {
        workers_.on_change(type, object, previous);
    }
    std::size_t worker_count() const { return workers_.size(); }
    std::uint64_t passes() const { return passes_; }

  private:
    struct worker;
    boost::asio::awaitable<void> run_worker(std::shared_ptr<worker_slot> slot);

    vertical::vertical_env env_;
    worker_set workers_;
    std::uint64_t passes_ = 0;
};

} // namespace hpaplus::controller
