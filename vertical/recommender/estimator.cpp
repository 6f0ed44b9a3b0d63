// vertical/recommender/estimator.cpp — percentiles, margin, confidence, minimums, capping.
#include "vertical/recommender/estimator.hpp"

#include <algorithm>
#include <cmath>

namespace hpaplus::vertical {
namespace {

// resourceAmountFromFloat: truncated toward zero, clamped to [0, 1e14].
std::int64_t amount_from(double v) {
    if (!(v > 0)) return 0;
    if (v > static_cast<double>(max_resource_amount)) return max_resource_amount;
    return static_cast<std::int64_t>(v);
}

std::int64_t scale(std::int64_t amount, double factor) {
    return amount_from(static_cast<double>(amount) * factor);
}

amounts at_percentile(const container_aggregate& a, double p) {
    return {amount_from(a.cpu().percentile(p) * 1000.0),
            amount_from(a.memory_peaks().percentile(p))};
}

amounts scaled(amounts v, double factor) {
    return {scale(v.cpu_milli, factor), scale(v.memory_bytes, factor)};
}

std::int64_t capped(std::int64_t v, const std::optional<std::int64_t>& lo,
                    const std::optional<std::int64_t>& hi) {
    if (lo && *lo > 0 && v < *lo) v = *lo;
    if (hi && *hi > 0 && v > *hi) v = *hi;
    return v;
}

amounts capped(amounts v, const container_policy& p) {
    return {capped(v.cpu_milli, p.min_allowed.cpu_milli, p.max_allowed.cpu_milli),
            capped(v.memory_bytes, p.min_allowed.memory_bytes, p.max_allowed.memory_bytes)};
}

} // namespace

double confidence_of(const container_aggregate& a, const recommender_config& config) {
    const double unit = static_cast<double>(config.confidence_unit.count());
    const double lifespan =
        a.first_sample() && a.last_sample()
            ? static_cast<double>((*a.last_sample() - *a.first_sample()).count()) / unit
            : 0.0;
    const double samples = static_cast<double>(a.total_samples()) / (60.0 * 24.0);
    return std::min(lifespan, samples);
}

container_estimate estimate(const container_aggregate& a, const recommender_config& config,
                            std::size_t containers_per_pod) {
    const double margin = 1 + config.margin;
    const double confidence = confidence_of(a, config);
    // With no history the upper bound is unbounded (×∞) and the lower bound 0 (×0).
    const double upper_factor = std::pow(1.0 + 1.0 / confidence, 1.0);
    const double lower_factor = std::pow(1.0 + 0.001 / confidence, -2.0);
    const double share = 1.0 / static_cast<double>(std::max<std::size_t>(1, containers_per_pod));
    const amounts minimum{scale(config.pod_min_cpu_milli, share),
                          scale(config.pod_min_memory_bytes, share)};
    const auto floor_at_min = [&](amounts v) {
        return amounts{std::max(v.cpu_milli, minimum.cpu_milli),
                       std::max(v.memory_bytes, minimum.memory_bytes)};
    };
    container_estimate e;
    e.target = floor_at_min(scaled(at_percentile(a, config.target_percentile), margin));
    e.lower_bound = floor_at_min(
        scaled(scaled(at_percentile(a, config.lower_percentile), margin), lower_factor));
    e.upper_bound = floor_at_min(
        scaled(scaled(at_percentile(a, config.upper_percentile), margin), upper_factor));
    return e;
}

std::optional<container_recommendation> apply_policy(const std::string& container,
                                                     const container_estimate& e,
                                                     const container_policy* policy) {
    container_recommendation r;
    r.container = container;
    r.uncapped_target = e.target;
    r.target = e.target;
    r.lower_bound = e.lower_bound;
    r.upper_bound = e.upper_bound;
    if (!policy) return r;
    if (policy->off) return std::nullopt;
    r.target = capped(e.target, *policy);
    r.lower_bound = capped(e.lower_bound, *policy);
    r.upper_bound = capped(e.upper_bound, *policy);
    r.cpu = policy->control_cpu;
    r.memory = policy->control_memory;
    r.values = policy->values;
    return r;
}

const container_policy* policy_for(const std::vector<container_policy>& policies,
                                   std::string_view container) {
    const container_policy* wildcard = nullptr;
    for (const auto& p : policies) {
        if (p.container_name == container) return &p;
        if (p.container_name == "*") wildcard = &p;
    }
    return wildcard;
}

std::optional<update_mode> parse_update_mode(std::string_view text) {
    if (text == "Off") return update_mode::off;
    if (text == "Initial") return update_mode::initial;
    if (text == "Recreate" || text == "Auto") return update_mode::recreate;
    if (text == "InPlaceOrRecreate") return update_mode::in_place_or_recreate;
    if (text == "InPlace") return update_mode::in_place;
    return std::nullopt;
}

std::string_view to_string(update_mode m) {
    switch (m) {
    case update_mode::off:
        return "Off";
    case update_mode::initial:
        return "Initial";
    case update_mode::recreate:
        return "Recreate";
    case update_mode::in_place_or_recreate:
        return "InPlaceOrRecreate";
    case update_mode::in_place:
        return "InPlace";
    }
    return "Off";
}

} // namespace hpaplus::vertical
