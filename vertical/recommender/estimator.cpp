// vertical/recommender/estimator.cpp — percentiles, margin, confidence, minimums, capping.
#include "vertical/recommender/estimator.hpp"

#include "vertical/recommender/go_math.hpp"

#include <algorithm>

namespace hpaplus::vertical {
namespace {

// The percentile as upstream's estimators read it: cores → truncated millicores, bytes → bytes.
amounts at_percentile(const container_aggregate& a, double p) {
    return {resource_amount(a.cpu().percentile(p) * 1000.0),
            resource_amount(a.memory_peaks().percentile(p))};
}

// marginEstimator: base + ScaleResource(base, margin) — not ScaleResource(base, 1 + margin),
// which truncates differently (200m × 1.15 is 229m in float64, 200m + 30m is 230m).
amounts with_margin(amounts v, double margin) {
    return {v.cpu_milli + scale_amount(v.cpu_milli, margin),
            v.memory_bytes + scale_amount(v.memory_bytes, margin)};
}

amounts scaled(amounts v, double factor) {
    return {scale_amount(v.cpu_milli, factor), scale_amount(v.memory_bytes, factor)};
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
            ? static_cast<double>(time_between(*a.first_sample(), *a.last_sample()).count()) / unit
            : 0.0;
    // One sample a minute over the unit counts as 1 (Go's Duration.Minutes()).
    const auto unit_ns = config.confidence_unit.count();
    const double minutes = static_cast<double>(unit_ns / 60'000'000'000) +
                           static_cast<double>(unit_ns % 60'000'000'000) / 60e9;
    const double samples = static_cast<double>(a.total_samples()) / minutes;
    return std::min(lifespan, samples);
}

container_estimate estimate(const container_aggregate& a, const recommender_config& config,
                            std::size_t containers_per_pod) {
    const double confidence = confidence_of(a, config);
    // With no history the upper bound is unbounded (×∞) and the lower bound 0 (×0). Go's Pow:
    // C's rounds (1 + 0.001/c)⁻² differently in the last bit for some confidences.
    const double upper_factor = go::pow(1.0 + 1.0 / confidence, 1.0);
    const double lower_factor = go::pow(1.0 + 0.001 / confidence, -2.0);
    const double fraction = 1.0 / static_cast<double>(containers_per_pod);
    const amounts minimum{
        scale_amount(resource_amount(config.pod_min_cpu_millicores * 0.001 * 1000.0), fraction),
        scale_amount(resource_amount(config.pod_min_memory_mb * 1024 * 1024), fraction)};
    const auto at_least_minimum = [&](amounts v) {
        return amounts{std::max(v.cpu_milli, minimum.cpu_milli),
                       std::max(v.memory_bytes, minimum.memory_bytes)};
    };
    container_estimate e;
    e.target =
        at_least_minimum(with_margin(at_percentile(a, config.target_percentile), config.margin));
    e.lower_bound = at_least_minimum(scaled(
        with_margin(at_percentile(a, config.lower_percentile), config.margin), lower_factor));
    e.upper_bound = at_least_minimum(scaled(
        with_margin(at_percentile(a, config.upper_percentile), config.margin), upper_factor));
    return e;
}

std::vector<container_recommendation>
recommend_containers(const std::map<std::string, container_aggregate>& history,
                     const std::vector<container_policy>& policies,
                     const recommender_config& config) {
    // As upstream's GetContainerNameToAggregateStateMap: containers whose policy is Off and
    // containers without a CPU sample are left out, and do not take a share of the pod minimum.
    std::vector<std::pair<const std::string*, const container_aggregate*>> included;
    for (const auto& [name, aggregate] : history) {
        const container_policy* p = policy_for(policies, name);
        if ((p && p->off) || aggregate.total_samples() == 0) continue;
        included.emplace_back(&name, &aggregate);
    }
    std::vector<container_recommendation> out;
    for (const auto& [name, aggregate] : included)
        if (auto r = apply_policy(*name, estimate(*aggregate, config, included.size()),
                                  policy_for(policies, *name)))
            out.push_back(std::move(*r));
    return out;
}

double lowest_confidence(const std::map<std::string, container_aggregate>& history,
                         const std::vector<container_recommendation>& recommendations,
                         const recommender_config& config) {
    double lowest = 0;
    for (std::size_t i = 0; i < recommendations.size(); ++i) {
        const double c = confidence_of(history.at(recommendations[i].container), config);
        lowest = i == 0 ? c : std::min(lowest, c);
    }
    return lowest;
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
