// adapter/api.hpp — what `hpaplus adapter` serves: external.metrics.k8s.io/v1beta1 and
// custom.metrics.k8s.io/v1beta2 (with discovery) answered from the configured Prometheus and
// monitor backends, in the wire format the HPA controller and kubectl read.
#pragma once

#include "metrics/backend_config.hpp"
#include "net/http_message.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <memory>

namespace hpaplus::adapter {

class adapter_api {
  public:
    /// Throws std::runtime_error when a backend's TLS material is unusable (a start-up error).
    adapter_api(boost::asio::any_io_executor executor, const metrics::backends_file& file);
    ~adapter_api();
    adapter_api(const adapter_api&) = delete;
    adapter_api& operator=(const adapter_api&) = delete;

    /// Answers one request: discovery, a metric (its backend is asked), health, or a `Status`
    /// error — 404 for an unknown metric, 503 when the backend is down, 500 when it answers
    /// badly. "No data" is an empty list, as other adapters answer.
    /// Runs on: the executor given to the constructor. Cancellation: none (bounded by the
    /// backend's timeout).
    boost::asio::awaitable<net::http_response> handle(const net::http_request& request);

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace hpaplus::adapter
