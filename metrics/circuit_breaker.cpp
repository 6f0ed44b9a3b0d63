// metrics/circuit_breaker.cpp — the breaker's state machine.
#include "metrics/circuit_breaker.hpp"

namespace hpaplus::metrics {

bool circuit_breaker::allow(clock::time_point now) {
    switch (state_) {
    case state::closed:
        return true;
    case state::half_open:
        return false; // the probe is still out
    case state::open:
        if (now < retry_at()) return false;
        state_ = state::half_open;
        return true;
    }
    return true;
}

void circuit_breaker::record_success() {
    state_ = state::closed;
    failures_ = 0;
}

void circuit_breaker::record_failure(clock::time_point now) {
    ++failures_;
    if (state_ == state::half_open || failures_ >= options_.failure_threshold) {
        state_ = state::open;
        opened_at_ = now;
    }
}

} // namespace hpaplus::metrics
