// vertical/pod_updates.hpp — the updater's I/O for one VPAPlus pass: which pods to change (the
// pure plan, vertical/updater), resized in place through pods/<name>/resize or evicted through the
// Eviction API, with their Events and counters.
#pragma once

#include "kube/event_recorder.hpp"
#include "vertical/runner.hpp"

#include <boost/asio/awaitable.hpp>

#include <string>
#include <vector>

namespace hpaplus::vertical {

/// One pass of one VPAPlus: what its updates read and count.
struct pass {
    vertical_env& env;
    const kube::vpaplus& v;
    vertical_memory& m;
    kube::vpaplus_status& status;
    kube::involved_object involved;
    core::time_point now;
    vertical_outcome& out;
    const std::string& key; ///< the VPAPlus's namespace/name (the write fence's)

    /// GCC 12 mishandles temporaries in co_await arguments: callers pass a named event.
    boost::asio::awaitable<void> record(const core::event& e);
    /// Evicts through the Eviction API, so PodDisruptionBudgets hold. True when the pod goes.
    boost::asio::awaitable<bool> evict(const pod_view& p, const std::string& why);
    /// One JSON Patch to pods/<name>/resize for all containers. True when the PATCH is taken.
    boost::asio::awaitable<bool> resize(const pod_view& p,
                                        const std::vector<container_resources>& to);
};

/// Resizes or evicts the pods whose requests are off the recommendation, as the update mode allows.
boost::asio::awaitable<void> update_pods(pass& ps, std::vector<pod_view>& pods,
                                         const std::vector<container_recommendation>& recs,
                                         std::int32_t configured);

} // namespace hpaplus::vertical
