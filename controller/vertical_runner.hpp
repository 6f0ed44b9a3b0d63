// controller/vertical_runner.hpp — one pass of one VPAPlus: read it and its workload from the
// caches, feed the PodMetrics (and OOM kills) into the history, write the recommendation and
// conditions, then — by updateMode — resize pods in place through pods/<name>/resize, follow
// PodResizePending / PodResizeInProgress, and fall back to the Eviction API where allowed.
// Histograms are checkpointed to VPAPlusCheckpoint objects so a restart keeps the history.
#pragma once

#include "controller/event_recorder.hpp"
#include "controller/options.hpp"
#include "kube/informer.hpp"
#include "metrics/http_backend.hpp"
#include "policy/types.hpp"
#include "vertical/recommender/aggregate.hpp"
#include "vertical/recommender/update_plan.hpp"

#include <boost/asio/awaitable.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>

namespace hpaplus::controller {

struct vertical_env {
    kube::api_client& client;
    const kube::informer& vpapluses;
    const kube::informer& pods;
    const kube::informer& deployments;
    const kube::informer& hpapluses;
    event_recorder& events;
    const controller_options& options;
    metrics::http_backend* history = nullptr; ///< --vertical-history-backend, when set
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
    };
    std::map<std::string, attempt> attempts; ///< in-place resizes under way, by pod uid
    std::set<std::string> evicted;           ///< pod uids evicted and not yet gone
    std::set<std::string>
        evicted_infeasible; ///< resizes (key_of) that were Infeasible, then evicted
    bool checkpoints_loaded = false;
    bool history_loaded = false; ///< the Prometheus history was read (or tried)
    std::set<std::string> checkpoints_created;
    std::optional<core::time_point> last_checkpoint;
};

struct vertical_outcome {
    bool exists = true;
    std::optional<std::string> error;
    std::size_t resized = 0;
    std::size_t evicted = 0;
};

/// Runs on: the client's executor. Cancellation: none; bounded by the request timeouts.
boost::asio::awaitable<vertical_outcome> run_vpaplus(vertical_env& env, const std::string& ns,
                                                     const std::string& name,
                                                     vertical_memory& memory);

/// The resources (cpu, memory) that an HPAPlus in `ns` scaling `kind/name` scales on, and its
/// name ("" when none). Used by both sides of the coordination.
struct horizontal_use {
    std::string hpaplus;
    bool cpu = false;
    bool memory = false;
};
horizontal_use find_horizontal_use(const kube::informer& hpapluses, const std::string& ns,
                                   const policy::object_reference& workload);

/// The HPAPlus side of the coordination: sets its CoordinatedWithVPAPlus condition when a cached
/// VPAPlus of `ns` sizes the pods of its target (says which resources stay with the HPAPlus),
/// removes it otherwise.
void note_vertical_use(const kube::informer& vpapluses, const std::string& ns,
                       const policy::autoscaler& hpa, std::vector<policy::condition>& conditions,
                       core::time_point now);

} // namespace hpaplus::controller
