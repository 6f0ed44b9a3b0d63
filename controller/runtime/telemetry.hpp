// controller/runtime/telemetry.hpp — the controller's Prometheus metrics (prometheus-cpp registry,
// text exposition): reconciles and errors per object, reconcile duration, desired and current
// replicas per object, metric fetch latency per backend, API requests by verb and code, workers,
// reconciles and errors of every kind (HPAPlus, CronHPA, VPAPlus), leadership, held shards. prometheus-cpp
// stays out of this header.
#pragma once

#include "controller/hpaplus/worker.hpp"
#include "controller/runtime/workers.hpp"

#include <memory>
#include <string>
#include <vector>

namespace hpaplus::controller {

class telemetry : public reconcile_observer {
  public:
    telemetry();
    ~telemetry() override;

    void reconciled(const std::string& kind, const std::string& ns, const std::string& name,
                    const reconcile_outcome& outcome, std::chrono::nanoseconds took) override;
    void forgotten(const std::string& kind, const std::string& ns,
                   const std::string& name) override;
    void api_request(const std::string& method, int http_status);
    /// Reads the worker pools of every kind: their workers, passes and errors (at scrape time).
    void observe_pools(const std::vector<const worker_pool*>& pools);
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
