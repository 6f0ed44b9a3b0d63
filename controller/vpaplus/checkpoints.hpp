// controller/vpaplus/checkpoints.hpp — a VPAPlus's histories kept in VPAPlusCheckpoint objects (one
// per container, upstream's checkpoint form), read back before its first recommendation.
#pragma once

#include "controller/vpaplus/vertical_state.hpp"

#include <boost/asio/awaitable.hpp>

#include <string>

namespace hpaplus::controller {

boost::asio::awaitable<void> load_checkpoints(vertical_env& env, const kinds::vpaplus& v,
                                              vertical_memory& m);
/// Every --vertical-checkpoint-interval; `key`: the VPAPlus's namespace/name (the write fence's).
boost::asio::awaitable<void> write_checkpoints(vertical_env& env, const kinds::vpaplus& v,
                                               vertical_memory& m, core::time_point now,
                                               const std::string& key);

} // namespace hpaplus::controller
