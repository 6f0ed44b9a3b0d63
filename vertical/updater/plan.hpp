// vertical/updater/plan.hpp — the updater's decisions for one pod, pure: is it outside
// the recommended range (or worth updating after 12 h), what its containers' requests and limits
// become (limits scaled per controlledValues), whether that would change its QoS class, and
// whether its group may lose one more pod right now. Upstream: pkg/updater/priority,
// pkg/updater/restriction, pkg/utils/vpa/limit_and_request_scaling.go.
#pragma once

#include "core/time.hpp"
#include "vertical/recommender/types.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::vertical {

/// One container's cpu/memory requests and limits (absent = not set).
struct container_resources {
    std::string name;
    std::optional<std::int64_t> cpu_request_milli;
    std::optional<std::int64_t> memory_request_bytes;
    std::optional<std::int64_t> cpu_limit_milli;
    std::optional<std::int64_t> memory_limit_bytes;
    friend bool operator==(const container_resources&, const container_resources&) = default;
};

enum class qos_class { guaranteed, burstable, best_effort };
qos_class qos_of(const std::vector<container_resources>& containers);
std::string_view to_string(qos_class q);

struct pod_priority {
    bool outside_range = false; ///< a request below lowerBound or above upperBound (or unset)
    bool scale_up = false;      ///< a target above its request
    double resource_diff = 0;   ///< Σ over resources |Σrequests − Σtargets| / Σrequests
};

/// `recommendations` already capped for this pod (see for_pod).
pod_priority priority_of(const std::vector<container_resources>& pod,
                         const std::vector<container_recommendation>& recommendations);

struct updater_config {
    std::chrono::nanoseconds lifetime_threshold = std::chrono::hours(12);
    double min_change = 0.1;
    std::chrono::nanoseconds quick_oom = std::chrono::minutes(10);
    double eviction_tolerance = 0.5;
    std::int32_t min_replicas = 2;
    std::chrono::nanoseconds deferred_timeout = std::chrono::minutes(5);
    std::chrono::nanoseconds in_progress_timeout = std::chrono::hours(1);
};

/// Whether the pod should be updated: outside the range, or a quick OOM with something to change,
/// or alive past the lifetime threshold with a resource diff of at least min_change.
bool wants_update(const pod_priority& p, std::optional<core::time_point> start_time, bool quick_oom,
                  core::time_point now, const updater_config& config);

/// The pod's recommendations after the per-pod step: with RequestsOnly the container's (kept)
/// limit caps target and bounds. Containers the VPAPlus does not recommend for are left out.
std::vector<container_recommendation>
for_pod(const std::vector<container_resources>& pod,
        const std::vector<container_recommendation>& recommendations);

/// The pod's containers with requests set to the targets and limits scaled with them
/// (RequestsAndLimits: limit × new/old request, exact integer math; no limit → none;
/// no request or limit == request → limit = new request). Only recommended resources change.
std::vector<container_resources>
resized(const std::vector<container_resources>& pod,
        const std::vector<container_recommendation>& recommendations);

/// A limit kept in its ratio to the request when the request becomes `new_request` (exact
/// integer math, saturating): no limit → none; no request, or limit == request → `new_request`.
std::optional<std::int64_t> scaled_limit(const std::optional<std::int64_t>& limit,
                                         const std::optional<std::int64_t>& request,
                                         std::int64_t new_request);

/// Upstream's group disruption check: `running − in_flight > configured − tolerance`, or one pod
/// may go when all configured run, nothing is in flight and the tolerance rounds to 0.
struct group_state {
    std::int32_t configured = 0; ///< the workload's replicas
    std::int32_t running = 0;    ///< pods not Pending
    std::int32_t in_flight = 0;  ///< evicted or being resized (by this updater, not yet done)
};
bool can_disrupt(const group_state& g, double tolerance_fraction);

} // namespace hpaplus::vertical
