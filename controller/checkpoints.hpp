// controller/checkpoints.hpp — writing a checkpoint of ours (VPAPlusCheckpoint, HPAPlusCheckpoint):
// one it does not own is deleted first, it is created when not yet known to exist, then its status
// is merge-patched. Both kinds keep what they learned about the object in a checkpoint_state.
#pragma once

#include "kube/api_client.hpp"
#include "kube/resources.hpp"

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace hpaplus::controller {

/// What a worker knows of one checkpoint object between writes.
struct checkpoint_state {
    bool created = false; ///< it exists (made by us, or read)
    bool foreign = false; ///< it exists but another object owns it (or it is dated ahead)
};

/// Where and what to write; `who` starts the log lines ("NS/NAME").
struct checkpoint_write {
    kube::api_client& client;
    const kube::resource_path& resource;
    const std::string& ns;
    std::string_view kind; ///< for the log lines: VPAPlusCheckpoint, HPAPlusCheckpoint
    const std::string& name;
    std::string_view fence_key;
    std::string_view who;
    std::function<std::string()> object; ///< the body of a new one (kinds/owned_object.hpp)
};

/// Writes `status_json` as the checkpoint's status; true when written. Failures are logged (a
/// checkpoint is best effort: the next write tries again) and change `state` so the next write
/// creates it again when it was gone.
/// Runs on: the client's executor.
boost::asio::awaitable<bool> write_checkpoint_status(const checkpoint_write& w,
                                                     checkpoint_state& state,
                                                     std::string status_json);

} // namespace hpaplus::controller
