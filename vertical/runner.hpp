// vertical/runner.hpp — one pass of one VPAPlus: read it and its workload from the
// caches, feed the PodMetrics (and OOM kills) into the history, write the recommendation and
// conditions, then — by updateMode — resize pods in place through pods/<name>/resize, follow
// PodResizePending / PodResizeInProgress, and fall back to the Eviction API where allowed.
// Histograms are checkpointed to VPAPlusCheckpoint objects so a restart keeps the history.
#pragma once

#include "core/kubernetes.hpp"
#include "kinds/vpaplus.hpp"
#include "kube/event_recorder.hpp"
#include "kube/object_cache.hpp"
#include "metrics/http_backend.hpp"
#include "vertical/options.hpp"
#include "vertical/recommender/aggregate.hpp"
#include "vertical/sample_record.hpp"
#include "vertical/updater/plan.hpp"

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace hpaplus::vertical {

/// The apiVersion of VPAPlus and VPAPlusCheckpoint objects.
inline constexpr const char* vpaplus_api_version = "autoscaling.hpaplus.io/v1alpha1";

/// What a horizontal autoscaler on the same workload asks of a VPAPlus (decided by the controller's
/// coordination rules): the resources to leave to it, and the words of CoordinatedWithHPAPlus.
struct horizontal_sharing {
    std::string shared_with; ///< the HPAPlus's name, or HorizontalPodAutoscaler/<name>; "" = none
    bool leave_cpu = false;
    bool leave_memory = false;
    std::string reason; ///< of the CoordinatedWithHPAPlus condition
    std::string message;
};

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
    std::set<std::string> checkpoints_created;
    /// Checkpoints of our names that this VPAPlus does not own (its uid is not among their
    /// ownerReferences): not read; deleted before ours is created.
    std::set<std::string> checkpoints_foreign;
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

} // namespace hpaplus::vertical
