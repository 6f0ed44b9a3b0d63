// metrics/http_backend.hpp — one backend reached over HTTP (Prometheus, a monitor; what each
// type asks and answers is its file in metrics/backends/): its own connection pool and
// timeout, a circuit breaker, and coalescing — identical requests in flight, or answered within
// the backend's `coalesceSeconds`, share one request.
#pragma once

#include "metrics/backend_answer.hpp"
#include "metrics/backend_config.hpp"
#include "metrics/circuit_breaker.hpp"
#include "metrics/query_template.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hpaplus::metrics {

/// Request durations in the buckets /metrics shows them in (seconds, Prometheus's `le`):
/// counts per bucket, not cumulative. Nothing allocates.
struct fetch_latency {
    static constexpr std::array<double, 15> bounds = {
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
    std::array<std::uint64_t, bounds.size() + 1> counts{}; ///< the last: above every bound
    std::uint64_t count = 0;
    double sum = 0; ///< seconds
    void observe(std::chrono::nanoseconds took);
    void add(const fetch_latency& other);
};

struct backend_stats {
    std::uint64_t sent = 0;            ///< requests that went to the backend
    std::uint64_t coalesced = 0;       ///< answered by a request in flight or a fresh answer
    std::uint64_t short_circuited = 0; ///< refused at once because the circuit was open
    std::uint64_t failed = 0;          ///< unavailable or unreadable answers
    std::uint64_t unavailable = 0;     ///< of `failed`: unreachable, timed out, 5xx
    std::uint64_t bad_answers = 0;     ///< of `failed`: refused the query, or unreadable
    fetch_latency latency;             ///< of the requests sent, until their answer
    circuit_breaker::state breaker = circuit_breaker::state::closed; ///< as stats() was read
    void add(const backend_stats& other);
};

class http_backend {
  public:
    /// Throws std::runtime_error when the backend's TLS material is unusable (a start-up error).
    http_backend(boost::asio::any_io_executor executor, backend_config config);
    ~http_backend();
    http_backend(const http_backend&) = delete;
    http_backend& operator=(const http_backend&) = delete;

    const backend_config& config() const;
    /// Whether its type answers range queries (query_range): a history can be read from it.
    bool has_history() const;

    /// Runs `query` (already expanded; for a monitor, `values` fill the request templates, with
    /// `{{query}}` added). Errors name the backend.
    /// Runs on: the executor given to the constructor. Cancellation: none (bounded by the
    /// backend's timeout).
    boost::asio::awaitable<backend_answer> fetch(std::string query, template_values values);

    /// A range query (backends with history only; Prometheus: `/api/v1/query_range`) from
    /// `start` to `end` every `step`. A one-off read of history: not coalesced, not counted by the
    /// circuit breaker. Errors name the backend. Runs on: the executor. Cancellation: none (bounded
    /// by the backend's timeout).
    boost::asio::awaitable<range_answer> query_range(std::string query, core::time_point start,
                                                     core::time_point end,
                                                     std::chrono::seconds step);

    backend_stats stats() const;
    /// Requests in flight and answers kept for coalescing (for tests).
    std::size_t remembered() const;

  private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

using http_backends = std::vector<std::unique_ptr<http_backend>>;

/// One http_backend per prometheus and monitor backend of `file` (metricsAPI backends are the
/// cluster's own client). Throws like the constructor.
http_backends make_http_backends(boost::asio::any_io_executor executor, const backends_file& file);

/// The backend named `name`, or null.
http_backend* find_backend(const http_backends& backends, const std::string& name);

} // namespace hpaplus::metrics
