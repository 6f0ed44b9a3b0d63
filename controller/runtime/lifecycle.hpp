// controller/runtime/lifecycle.hpp — what every long-running `hpaplus` process does the same way:
// its view of the environment, and stopping on SIGINT or SIGTERM (its logs: logging.hpp).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

namespace boost::asio {
class io_context;
}

namespace hpaplus::controller {

/// The process environment as a map (for kube::load_config).
std::map<std::string, std::string> environment();

/// Calls `on_signal` (on the io_context's thread) the first time SIGINT or SIGTERM arrives;
/// cancel() or destruction stops waiting, so a process that finished on its own can exit.
class stop_signal {
  public:
    stop_signal(boost::asio::io_context& io, std::function<void()> on_signal);
    ~stop_signal();
    stop_signal(const stop_signal&) = delete;
    stop_signal& operator=(const stop_signal&) = delete;
    void cancel();

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace hpaplus::controller
