// core/kubernetes.hpp — the Kubernetes words every kind of ours uses: status conditions (kept as
// upstream keeps them), events, object references, resource lists and a metrics.k8s.io PodMetrics.
// The decision cores (policy/, cron/, vertical/) and the codecs share these; none owns them.
#pragma once

#include "core/label_selector.hpp"
#include "core/quantity.hpp"
#include "core/time.hpp"

#include <boost/container/small_vector.hpp>

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpaplus::core {

enum class condition_status { true_, false_, unknown };

/// A status condition (metav1.Condition's fields that autoscalers use).
struct condition {
    std::string type;
    condition_status status = condition_status::unknown;
    std::string reason;
    std::string message;
    std::optional<time_point> last_transition_time;
};

/// `setCondition`: adds or updates the condition of `type`, in insertion order;
/// lastTransitionTime changes only when the status flips. The reason and message are copied into
/// the condition's own strings (a steady pass that sets the same text allocates nothing).
void set_condition(std::vector<condition>& conditions, std::string_view type,
                   condition_status status, std::string_view reason, std::string_view message,
                   time_point now);
/// set_condition with the message `head` followed by `tail`, joined in the condition's own string.
void set_condition(std::vector<condition>& conditions, std::string_view type,
                   condition_status status, std::string_view reason, std::string_view head,
                   std::string_view tail, time_point now);
/// `removeCondition`.
void remove_condition(std::vector<condition>& conditions, std::string_view type);
/// The condition of `type`, or nullptr.
const condition* find_condition(const std::vector<condition>& conditions, std::string_view type);

/// An Event to record about an object.
struct event {
    std::string type; ///< Normal | Warning
    std::string reason;
    std::string message;
};

/// `autoscaling/v2` CrossVersionObjectReference.
struct object_reference {
    std::string kind;
    std::string name;
    std::string api_version;
    friend bool operator==(const object_reference&, const object_reference&) = default;
};

/// A resource name → quantity map of one container (small; linear lookup is fastest).
using resource_entry = std::pair<std::string, quantity>;
using resource_list = std::vector<resource_entry>;
const quantity* find_resource(std::span<const resource_entry> list, std::string_view name);

/// A container's usage: metrics-server sends cpu and memory, so two are stored inline.
using usage_list = boost::container::small_vector<resource_entry, 2>;
inline const quantity* find_resource(const usage_list& list, std::string_view name) {
    return find_resource(std::span(list.data(), list.size()), name);
}

/// metrics.k8s.io PodMetrics (one pod, per-container usage). Thousands of these are decoded per
/// second and dropped with their list, so the usual shape (one container, cpu and memory) is stored
/// inline: a pod costs its name and labels in allocations, not four.
struct pod_metrics {
    std::string name;
    std::string namespace_;
    label_map labels;
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

} // namespace hpaplus::core
