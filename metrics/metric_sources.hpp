// metrics/metric_sources.hpp — every metric backend of the controller, and the reading of one
// autoscaler's metrics from them: all metrics of the object at once, so one slow backend delays
// only its own metrics.
#pragma once

#include "kube/api_client.hpp"
#include "metrics/backend_config.hpp"
#include "metrics/http_backend.hpp"
#include "metrics/shared_pod_metrics.hpp"
#include "policy/metric_evaluation.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hpaplus::metrics {

/// One backend as /metrics shows it.
struct backend_summary {
    std::string name; ///< the configured name; "metricsAPI" for the cluster's metrics APIs
    std::string type; ///< metricsAPI | prometheus | monitor
    backend_stats stats;
};

class metric_sources {
  public:
    /// `cluster` serves metrics with no backend and `metricsAPI` backends; the objects of a
    /// namespace share one PodMetrics read per `pod_metrics_window` (shared_pod_metrics; 0 = a
    /// read per object), and with `exchange` the reads of the other lanes too. Throws
    /// std::runtime_error when a backend's TLS material is unusable (a start-up error).
    metric_sources(boost::asio::any_io_executor executor, kube::api_client& cluster,
                   const backends_file& file = {},
                   std::chrono::milliseconds pod_metrics_window = std::chrono::milliseconds(0),
                   std::shared_ptr<pod_metrics_exchange> exchange = nullptr);
    ~metric_sources();
    metric_sources(const metric_sources&) = delete;
    metric_sources& operator=(const metric_sources&) = delete;

    /// One reading per entry of `hpa.spec.metrics`, in order, fetched concurrently.
    /// `pod_selector` is the target's selector; `pods` its cached pods (for `{{pods}}`).
    /// `pod_metrics_read` (kept by the object from one call to the next) names the shared
    /// PodMetrics read it was last answered from, which it is not given again; a call that reads
    /// pod metrics sets it to the read that answered (shared_pod_metrics::read's `after_read`).
    /// `parsed_selector`: `pod_selector` parsed, when the caller keeps it (null: parsed here).
    /// Runs on: the executor given to the constructor. Cancellation: none (bounded by the
    /// request and backend timeouts).
    boost::asio::awaitable<std::vector<policy::metric_reading>>
    read(const policy::autoscaler& hpa, const std::string& target_name,
         const std::string& pod_selector, const std::vector<const policy::pod_info*>& pods,
         std::uint64_t& pod_metrics_read,
         std::shared_ptr<const core::label_selector> parsed_selector = nullptr);

    /// PodMetrics lists sent to the API server.
    std::uint64_t pod_metrics_lists() const;

    /// The prometheus or monitor backend named `name`, or null.
    http_backend* backend(const std::string& name) const;
    /// Where this lane's PodMetrics lists are decoded (for reads outside `read`, a VPAPlus's).
    pod_metrics_pool& list_pool();
    /// Every backend's counts: the metrics APIs first (every read an object made from them, a
    /// shared PodMetrics list once per object it answered), then each prometheus and monitor
    /// backend in the order of the file. Call on the executor.
    std::vector<backend_summary> backend_summaries() const;

    struct impl; // the fetch coroutines keep it alive while they run

  private:
    std::shared_ptr<impl> impl_;
};

} // namespace hpaplus::metrics
