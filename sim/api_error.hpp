// sim/api_error.hpp — failures as the API server reports them: a `Status` object with code,
// reason, message and details, built the way apimachinery's errors package builds them.
#pragma once

#include "sim/resource_type.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpaplus::sim {

/// Go's %q of a string, as upstream's messages quote names and values: quotes, backslashes and
/// control characters escaped.
std::string go_quoted(std::string_view s);

/// One entry of a Status's details.causes.
struct status_cause {
    std::string reason; ///< FieldValueInvalid, DisruptionBudget, ResourceVersionTooLarge, ...
    std::string message;
    std::string field; ///< empty: none
};

struct api_error {
    int code = 500;
    std::string reason; ///< NotFound, Conflict, AlreadyExists, Invalid, BadRequest, Expired, ...
    std::string message;
    std::string name;  ///< details.name
    std::string group; ///< details.group
    std::string kind;  ///< details.kind (the resource plural, as upstream puts it)
    std::vector<status_cause> causes;
    std::optional<int> retry_after_seconds;
};

/// A `Status` object's head (kind, apiVersion, metadata) with `status` ("Success", "Failure").
json_doc status_document(const char* status);

/// The `Status` JSON for an error.
std::string status_json(const api_error& e);

api_error not_found(const resource_type& t, const std::string& name);
api_error already_exists(const resource_type& t, const std::string& name);
api_error conflict(const resource_type& t, const std::string& name);
api_error invalid(const resource_type& t, const std::string& name,
                  std::vector<std::pair<std::string, std::string>> causes);
api_error bad_request(std::string message);
api_error expired(std::string message);
api_error method_not_supported(const resource_type& t, const std::string& verb);
api_error unsupported_media_type(std::string message);
api_error too_many_requests(int retry_after_seconds);
api_error internal_error(std::string message);
/// 504 Timeout for a request at a resourceVersion the server has not reached (as the watch cache
/// answers after waiting for it), with the cause ResourceVersionTooLarge.
api_error too_large_resource_version(std::uint64_t requested, std::uint64_t current);
api_error not_found_path(const std::string& path);

} // namespace hpaplus::sim
