// controller/vpaplus/pod_updates.hpp — the updater's I/O for one VPAPlus pass: which pods to change
// (the pure plan, vertical/updater), resized in place through pods/<name>/resize or evicted through
// the Eviction API, with their Events and counters.
#pragma once

#include "controller/vpaplus/vertical_state.hpp"
#include "kube/event_recorder.hpp"

#include <boost/asio/awaitable.hpp>

#include <string>
#include <vector>

namespace hpaplus::controller {

/// How a resize reads in its Event and log line, and whether it may give way to eviction.
struct resize_words {
    const char* reason = "InPlaceResizedByVPAPlus";
    const char* doing = "resizing pod";
    bool no_eviction = false; ///< see vertical_memory::attempt
};

/// One pass of one VPAPlus: what its updates read and count.
struct pass {
    vertical_env& env;
    const kinds::vpaplus& v;
    vertical_memory& m;
    kinds::vpaplus_status& status;
    kube::involved_object involved;
    core::time_point now;
    vertical_outcome& out;
    const std::string& key; ///< the VPAPlus's namespace/name (the write fence's)

    /// GCC 12 mishandles temporaries in co_await arguments: callers pass a named event.
    boost::asio::awaitable<void> record(const core::event& e);
    /// Evicts through the Eviction API, so PodDisruptionBudgets hold. True when the pod goes.
    boost::asio::awaitable<bool> evict(const vertical::pod_view& p, const std::string& why);
    /// One JSON Patch to pods/<name>/resize for all containers. True when the PATCH is taken.
    /// `why` names it in the Event (reason, and the words before the change).
    boost::asio::awaitable<bool> resize(const vertical::pod_view& p,
                                        const std::vector<vertical::container_resources>& to,
                                        resize_words why = {});
};

/// The updater's disruption budget for one pass: the workload's replicas, its running pods, and
/// those with an eviction or resize of this updater under way.
vertical::group_state group_of(const pass& ps, const std::vector<vertical::pod_view>& pods,
                               std::int32_t configured);

/// Resizes or evicts the pods whose requests are off the recommendation, as the update mode allows.
boost::asio::awaitable<void>
update_pods(pass& ps, std::vector<vertical::pod_view>& pods,
            const std::vector<vertical::container_recommendation>& recs, std::int32_t configured);

} // namespace hpaplus::controller
