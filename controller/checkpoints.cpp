// controller/checkpoints.cpp — delete a foreign checkpoint, create ours, write its status.
#include "controller/checkpoints.hpp"

#include <spdlog/spdlog.h>

namespace hpaplus::controller {

boost::asio::awaitable<bool> write_checkpoint_status(const checkpoint_write& w,
                                                     checkpoint_state& state,
                                                     std::string status_json) {
    const std::string_view kind = w.kind;
    if (state.foreign) {
        auto removed = co_await kube::remove(w.client, w.resource, w.ns, w.name, w.fence_key);
        if (!removed && removed.ec != kube::errc::not_found) {
            spdlog::warn("{}: {} {} it does not own not deleted: {}", w.who, kind, w.name,
                         removed.message());
            co_return false;
        }
        state.foreign = false;
        state.created = false;
    }
    if (!state.created) {
        auto created = co_await kube::create(w.client, w.resource, w.ns, w.object(), w.fence_key);
        if (!created && created.ec != kube::errc::already_exists) {
            spdlog::warn("{}: {} {} not created: {}", w.who, kind, w.name, created.message());
            co_return false;
        }
        state.created = true;
    }
    std::string patch = R"({"status":)" + status_json + "}";
    const std::string sub = "status"; // named: GCC 12 ends temporaries in co_await calls early
    auto written = co_await kube::merge_patch(w.client, w.resource, w.ns, w.name, std::move(patch),
                                              sub, w.fence_key);
    if (!written) {
        if (written.ec == kube::errc::not_found) state.created = false;
        spdlog::warn("{}: {} {} not written: {}", w.who, kind, w.name, written.message());
        co_return false;
    }
    co_return true;
}

} // namespace hpaplus::controller
