// kube/client_options.hpp — the API client's limits and timeouts (a light header: command-line
// parsing and option structs include it without the client).
#pragma once

#include <chrono>
#include <cstddef>

namespace hpaplus::kube {

struct client_options {
    std::chrono::milliseconds request_timeout{30000};
    std::chrono::milliseconds connect_timeout{10000};
    double qps = 50;     ///< sustained requests per second (client-side limit)
    int burst = 100;     ///< bucket size
    int max_retries = 3; ///< for connection failures, 5xx on GET, and 429
    std::chrono::milliseconds backoff_base{200};
    std::chrono::milliseconds max_retry_after{10000};
    std::size_t max_idle_connections = 16;
    /// Connections open at once (idle ones included, watches not); a request waits for one.
    /// Without a cap a burst of N concurrent requests opens N connections and closes most again.
    std::size_t max_connections = 16;
    std::size_t max_body_bytes = 256u << 20;
};

} // namespace hpaplus::kube
