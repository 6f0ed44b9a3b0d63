// metrics/metrics_api.hpp — the Kubernetes metrics APIs as metric readings: metrics.k8s.io for
// Resource and ContainerResource, custom.metrics.k8s.io/v1beta2 for Pods and Object,
// external.metrics.k8s.io/v1beta1 for External, with upstream's error texts.
#pragma once

#include "core/kubernetes.hpp"
#include "kinds/pod_metrics.hpp"
#include "kube/api_client.hpp"
#include "policy/metric_evaluation.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::metrics {

/// The PodMetrics of the target's pods (one list serves every resource metric of an object).
struct pod_metrics_answer {
    /// The pods' metrics: views into `list`, which may hold more (a namespace's shared list).
    std::vector<const core::pod_metrics*> items;
    std::shared_ptr<const std::vector<core::pod_metrics>> list;
    std::string error;
    /// Which shared read answered (shared_pod_metrics numbers them from 1); 0: a read of its own.
    std::uint64_t shared_read = 0;
};

/// Where PodMetrics lists are decoded, owned by one lane's metric sources (Envoy-style per-thread
/// state its owner holds): the lists whose last reader is done, kept for the next list to be
/// decoded into (their pods' strings keep their storage, so a steady read allocates nothing for
/// the pods' names), and the decoder's scratch. Reads overlap (a shared read is held while its
/// readers decide), so a few dozen lists are kept, bounded by the pods they hold. A list may be
/// released on another lane's thread (reads are shared between lanes): giving it back is locked;
/// one released after the pool is gone is freed.
class pod_metrics_pool : public std::enable_shared_from_this<pod_metrics_pool> {
  public:
    using list = std::vector<core::pod_metrics>;
    /// A list to decode into: a spare one, else a new one; given back when its last reader drops
    /// it.
    std::shared_ptr<list> take();
    /// The decoder's scratch: for the owner's thread only.
    kinds::pod_metrics_scratch& scratch() { return scratch_; }
    std::size_t spare_lists() const;

  private:
    void give_back(list* l);
    static constexpr std::size_t max_lists = 64;
    static constexpr std::size_t max_pods = 4096;
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<list>> spares_;
    std::size_t spare_pods_ = 0; ///< the capacity of `spares_`, in pods
    kinds::pod_metrics_scratch scratch_;
};

/// Runs on: the client's executor, the thread `pool` belongs to. Cancellation: none (bounded by
/// the request timeouts).
boost::asio::awaitable<pod_metrics_answer> list_pod_metrics(kube::api_client& client,
                                                            std::string ns,
                                                            std::string pod_selector,
                                                            pod_metrics_pool& pool);

/// A Resource or ContainerResource reading from the PodMetrics list.
void set_resource_reading(const pod_metrics_answer& answer, const policy::metric_spec& spec,
                          policy::metric_reading& r);

/// A Pods, Object or External reading from the custom or external metrics API.
/// Runs on: the client's executor. Cancellation: none (bounded by the request timeouts).
boost::asio::awaitable<policy::metric_reading> read_custom_or_external(kube::api_client& client,
                                                                       std::string ns,
                                                                       std::string pod_selector,
                                                                       policy::metric_spec spec);

/// The selector string for a metric's `selector` (empty when none).
std::string selector_text(const std::optional<core::label_selector_spec>& spec);

} // namespace hpaplus::metrics
