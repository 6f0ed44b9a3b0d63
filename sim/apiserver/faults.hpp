// sim/apiserver/faults.hpp — fault injection for the simulated API server: per-verb/per-resource
// error rates and latency, dropped watches, forced 410s, and the server going away for a while.
// Controlled in-process or over HTTP (`/sim/v1/faults`, see docs/sim.md).
#pragma once

#include "core/outcome.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace hpaplus::sim {

/// One rule: requests whose verb and resource match fail with `error_code` at `error_rate`, and/or
/// are delayed by `latency`.
struct fault_rule {
    std::string verb = "*"; ///< get, list, watch, create, update, patch, delete, or *
    std::string resource =
        "*"; ///< a plural (`pods`, `deployments`, `scale` for the subresource), or *
    double error_rate = 0.0;                     ///< 0..1
    int error_code = 503;                        ///< 429 (with Retry-After), 500, 503, 504
    std::chrono::milliseconds latency{0};        ///< before the request is carried out
    std::chrono::milliseconds answer_latency{0}; ///< after: the answer is held back
};

class fault_injector {
  public:
    fault_injector();

    void add(fault_rule rule) { rules_.push_back(std::move(rule)); }
    void clear() { rules_.clear(); }
    const std::vector<fault_rule>& rules() const { return rules_; }

    /// The delay to apply and the error to return (if any) for one request.
    struct verdict {
        std::chrono::milliseconds latency{0};
        std::chrono::milliseconds answer_latency{0};
        std::optional<int> error_code;
    };
    verdict judge(const std::string& verb, const std::string& resource);

    /// Bumped to end every open watch (dropped connections).
    std::uint64_t watch_epoch() const { return watch_epoch_; }
    void drop_watches() { ++watch_epoch_; }

    /// Parses
    /// `{"rules":[{"verb":"get","resource":"pods","errorRate":0.5,"errorCode":503,"latencyMs":100}]}`.
    static core::outcome<std::vector<fault_rule>> parse_rules(const std::string& json_text);

  private:
    std::vector<fault_rule> rules_;
    std::mt19937_64 rng_;
    std::uint64_t watch_epoch_ = 0;
};

} // namespace hpaplus::sim
