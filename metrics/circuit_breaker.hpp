// metrics/circuit_breaker.hpp — per-backend circuit breaker: after `failure_threshold` failures in
// a row the backend is not asked for `open_for`; then one probe request decides whether it is
// closed again. Keeps a dead backend from costing every reconcile a full timeout. Pure.
#pragma once

#include "metrics/backend_config.hpp"

#include <chrono>

namespace hpaplus::metrics {

class circuit_breaker {
  public:
    using clock = std::chrono::steady_clock;
    enum class state { closed, open, half_open };

    explicit circuit_breaker(circuit_breaker_options options) : options_(options) {}

    /// Whether a request may be sent now. Open past `open_for`: lets exactly one probe through
    /// (half-open) until its outcome is recorded.
    bool allow(clock::time_point now);
    void record_success();
    void record_failure(clock::time_point now);

    state current() const { return state_; }
    int consecutive_failures() const { return failures_; }
    /// When an open circuit lets the next probe through.
    clock::time_point retry_at() const { return opened_at_ + options_.open_for; }

  private:
    circuit_breaker_options options_;
    state state_ = state::closed;
    int failures_ = 0;
    clock::time_point opened_at_{};
};

} // namespace hpaplus::metrics
