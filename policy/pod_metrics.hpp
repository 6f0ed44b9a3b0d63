// policy/pod_metrics.hpp — a metrics.k8s.io PodMetrics as the decision core reads it. Thousands of
// these are decoded per second and dropped with their list, so the usual shape (one container,
// cpu and memory) is stored inline: a pod costs its name and labels in allocations, not four.
#pragma once

#include "policy/types.hpp"

#include <boost/container/small_vector.hpp>

namespace hpaplus::policy {

/// A container's usage: metrics-server sends cpu and memory.
using usage_list = boost::container::small_vector<resource_entry, 2>;

inline const quantity* find_resource(const usage_list& list, std::string_view name) {
    return find_resource(std::span(list.data(), list.size()), name);
}

/// metrics.k8s.io PodMetrics (one pod, per-container usage).
struct pod_metrics {
    std::string name;
    std::string namespace_;
    core::label_map labels;
    time_point timestamp{};
    std::chrono::nanoseconds window{0};
    struct container_usage {
        std::string name;
        usage_list usage;
        friend bool operator==(const container_usage&, const container_usage&) = default;
    };
    boost::container::small_vector<container_usage, 1> containers;
    friend bool operator==(const pod_metrics&, const pod_metrics&) = default;
};

} // namespace hpaplus::policy
