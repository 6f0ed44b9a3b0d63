// kube/status_writer.hpp — the status subresource of any object, written only when it differs
// from what the object already says (a merge patch; fields only the object has stay).
#pragma once

#include "kube/object_cache.hpp"
#include "kube/resources.hpp"

#include <boost/asio/awaitable.hpp>

#include <rapidjson/fwd.h>

#include <string>
#include <string_view>

namespace hpaplus::kube {

/// True when a field of `status_json` differs from `stored` (the object's status as stored, parsed;
/// null when it has none); key order does not matter, and fields only the object has are what the
/// merge patch leaves alone; a null field (remove) counts as equal when the object does not have
/// it.
bool status_differs(const rapidjson::Value* stored, std::string_view status_json);

/// Merge-patches the status subresource of `object` (of `resource`) with `status` when it differs
/// from `stored` (its status as stored, parsed); true when written. A failure other than 404 is
/// logged; `gone`, when given, says whether the answer was 404 (the object, or its status
/// subresource, is not on the server). Runs on: the client's executor.
boost::asio::awaitable<bool> write_status(kube::api_client& client,
                                          const kube::resource_path& resource,
                                          const kube::cached_object& object,
                                          const rapidjson::Value* stored, const std::string& status,
                                          bool* gone = nullptr,
                                          request_class priority = request_class::report);

} // namespace hpaplus::kube
