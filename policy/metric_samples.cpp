// policy/metric_samples.cpp — metrics-client semantics on already-fetched data.
#include "policy/metric_samples.hpp"

#include <algorithm>
#include <limits>

namespace hpaplus::policy {

namespace {

// One pod's sample of `resource` (summed over its containers, or of `container`), if it has one.
void add_sample(sample_set& samples, const pod_metrics& m, std::string_view resource,
                std::string_view container) {
    if (!container.empty()) {
        // A pod whose metrics lack the container has no sample: the replica calculator then
        // ignores it (Failed, Succeeded, being deleted) or counts it as missing, as for
        // Resource metrics (upstream since kubernetes#127193).
        const auto c = std::find_if(m.containers.begin(), m.containers.end(),
                                    [&](const auto& cu) { return cu.name == container; });
        const quantity* q = c == m.containers.end() ? nullptr : find_resource(c->usage, resource);
        if (q) samples.push_back({m.name, q->milli_value(), m.timestamp, m.window});
        return;
    }
    if (m.containers.empty()) return;
    std::int64_t sum = 0;
    for (const auto& c : m.containers) {
        const quantity* q = find_resource(c.usage, resource);
        if (!q) return;
        sum += q->milli_value();
    }
    samples.push_back({m.name, sum, m.timestamp, m.window});
}

const char* const no_pod_metrics = "no metrics returned from resource metrics API";

} // namespace

core::outcome<sample_set> samples_from_pod_metrics(const std::vector<pod_metrics>& items,
                                                   std::string_view resource,
                                                   std::string_view container) {
    if (items.empty()) return std::string(no_pod_metrics);
    sample_set samples;
    samples.reserve(items.size());
    for (const auto& m : items)
        add_sample(samples, m, resource, container);
    sort_samples(samples);
    return samples;
}

core::outcome<sample_set> samples_from_pod_metrics(const std::vector<const pod_metrics*>& items,
                                                   std::string_view resource,
                                                   std::string_view container) {
    if (items.empty()) return std::string(no_pod_metrics);
    sample_set samples;
    samples.reserve(items.size());
    for (const auto* m : items)
        add_sample(samples, *m, resource, container);
    sort_samples(samples);
    return samples;
}

core::outcome<sample_set> samples_from_custom_metrics(sample_set items) {
    if (items.empty()) return std::string("no metrics returned from custom metrics API");
    sort_samples(items);
    return items;
}

std::int64_t sum_capped(const std::vector<std::int64_t>& values) {
    std::int64_t sum = 0;
    for (std::int64_t v : values) {
        if (v > 0 && sum > std::numeric_limits<std::int64_t>::max() - v)
            return std::numeric_limits<std::int64_t>::max();
        sum += v;
    }
    return sum;
}

std::int64_t sum_negative_as_overflow(const std::vector<std::int64_t>& values) {
    std::int64_t sum = 0;
    for (std::int64_t v : values) {
        if (__builtin_add_overflow(sum, v, &sum) || sum < 0)
            return std::numeric_limits<std::int64_t>::max();
    }
    return sum;
}

} // namespace hpaplus::policy
