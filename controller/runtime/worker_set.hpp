// controller/runtime/worker_set.hpp — the workers of one kind of object (CronHPA, VPAPlus): one
// coroutine per object, spawned when the object appears, poked when its spec (generation) changes,
// stopped when it is deleted. What a worker does is the owner's `run`.
#pragma once

#include "controller/runtime/worker_slot.hpp"
#include "kube/informer.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>

namespace hpaplus::controller {

class worker_set {
  public:
    using make_fn = std::function<std::shared_ptr<worker_slot>(
        boost::asio::any_io_executor, const std::string& ns, const std::string& name)>;
    using run_fn = std::function<boost::asio::awaitable<void>(std::shared_ptr<worker_slot>)>;

    /// `kind` names the workers in logs ("CronHPA").
    worker_set(std::string kind, make_fn make, run_fn run);
    ~worker_set();
    worker_set(const worker_set&) = delete;
    worker_set& operator=(const worker_set&) = delete;

    /// Spawns a worker for every object of `objects`; `running` counts live workers (shared with
    /// the manager's drain).
    void start(boost::asio::any_io_executor ex, std::size_t& running,
               const kube::snapshot& objects);
    void stop();
    /// The informer's change handler.
    void on_change(const char* type, const kube::object_cptr& object,
                   const kube::object_cptr& previous);
    std::size_t size() const { return workers_.size(); }
    bool acting() const { return acting_; }

  private:
    void spawn(const std::string& ns, const std::string& name);

    std::string kind_;
    make_fn make_;
    run_fn run_;
    boost::asio::any_io_executor executor_;
    std::size_t* running_ = nullptr;
    bool acting_ = false;
    std::map<std::string, std::shared_ptr<worker_slot>, std::less<>> workers_;
};

} // namespace hpaplus::controller
