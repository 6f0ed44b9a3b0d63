// controller/runtime/telemetry.hpp — the controller's Prometheus metrics (prometheus-cpp registry,
// text exposition): reconciles and errors per object, reconcile duration, desired and current
// replicas per object, metric fetch latency per backend, API requests by verb and code, workers,
// leadership. prometheus-cpp stays out of this header.
#pragma once

#include "controller/runtime/manager.hpp"

#include <memory>
#include <string>

namespace hpaplus::controller {

class telemetry : public reconcile_observer {
  public:
    telemetry();
    ~telemetry() override;

    void reconciled(const std::string& ns, const std::string& name,
                    const reconcile_outcome& outcome, std::chrono::nanoseconds took) override;
    void forgotten(const std::string& ns, const std::string& name) override;
    void api_request(const std::string& method, int http_status);
    void set_workers(std::size_t count);
    void set_leader(bool leading);

    /// The Prometheus text exposition of every metric.
    std::string exposition() const;

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace hpaplus::controller
