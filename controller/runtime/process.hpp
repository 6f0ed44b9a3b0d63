// controller/runtime/process.hpp — the running controller: API client, manager, telemetry,
// ops endpoint and leader election on one io_context, with start-up and graceful shutdown. Used
// by `hpaplus controller` and `hpaplus demo`.
#pragma once

#include "controller/runtime/options.hpp"
#include "kube/config.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace hpaplus::controller {

class manager;
class telemetry;

class controller_process {
  public:
    /// Throws std::runtime_error / std::system_error on start-up failures (TLS material, a taken
    /// ops port).
    controller_process(boost::asio::io_context& io, kube::cluster_config config,
                       controller_options options);
    ~controller_process();

    /// Syncs the caches, then campaigns for the Lease (or acts at once without election).
    /// `on_exit(code)` is called once the process is done: 1 when start-up failed, 0 after
    /// shutdown().
    void start(std::function<void(int)> on_exit);
    /// Stops acting, lets in-flight reconciles finish (shutdown_grace), releases the Lease.
    void shutdown();

    manager& objects();
    telemetry& metrics();
    bool leading() const;
    /// API requests sent so far (every attempt; watches not counted). Read on the io_context.
    std::uint64_t api_requests() const;
    /// PodMetrics lists sent so far (metrics/shared_pod_metrics). Read on the io_context.
    std::uint64_t pod_metrics_lists() const;
    /// The executor of every thread the controller runs on: the main one, then each lane's.
    std::vector<boost::asio::any_io_executor> executors() const;
    std::string ops_url() const; ///< "" when the ops endpoint is off
    /// The pod admission webhook (https://ADDR:PORT/mutate-pods), "" when not served.
    std::string webhook_url() const;

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace hpaplus::controller
