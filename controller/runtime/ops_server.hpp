// controller/runtime/ops_server.hpp — /healthz (the process serves), /readyz (caches synced, Lease
// obtainable), /metrics (Prometheus text format) and /debug/objects/NAMESPACE/NAME (the input an
// object's next pass decides from, as an `evaluate` document) on their own port.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <functional>
#include <memory>
#include <string>

namespace hpaplus::net {
class http_server;
}

namespace hpaplus::controller {

class debug_snapshots;

struct ops_handlers {
    /// "" when ready; otherwise why not (the /readyz body).
    std::function<std::string()> not_ready;
    std::function<std::string()> metrics;
    /// /debug/objects/NAMESPACE/NAME (null: not served).
    debug_snapshots* snapshots = nullptr;
};

class ops_server {
  public:
    /// Binds `address:port` (throws std::system_error when taken: a start-up error).
    ops_server(boost::asio::any_io_executor executor, const std::string& address,
               unsigned short port, ops_handlers handlers);
    ~ops_server();
    void start();
    void stop();
    std::string url() const;
    struct state;

  private:
    std::shared_ptr<state> state_;
    std::unique_ptr<net::http_server> server_;
};

} // namespace hpaplus::controller
