// metrics/shared_pod_metrics.hpp — the PodMetrics reads of many autoscalers made one. Every object
// of a namespace that needs its pods' metrics within `window` of the namespace's last read is
// served from that read (the namespace's whole PodMetricsList, filtered here by the object's
// selector, as the API server would have filtered it), and objects asking while a read is on its
// way wait for it instead of sending their own. The metrics server refreshes a pod's sample once
// per resolution (15 s), so within a 1 s window each object gets the samples it would have been
// sent itself. A window of 0 restores one read per object, with its selector, as upstream.
#pragma once

#include "core/label_selector.hpp"
#include "kube/api_client.hpp"
#include "metrics/metrics_api.hpp"
#include "metrics/pod_metrics_exchange.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::metrics {

class shared_pod_metrics {
  public:
    /// With `exchange` (several lanes), finished reads are shared with the other lanes' objects.
    shared_pod_metrics(boost::asio::any_io_executor executor, kube::api_client& cluster,
                       std::chrono::milliseconds window,
                       std::shared_ptr<pod_metrics_exchange> exchange = nullptr);
    ~shared_pod_metrics();
    shared_pod_metrics(const shared_pod_metrics&) = delete;
    shared_pod_metrics& operator=(const shared_pod_metrics&) = delete;

    /// Where its lists are decoded; for the other reads of this lane (a VPAPlus's).
    pod_metrics_pool& pool();

    /// The PodMetrics of the pods `pod_selector` selects in `ns` (an error in `error`, as
    /// list_pod_metrics says it). With `pod_names` (the pods the caller selected from its cache;
    /// they must outlive the call), a shared read returns only those of them: the caller's decision
    /// ignores the metrics of pods it does not know, and a lookup by name spares matching the
    /// selector against every pod of the namespace.
    /// A caller passes the answer's `shared_read` it got last time as `after_read`: a read it had
    /// already is not shared with it again (an object reconciling more often than the window would
    /// otherwise get every other sample twice). `parsed_selector`: `pod_selector` parsed, when the
    /// caller keeps it (null: parsed here).
    /// Runs on: the executor. Cancellation: none (bounded by the request timeouts).
    boost::asio::awaitable<pod_metrics_answer>
    read(std::string ns, std::string pod_selector, std::vector<std::string_view> pod_names = {},
         std::uint64_t after_read = 0,
         std::shared_ptr<const core::label_selector> parsed_selector = nullptr);

    /// PodMetrics lists sent to the API server (for tests and the benchmark).
    std::uint64_t lists_sent() const;
    /// Namespaces whose last read is held, in flight or answered (for tests).
    std::size_t namespaces_held() const;

    struct impl; // the read coroutines keep it alive while they run

  private:
    std::shared_ptr<impl> impl_;
};

} // namespace hpaplus::metrics
