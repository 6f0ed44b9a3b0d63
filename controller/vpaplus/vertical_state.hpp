// controller/vpaplus/vertical_state.hpp — what a VPAPlus pass works with (its environment: the
// client, the caches, the Events, the options and what the horizontal side asks of it) and what a
// VPAPlus worker keeps between passes; shared by the pieces of the pass (sampling, checkpoints,
// pod updates, start-up boosts, status).
#pragma once

#include "controller/checkpoints.hpp"
#include "controller/coordination.hpp"
#include "controller/vpaplus/options.hpp"
#include "controller/vpaplus/sample_record.hpp"
#include "core/kubernetes.hpp"
#include "kinds/vpaplus.hpp"
#include "kube/event_recorder.hpp"
#include "kube/object_cache.hpp"
#include "metrics/http_backend.hpp"
#include "metrics/metrics_api.hpp"
#include "vertical/recommender/aggregate.hpp"
#include "vertical/updater/plan.hpp"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace hpaplus::controller {

struct vertical_env {
    kube::api_client& client;
    const kube::object_cache& vpapluses;
    const kube::object_cache& pods;
    const kube::object_cache& deployments;
    /// What the horizontal autoscaler of a VPAPlus's workload, if any, asks of it
    /// (controller/coordination.hpp).
    std::function<horizontal_sharing(const kinds::vpaplus& v)> sharing_of;
    kube::event_recorder& events;
    const vertical_options& options;
    metrics::pod_metrics_pool& pod_metrics;   ///< where the lane's PodMetrics lists are decoded
    metrics::http_backend* history = nullptr; ///< --vertical-history-backend, when set
    sample_recorder* recorder = nullptr;      ///< --vertical-record-samples, when set
    /// Whether the informers behind the caches are current (null: always): while they are not, a
    /// pass resizes, evicts and writes nothing (the pods it would act on may be gone or changed).
    std::function<bool()> caches_current = {};
};

/// What a VPAPlus worker keeps between passes.
struct vertical_memory {
    vertical::recommender_config config;
    std::map<std::string, vertical::container_aggregate> history; ///< by container name
    std::map<std::string, vertical::container_window> windows;    ///< by pod uid/container
    std::set<std::string> ooms_seen;                              ///< pod uid/container/finishedAt
    struct attempt {
        core::time_point at;
        /// What was asked: until the cached pod shows it the resize is still under way (the
        /// watch may lag the PATCH), and InPlace asks an Infeasible pod again only for another.
        std::vector<vertical::container_resources> to;
        /// Ending a start-up boost: never given way to eviction (AEP-7862: a replacement would be
        /// boosted again, and fail again).
        bool no_eviction = false;
    };
    std::map<std::string, attempt> attempts; ///< in-place resizes under way, by pod uid
    std::set<std::string> evicted;           ///< pod uids evicted and not yet gone
    std::set<std::string>
        evicted_infeasible; ///< resizes (key_of) that were Infeasible, then evicted
    bool checkpoints_loaded = false;
    bool history_loaded = false; ///< the Prometheus history was read (or tried)
    /// Its checkpoints, by name: whether each exists, and whether this VPAPlus does not own it
    /// (its uid is not among their ownerReferences: not read; deleted before ours is created).
    std::map<std::string, checkpoint_state> checkpoints;
    std::optional<core::time_point> last_checkpoint;
};

struct vertical_outcome {
    bool exists = true;
    std::optional<std::string> error;
    std::size_t resized = 0;
    std::size_t evicted = 0;
};

} // namespace hpaplus::controller
