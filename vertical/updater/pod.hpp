// vertical/updater/pod.hpp — PURE: the parts of a v1 Pod the updater reads, and what it writes
// back: the RFC 6902 patches of pods/resize and of the admission webhook, whether a resize is
// still under way or should give way to eviction, and how a change reads in an Event.
#pragma once

#include "core/time.hpp"
#include "vertical/updater/boost.hpp"
#include "vertical/updater/plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hpaplus::vertical {

struct pod_view {
    std::string name;
    std::string uid;
    bool pending = true;
    bool deleting = false;
    bool controlled = false; ///< has a controlling owner (pods without one are never updated)
    std::optional<core::time_point> start_time;
    std::optional<core::time_point> ready_since; ///< the Ready condition's time, while True
    std::optional<boost_record> boost;           ///< its start-up boost annotation, if any
    std::vector<container_resources> desired;    ///< spec.containers[].resources
    /// Which of resources, requests and limits each container has as a map (by index), so a
    /// patch adds only what is missing (other resources such as ephemeral-storage stay).
    struct resource_maps {
        bool resources = false;
        bool requests = false;
        bool limits = false;
        friend bool operator==(const resource_maps&, const resource_maps&) = default;
    };
    std::vector<resource_maps> maps;
    bool has_annotations = false;
    std::vector<container_resources> applied; ///< status.containerStatuses[].resources
    std::string resize_pending;               ///< "", Deferred or Infeasible
    bool resize_in_progress = false;
    std::string in_progress_reason; ///< "" or Error
    struct oom_kill {
        std::string container;
        core::time_point started{};
        core::time_point finished{};
        friend bool operator==(const oom_kill&, const oom_kill&) = default;
    };
    std::vector<oom_kill> oom_kills; ///< last terminations with reason OOMKilled
    friend bool operator==(const pod_view&, const pod_view&) = default;
};

/// A resize is still under way: desired and applied differ or a resize condition is present.
bool resizing(const pod_view& p);

/// A resize this updater asked for (at `asked_at`, for `asked`) has not finished, or the cache
/// has not seen it yet (for at most the in-progress timeout).
bool under_way(const pod_view& p, core::time_point asked_at,
               const std::vector<container_resources>& asked, core::time_point now,
               const updater_config& config);

/// Why a resize under way should give way to eviction; "" while it should be waited for.
std::string fallback_reason(const pod_view& p, core::time_point asked_at, core::time_point now,
                            const updater_config& config);

/// The resources a resize asks for, as one comparable text.
std::string resources_key(const std::vector<container_resources>& to);

/// "app: cpu 100m→250m, memory 128Mi→256Mi": the requests that change, per container.
std::string describe_change(const pod_view& p, const std::vector<container_resources>& to);

/// The RFC 6902 patch of pods/resize that sets every container's cpu/memory requests and limits
/// to `to` (by index, as upstream does; maps are added first where missing).
std::string resize_patch(const pod_view& p, const std::vector<container_resources>& to);

/// The admission webhook's patch of a pod being created: the resource operations of
/// resize_patch plus the annotation `vpaplus.hpaplus.io/updates` saying what `vpaplus` set, and
/// the start-up boost annotation when `boost` (its text) is not empty.
std::string admission_patch(const pod_view& p, const std::vector<container_resources>& to,
                            const std::string& vpaplus, const std::string& boost = "");

/// Quantity text: cpu as millicores (`250m`, `1`), memory in bytes with binary suffixes (`256Mi`).
std::string cpu_text(std::int64_t milli);
std::string memory_text(std::int64_t bytes);

} // namespace hpaplus::vertical
