// controller/vpaplus/runner.hpp — one pass of one VPAPlus: read it and its workload from the
// caches, feed the PodMetrics (and OOM kills) into the history, write the recommendation and
// conditions, then — by updateMode — resize pods in place through pods/<name>/resize, follow
// PodResizePending / PodResizeInProgress, and fall back to the Eviction API where allowed.
// Histograms are checkpointed to VPAPlusCheckpoint objects so a restart keeps the history.
#pragma once

#include "controller/vpaplus/vertical_state.hpp"

#include <boost/asio/awaitable.hpp>

#include <string>

namespace hpaplus::controller {

/// Runs on: the client's executor. Cancellation: none; bounded by the request timeouts.
boost::asio::awaitable<vertical_outcome> run_vpaplus(vertical_env& env, const std::string& ns,
                                                     const std::string& name,
                                                     vertical_memory& memory);

} // namespace hpaplus::controller
