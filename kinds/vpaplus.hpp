// kinds/vpaplus.hpp — a VPAPlus, its checkpoints and the parts of a Pod the vertical
// updater reads, as the controller decodes and encodes them. Decoding and encoding only; no I/O.
#pragma once

#include "kube/json_decoder.hpp"
#include "policy/types.hpp"
#include "vertical/recommender/aggregate.hpp"
#include "vertical/updater/pod.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hpaplus::kinds {

struct vpaplus {
    std::string ns;
    std::string name;
    std::string uid;
    std::int64_t generation = 0;
    core::object_reference target;
    vertical::update_mode mode = vertical::update_mode::in_place_or_recreate;
    std::optional<std::int32_t> min_replicas;
    std::vector<vertical::container_policy> policies;
    bool share_cpu = false; ///< allowSharedResources: control it although an HPAPlus scales on it
    bool share_memory = false;
    std::optional<vertical::cpu_startup_boost> boost; ///< spec.startupBoost.cpu
};

/// Decodes a VPAPlus; spec errors (unknown fields too) are reported through `d`.
vpaplus decode_vpaplus(kube::json_decoder& d, const kube::json_node& n);

struct vpaplus_status {
    std::int64_t observed_generation = 0;
    std::vector<vertical::container_recommendation> recommendations;
    std::int64_t in_place_resizes = 0;
    std::int64_t evictions = 0;
    std::int64_t boosted_pods = 0; ///< pods whose start-up boost is in force now
    std::string shared_with;       ///< the HPAPlus on the same workload
    std::vector<core::condition> conditions;
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
vertical::pod_view decode_vertical_pod(const kube::json_node& n);

/// A pod's start-up boost annotation (vertical::boost_annotation) and back. Decoding is lenient:
/// nullopt for text this controller did not write (too long, not JSON, not the shape).
std::string encode_boost_record(const vertical::boost_record& r);
std::optional<vertical::boost_record> decode_boost_record(std::string_view text);
/// The RFC 7386 merge patch of a pod that sets its start-up boost annotation to `r` (a merge
/// patch leaves the pod's other annotations as they are, whatever the cache last saw).
std::string boost_annotation_patch(const vertical::boost_record& r);

/// A VPAPlusCheckpoint's status and back (nullopt when it is not a v3 checkpoint).
std::string encode_checkpoint_status(const vertical::aggregate_checkpoint& c, core::time_point now);
std::optional<vertical::aggregate_checkpoint> decode_checkpoint_status(const kube::json_node& n);

} // namespace hpaplus::kinds
