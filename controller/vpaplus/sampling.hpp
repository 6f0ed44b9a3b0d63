// controller/vpaplus/sampling.hpp — a VPAPlus's input: this pass's PodMetrics and OOM kills into
// its histories, what belonged to pods that are gone forgotten, and the Prometheus history a
// VPAPlus without checkpoints starts from.
#pragma once

#include "controller/vpaplus/vertical_state.hpp"
#include "metrics/metrics_api.hpp"

#include <boost/asio/awaitable.hpp>

#include <string>
#include <vector>

namespace hpaplus::controller {

/// Feeds this pass's PodMetrics and new OOM kills into the history (and the record, when kept:
/// `vpa` names the VPAPlus there).
void add_samples(vertical_memory& m, const std::vector<vertical::pod_view>& pods,
                 const metrics::pod_metrics_answer& answer, sample_recorder* record,
                 const std::string& vpa);

/// Forgets what belonged to pods that are gone.
void forget_gone(vertical_memory& m, const std::vector<vertical::pod_view>& pods);

/// A VPAPlus without checkpoints starts from Prometheus' history (once per worker); the
/// HistoryLoaded condition says what came of it.
boost::asio::awaitable<void> seed_history(vertical_env& env, const kinds::vpaplus& v,
                                          vertical_memory& m, kinds::vpaplus_status& status,
                                          core::time_point now);

} // namespace hpaplus::controller
