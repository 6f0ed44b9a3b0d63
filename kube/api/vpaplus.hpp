// kube/api/vpaplus.hpp — a VPAPlus, its checkpoints and the parts of a Pod the vertical
// updater reads, as the controller decodes and encodes them. Decoding and encoding only; no I/O.
#pragma once

#include "kube/json_decoder.hpp"
#include "policy/types.hpp"
#include "vertical/recommender/aggregate.hpp"
#include "vertical/updater/plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hpaplus::kube {

struct vpaplus {
    std::string ns;
    std::string name;
    std::string uid;
    std::int64_t generation = 0;
    policy::object_reference target;
    vertical::update_mode mode = vertical::update_mode::in_place_or_recreate;
    std::optional<std::int32_t> min_replicas;
    std::vector<vertical::container_policy> policies;
    bool share_cpu = false; ///< allowSharedResources: control it although an HPAPlus scales on it
    bool share_memory = false;
};

/// Decodes a VPAPlus; spec errors (unknown fields too) are reported through `d`.
vpaplus decode_vpaplus(kube::json_decoder& d, const kube::json_node& n);

struct vpaplus_status {
    std::int64_t observed_generation = 0;
    std::vector<vertical::container_recommendation> recommendations;
    std::int64_t in_place_resizes = 0;
    std::int64_t evictions = 0;
    std::string shared_with; ///< the HPAPlus on the same workload
    std::vector<policy::condition> conditions;
};

/// Reads the counters and conditions of a stored status (lenient: what cannot be read is left
/// out).
vpaplus_status decode_vpaplus_status(const kube::json_node& status);

/// The recommendation a stored status holds (only the resources it names are controlled), with
/// each container's controlledValues from `policies` — what the admission webhook applies.
std::vector<vertical::container_recommendation>
decode_recommendations(const kube::json_node& status,
                       const std::vector<vertical::container_policy>& policies);
std::string encode_vpaplus_status(const vpaplus_status& s);

/// The parts of a v1 Pod the vertical updater reads (leniently).
struct vertical_pod {
    std::string name;
    std::string uid;
    bool pending = true;
    bool deleting = false;
    bool controlled = false; ///< has a controlling owner (pods without one are never updated)
    std::optional<core::time_point> start_time;
    std::vector<vertical::container_resources> desired; ///< spec.containers[].resources
    /// Which of resources, requests and limits each container has as a map (by index), so a
    /// patch adds only what is missing (other resources such as ephemeral-storage stay).
    struct resource_maps {
        bool resources = false;
        bool requests = false;
        bool limits = false;
    };
    std::vector<resource_maps> maps;
    bool has_annotations = false;
    std::vector<vertical::container_resources> applied; ///< status.containerStatuses[].resources
    std::string resize_pending;                         ///< "", Deferred or Infeasible
    bool resize_in_progress = false;
    std::string in_progress_reason; ///< "" or Error
    struct oom_kill {
        std::string container;
        core::time_point started{};
        core::time_point finished{};
    };
    std::vector<oom_kill> oom_kills; ///< last terminations with reason OOMKilled
};
vertical_pod decode_vertical_pod(const kube::json_node& n);

/// A resize is still under way: desired and applied differ or a resize condition is present.
bool resizing(const vertical_pod& p);

/// The RFC 6902 patch of pods/resize that sets every container's cpu/memory requests and limits
/// to `to` (by index, as upstream does; maps are added first where missing).
std::string resize_patch(const vertical_pod& p,
                         const std::vector<vertical::container_resources>& to);

/// The admission webhook's patch of a pod being created: the resource operations of
/// resize_patch plus the annotation `vpaplus.hpaplus.io/updates` saying what `vpaplus` set.
std::string admission_patch(const vertical_pod& p,
                            const std::vector<vertical::container_resources>& to,
                            const std::string& vpaplus);

/// A VPAPlusCheckpoint's status and back (nullopt when it is not a v3 checkpoint).
std::string encode_checkpoint_status(const vertical::aggregate_checkpoint& c, core::time_point now);
std::optional<vertical::aggregate_checkpoint> decode_checkpoint_status(const kube::json_node& n);

/// Quantity text: cpu as millicores (`250m`, `1`), memory in bytes with binary suffixes (`256Mi`).
std::string cpu_text(std::int64_t milli);
std::string memory_text(std::int64_t bytes);

} // namespace hpaplus::kube
