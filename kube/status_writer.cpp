// kube/status_writer.cpp — comparing and merge-patching status subresources.
#include "kube/status_writer.hpp"

#include "kube/encode.hpp"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

namespace hpaplus::kube {

bool status_differs(const rapidjson::Value* stored, std::string_view status_json) {
    rapidjson::Document status; // ours, not the object's: parsed to compare it member by member
    status.Parse(status_json.data(), status_json.size());
    if (status.HasParseError() || !stored || !stored->IsObject() || !status.IsObject()) return true;
    // A merge patch leaves the fields it does not name alone, so only the named ones count.
    // rapidjson compares objects member by member in any order.
    for (const auto& member : status.GetObject()) {
        const auto theirs = stored->FindMember(member.name);
        if (theirs == stored->MemberEnd()) {
            if (!member.value.IsNull()) return true; // null = remove, and it is already gone
        } else if (theirs->value != member.value) {
            return true;
        }
    }
    return false;
}

boost::asio::awaitable<bool> write_status(kube::api_client& client,
                                          const kube::resource_path& resource,
                                          const kube::cached_object& object,
                                          const rapidjson::Value* stored, const std::string& status,
                                          bool* gone, request_class priority) {
    if (!status_differs(stored, status)) co_return false;
    std::string patch = "{\"status\":" + status + "}";
    // Named: GCC 12 mishandles temporaries in co_await calls.
    const std::string sub = "status", ns(object.namespace_()), name(object.name());
    auto response = co_await kube::merge_patch(client, resource, ns, name, std::move(patch), sub,
                                               object.key, priority);
    if (!response && response.ec != kube::errc::not_found)
        spdlog::warn("{}: writing status failed: {}", object.key, response.message());
    if (gone) *gone = response.ec == kube::errc::not_found;
    co_return static_cast<bool>(response);
}

} // namespace hpaplus::kube
