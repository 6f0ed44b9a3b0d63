// policy/defaults.cpp — API defaulting for autoscaling/v2 (pkg/apis/autoscaling/v2/defaults.go).
#include "policy/defaults.hpp"

namespace hpaplus::policy {
namespace {

constexpr std::int32_t default_cpu_utilization = 80;

// Each field is filled only when unset; an explicit empty policy list is kept (validation rejects
// it).
void fill(std::optional<scaling_rules>& rules, std::optional<std::int32_t> window,
          std::vector<scaling_policy> policies) {
    if (!rules) rules.emplace();
    if (!rules->stabilization_window_seconds) rules->stabilization_window_seconds = window;
    if (!rules->select) rules->select = select_policy::max;
    if (!rules->policies) rules->policies = std::move(policies);
}

} // namespace

void apply_defaults(autoscaler_spec& spec) {
    if (!spec.min_replicas) spec.min_replicas = 1;
    if (spec.metrics.empty()) {
        metric_spec cpu;
        cpu.type = metric_source_type::resource;
        cpu.resource_name = "cpu";
        cpu.target.type = metric_target_type::utilization;
        cpu.target.average_utilization = default_cpu_utilization;
        spec.metrics.push_back(std::move(cpu));
    }
    if (spec.behavior) {
        fill(spec.behavior->scale_up, 0,
             {{scaling_policy_type::pods, 4, 15}, {scaling_policy_type::percent, 100, 15}});
        // scaleDown's window stays unset: the controller fills it from its own flag.
        fill(spec.behavior->scale_down, std::nullopt, {{scaling_policy_type::percent, 100, 15}});
    }
}

bool uses_hpaplus_fields(const autoscaler_spec& spec) {
    if (spec.sync_period_seconds || spec.rollout != rollout_policy::continue_scaling ||
        spec.mode != run_mode::automatic || spec.pods != pod_selection::label_selector)
        return true;
    for (const auto& m : spec.metrics) {
        if (m.basis != usage_basis::requests || m.fallback || !m.backend.empty()) return true;
    }
    return false;
}

} // namespace hpaplus::policy
