// policy/metric_samples.cpp — metrics-client semantics on already-fetched data.
#include "policy/metric_samples.hpp"

#include <algorithm>
#include <limits>

namespace hpaplus::policy {

namespace {

// Adds one pod's sample of `resource` (summed over its containers, or of `container`), if it has
// one. False when the usage does not fit in 64-bit milli-units.
bool add_sample(sample_set& samples, const core::pod_metrics& m, std::string_view resource,
                std::string_view container) {
    if (!container.empty()) {
        // A pod whose metrics lack the container has no sample: the replica calculator then
        // ignores it (Failed, Succeeded, being deleted) or counts it as missing, as for
        // Resource metrics (upstream since kubernetes#127193).
        const auto c = std::find_if(m.containers.begin(), m.containers.end(),
                                    [&](const auto& cu) { return cu.name == container; });
        const core::quantity* q =
            c == m.containers.end() ? nullptr : core::find_resource(c->usage, resource);
        if (!q) return true;
        if (!q->milli_fits()) return false;
        samples.push_back({m.name, q->milli_value(), m.timestamp, m.window});
        return true;
    }
    if (m.containers.empty()) return true;
    std::int64_t sum = 0;
    for (const auto& c : m.containers) {
        const core::quantity* q = core::find_resource(c.usage, resource);
        if (!q) return true;
        if (!q->milli_fits() || __builtin_add_overflow(sum, q->milli_value(), &sum)) return false;
    }
    samples.push_back({m.name, sum, m.timestamp, m.window});
    return true;
}

std::string usage_out_of_range(const core::pod_metrics& m, std::string_view resource) {
    return "the " + std::string(resource) + " usage of pod " + m.name +
           " is out of range (it does not fit in 64-bit milli-units)";
}

const char* const no_pod_metrics = "no metrics returned from resource metrics API";

} // namespace

core::outcome<sample_set> samples_from_pod_metrics(const std::vector<core::pod_metrics>& items,
                                                   std::string_view resource,
                                                   std::string_view container) {
    if (items.empty()) return std::string(no_pod_metrics);
    sample_set samples;
    samples.reserve(items.size());
    for (const auto& m : items)
        if (!add_sample(samples, m, resource, container)) return usage_out_of_range(m, resource);
    sort_samples(samples);
    return samples;
}

core::outcome<sample_set>
samples_from_pod_metrics(const std::vector<const core::pod_metrics*>& items,
                         std::string_view resource, std::string_view container) {
    if (items.empty()) return std::string(no_pod_metrics);
    sample_set samples;
    samples.reserve(items.size());
    for (const auto* m : items)
        if (!add_sample(samples, *m, resource, container)) return usage_out_of_range(*m, resource);
    sort_samples(samples);
    return samples;
}

core::outcome<sample_set> samples_from_custom_metrics(sample_set items) {
    if (items.empty()) return std::string("no metrics returned from custom metrics API");
    sort_samples(items);
    return items;
}

std::optional<std::int64_t> checked_sum(const std::vector<std::int64_t>& values) {
    std::int64_t sum = 0;
    for (std::int64_t v : values)
        if (__builtin_add_overflow(sum, v, &sum)) return std::nullopt;
    return sum;
}

std::int64_t saturating_sum(const std::vector<std::int64_t>& values) {
    std::int64_t sum = 0;
    for (std::int64_t v : values)
        if (__builtin_add_overflow(sum, v, &sum))
            return v > 0 ? std::numeric_limits<std::int64_t>::max()
                         : std::numeric_limits<std::int64_t>::min();
    return sum;
}

std::string sum_out_of_range(std::size_t count) {
    return "the sum of the " + std::to_string(count) +
           " values returned is out of range (it does not fit in 64-bit milli-units)";
}

} // namespace hpaplus::policy
