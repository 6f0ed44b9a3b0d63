// controller/runtime/telemetry.hpp — the controller's Prometheus metrics (prometheus-cpp registry,
// text exposition): reconciles and errors per object, reconcile duration, desired and current
// replicas per object, metric fetch latency per backend, API requests by verb and code, workers,
// reconciles and errors of every kind (HPAPlus, CronHPA, VPAPlus), leadership, held shards.
// prometheus-cpp stays out of this header.
#pragma once

#include "controller/hpaplus/worker.hpp"
#include "controller/runtime/workers.hpp"

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
        explicit recorder(telemetry& owner);
        std::unique_ptr<series> series_;
    };
    /// A recorder for one lane; it must not outlive this.
    std::unique_ptr<recorder> new_recorder();

    /// The workers, passes and errors of every kind (at scrape time).
    void observe_pools(const std::vector<pool_summary>& pools);
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
