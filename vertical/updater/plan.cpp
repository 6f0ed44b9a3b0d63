// vertical/updater/plan.cpp — per-pod update decisions.
#include "vertical/updater/plan.hpp"

#include "core/int128.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hpaplus::vertical {
namespace {

const container_recommendation*
recommendation_for(const std::vector<container_recommendation>& recommendations,
                   const std::string& container) {
    for (const auto& r : recommendations)
        if (r.container == container) return &r;
    return nullptr;
}

// limit × recommended / request, exact, saturating at int64 (upstream uses big integers).
std::int64_t proportional(std::int64_t limit, std::int64_t request, std::int64_t recommended) {
    const core::int128 v = static_cast<core::int128>(limit) * recommended / request;
    return v > std::numeric_limits<std::int64_t>::max() ? std::numeric_limits<std::int64_t>::max()
                                                        : static_cast<std::int64_t>(v);
}

std::int64_t cap_at(std::int64_t v, const std::optional<std::int64_t>& limit) {
    return limit && *limit > 0 ? std::min(v, *limit) : v;
}

} // namespace

std::optional<std::int64_t> scaled_limit(const std::optional<std::int64_t>& limit,
                                         const std::optional<std::int64_t>& request,
                                         std::int64_t new_request) {
    if (!limit || *limit == 0) return std::nullopt;
    if (!request || *request == 0 || *request == *limit) return new_request;
    return proportional(*limit, *request, new_request);
}

qos_class qos_of(const std::vector<container_resources>& containers) {
    bool any = false, guaranteed = !containers.empty();
    for (const auto& c : containers) {
        any = any || c.cpu_request_milli || c.memory_request_bytes || c.cpu_limit_milli ||
              c.memory_limit_bytes;
        // An unset request defaults to the limit.
        const auto cpu_req = c.cpu_request_milli ? c.cpu_request_milli : c.cpu_limit_milli;
        const auto mem_req = c.memory_request_bytes ? c.memory_request_bytes : c.memory_limit_bytes;
        if (!c.cpu_limit_milli || !c.memory_limit_bytes || cpu_req != c.cpu_limit_milli ||
            mem_req != c.memory_limit_bytes)
            guaranteed = false;
    }
    if (guaranteed) return qos_class::guaranteed;
    return any ? qos_class::burstable : qos_class::best_effort;
}

std::string_view to_string(qos_class q) {
    switch (q) {
    case qos_class::guaranteed:
        return "Guaranteed";
    case qos_class::burstable:
        return "Burstable";
    case qos_class::best_effort:
        return "BestEffort";
    }
    return "BestEffort";
}

pod_priority priority_of(const std::vector<container_resources>& pod,
                         const std::vector<container_recommendation>& recommendations) {
    pod_priority p;
    // Sums in milli-units of each resource, as upstream compares MilliValue()s.
    double requested[2] = {0, 0}, recommended[2] = {0, 0};
    bool seen[2] = {false, false};
    for (const auto& c : pod) {
        const auto* r = recommendation_for(recommendations, c.name);
        if (!r) continue;
        const auto visit = [&](int i, const std::optional<std::int64_t>& request,
                               std::int64_t target, std::int64_t lower, std::int64_t upper,
                               double milli_per_unit) {
            seen[i] = true;
            recommended[i] += static_cast<double>(target) * milli_per_unit;
            if (!request) {
                p.scale_up = p.outside_range = true;
                return;
            }
            requested[i] += static_cast<double>(*request) * milli_per_unit;
            if (target > *request) p.scale_up = true;
            if (*request < lower || *request > upper) p.outside_range = true;
        };
        if (r->cpu)
            visit(0, c.cpu_request_milli, r->target.cpu_milli, r->lower_bound.cpu_milli,
                  r->upper_bound.cpu_milli, 1.0);
        if (r->memory)
            visit(1, c.memory_request_bytes, r->target.memory_bytes, r->lower_bound.memory_bytes,
                  r->upper_bound.memory_bytes, 1000.0);
    }
    for (int i = 0; i < 2; ++i) {
        if (!seen[i]) continue;
        const double total = std::max(requested[i], 1.0);
        p.resource_diff += std::abs(total - recommended[i]) / total;
    }
    return p;
}

bool wants_update(const pod_priority& p, std::optional<core::time_point> start_time, bool quick_oom,
                  core::time_point now, const updater_config& config) {
    if (p.outside_range) return true;
    if (quick_oom) return p.resource_diff > 0;
    if (!start_time || now < *start_time + config.lifetime_threshold) return false;
    return p.resource_diff >= config.min_change;
}

std::vector<container_recommendation>
for_pod(const std::vector<container_resources>& pod,
        const std::vector<container_recommendation>& recommendations) {
    std::vector<container_recommendation> out;
    for (const auto& c : pod) {
        const auto* r = recommendation_for(recommendations, c.name);
        if (!r) continue;
        container_recommendation x = *r;
        if (x.values == controlled_values::requests_only) {
            for (amounts* a : {&x.target, &x.lower_bound, &x.upper_bound}) {
                a->cpu_milli = cap_at(a->cpu_milli, c.cpu_limit_milli);
                a->memory_bytes = cap_at(a->memory_bytes, c.memory_limit_bytes);
            }
        }
        out.push_back(std::move(x));
    }
    return out;
}

std::vector<container_resources>
resized(const std::vector<container_resources>& pod,
        const std::vector<container_recommendation>& recommendations) {
    std::vector<container_resources> out = pod;
    for (auto& c : out) {
        const auto* r = recommendation_for(recommendations, c.name);
        if (!r) continue;
        const bool limits = r->values == controlled_values::requests_and_limits;
        if (r->cpu) {
            if (limits)
                c.cpu_limit_milli =
                    scaled_limit(c.cpu_limit_milli, c.cpu_request_milli, r->target.cpu_milli);
            c.cpu_request_milli = r->target.cpu_milli;
        }
        if (r->memory) {
            if (limits)
                c.memory_limit_bytes = scaled_limit(c.memory_limit_bytes, c.memory_request_bytes,
                                                    r->target.memory_bytes);
            c.memory_request_bytes = r->target.memory_bytes;
        }
    }
    return out;
}

bool can_disrupt(const group_state& g, double tolerance_fraction) {
    const auto tolerance = static_cast<std::int32_t>(
        std::floor(static_cast<double>(g.configured) * tolerance_fraction));
    if (g.running - g.in_flight > g.configured - tolerance) return true;
    return g.running == g.configured && tolerance == 0 && g.in_flight == 0;
}

} // namespace hpaplus::vertical
