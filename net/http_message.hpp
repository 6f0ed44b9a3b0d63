// net/http_message.hpp — HTTP requests and responses as plain data, independent of Beast, so
// handlers (the simulated API server, the adapter) never include Beast headers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpaplus::net {

using header_list = std::vector<std::pair<std::string, std::string>>;

/// A received request; the path and query are percent-decoded, header names lower-case.
struct http_request {
    std::string method;
    std::string target; ///< as received: path?query
    std::string path;
    header_list query;
    header_list headers;
    std::string body;
    /// The client certificate chain the TLS peer presented (DER, leaf first; not verified — see
    /// net/x509_identity.hpp); empty over plain HTTP or without one.
    std::vector<std::string> peer_certificates;

    /// The header's value, or "" (names compare case-insensitively).
    std::string_view header(std::string_view name) const;
    /// The query parameter's value, or nullopt.
    std::optional<std::string_view> query_param(std::string_view name) const;
};

struct http_response {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    header_list headers;
};

/// ASCII case-insensitive equality (header names).
bool iequals(std::string_view a, std::string_view b);
/// Decodes %XX and (in queries) '+'; invalid escapes are kept literally.
std::string percent_decode(std::string_view s, bool plus_is_space);
/// Encodes everything but unreserved characters (for query values).
std::string percent_encode(std::string_view s);
/// Splits `a=1&b=2` into decoded pairs.
header_list parse_query(std::string_view query);

} // namespace hpaplus::net
