// controller/runtime/telemetry.hpp — the controller's Prometheus metrics (prometheus-cpp registry,
// text exposition; docs/metrics.md lists every family): reconciles, errors, replicas, bounds,
// per-metric values and conditions per object; kube-controller-manager's HPA controller families
// for native HPAs; every metric backend's requests, errors, latency and circuit breaker; API
// requests; workers and passes of every kind; leadership and shards; build and process.
// prometheus-cpp stays out of this header.
#pragma once

#include "controller/hpaplus/worker.hpp"
#include "controller/runtime/workers.hpp"
#include "metrics/metric_sources.hpp"

#include <memory>
#include <string>
#include <vector>

namespace hpaplus::controller {

class telemetry {
  public:
    telemetry();
    ~telemetry();

    /// Records one lane's reconciles and API requests. Each lane has its own (it keeps handles to
    /// the series of the lane's objects), so no two threads share one; the series themselves are
    /// the registry's, which is thread-safe.
    class recorder final : public reconcile_observer {
      public:
        ~recorder() override;
        void reconciled(const std::string& kind, const std::string& ns, const std::string& name,
                        const reconcile_outcome& outcome, std::chrono::nanoseconds took) override;
        void forgotten(const std::string& kind, const std::string& ns,
                       const std::string& name) override;
        void api_request(const std::string& method, int http_status);

      private:
        friend class telemetry;
        struct series;
        struct object_series;
        explicit recorder(telemetry& owner);
        void observe_metrics(object_series& s, const std::string& kind, const std::string& ns,
                             const std::string& name, const pass_report& report);
        void observe_conditions(object_series& s, const std::string& kind, const std::string& ns,
                                const std::string& name, const pass_report& report);
        std::unique_ptr<series> series_;
    };
    /// A recorder for one lane; it must not outlive this.
    std::unique_ptr<recorder> new_recorder();

    /// The workers, passes and errors of every kind (at scrape time).
    void observe_pools(const std::vector<pool_summary>& pools);
    /// Every metric backend's counts, the lanes' added up (at scrape time).
    void observe_backends(const std::vector<metrics::backend_summary>& backends);
    void set_leader(bool leading);
    /// With --shards: whether each shard is held here (`held[i]`), and the live replicas seen.
    void set_shards(const std::vector<bool>& held, std::size_t members);

    /// The Prometheus text exposition of every metric.
    std::string exposition() const;

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace hpaplus::controller
