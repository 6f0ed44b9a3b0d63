// sim/apiserver/request.hpp — what every handler of the simulated API server reads from a request:
// its path, the resource it names and its selectors; and the two ways it answers.
#pragma once

#include "core/label_selector.hpp"
#include "net/http_server.hpp"
#include "sim/store.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::sim {

inline constexpr const char* json_type = "application/json";

/// The Status body of `e` with its code (and Retry-After when it has one).
net::http_response error_response(const api_error& e);
/// A JSON answer.
net::http_response ok(std::string body, int status = 200);

/// A boolean query parameter as the API server reads one (Go's strconv.ParseBool: 1, t, T, TRUE,
/// true, True); absent or anything else is false. Clients differ: kubectl sends `true`, the Python
/// client `True`.
bool query_flag(const net::http_request& r, std::string_view name);

/// A URL path's segments, empty ones dropped.
std::vector<std::string> split(std::string_view path);

/// Where a REST path points.
struct target {
    std::string group, version, ns, plural, name, sub;
};

/// `/api/v1/...` or `/apis/G/V/...` after the group-version prefix (`start` is the index of the
/// first segment after it).
std::optional<target> parse_resource_path(const std::vector<std::string>& parts, std::size_t start,
                                          std::string group, std::string version);

/// The resource a request path names, whether under /api/v1 or /apis/G/V.
std::optional<target> resource_target(const std::vector<std::string>& parts);

/// The deprecated watch paths kube-apiserver still serves (`/api/v1/watch/namespaces/NS/configmaps`,
/// `/apis/G/V/watch/.../NAME`; Ruby's kubeclient watches only through them): rewrites `r` to the
/// same stream as `?watch=true`, a NAME becoming a `metadata.name` field selector as upstream's
/// handler makes it. An api_error when the request's own fieldSelector names another object;
/// nullopt when `r` is no such path or was rewritten.
std::optional<api_error> rewrite_watch_path(net::http_request& r);

/// Field selectors: `path=value`, `path==value`, `path!=value`, ANDed; values compared as text.
struct field_requirement {
    std::string path;
    std::string value;
    bool equals = true;
};

std::optional<std::vector<field_requirement>> parse_field_selector(std::string_view s);

/// A list's or watch's selection: namespace, labelSelector and fieldSelector.
struct filter {
    std::string ns; ///< "" = all namespaces
    core::label_selector labels;
    std::vector<field_requirement> fields;

    bool matches(const stored_object& o) const;
};

} // namespace hpaplus::sim
