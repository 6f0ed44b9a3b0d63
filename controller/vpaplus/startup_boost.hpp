// controller/vpaplus/startup_boost.hpp — the updater's I/O for a VPAPlus's CPU start-up boost
// (spec.startupBoost, AEP-7862): starting pods the admission webhook did not boost are boosted in
// place, and boosted pods are resized back down in place once they have been Ready for the boost's
// duration — within the updater's disruption budget, never by eviction. The pure steps are
// vertical/updater/boost.
#pragma once

#include "controller/vpaplus/pod_updates.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <vector>

namespace hpaplus::controller {

/// One pass of the boost for `ps.v` (with spec.startupBoost, or pods still boosted after it was
/// removed: their boosts end at once). `updates`: the update mode
/// resizes pods, so a boost ends at the current recommendation (`recs`); otherwise at the pod's
/// own resources from before the boost. Returns how many pods are boosted after the pass.
boost::asio::awaitable<std::int64_t>
run_startup_boost(pass& ps, const std::vector<vertical::pod_view>& pods,
                  const std::vector<vertical::container_recommendation>& recs,
                  std::int32_t configured, bool updates);

} // namespace hpaplus::controller
