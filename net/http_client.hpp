// net/http_client.hpp — one HTTP(S) request on a connection of its own (no pool, no retries):
// how the simulated API server calls admission webhooks and proxies to aggregated API servers.
// The Kubernetes client is kube/api_client.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace hpaplus::net {

struct client_request {
    std::string url; ///< http://host:port/path or https://host:port/path
    std::string method = "POST";
    std::string body;
    std::string content_type = "application/json";
    std::string accept = "application/json";
    std::vector<std::pair<std::string, std::string>> headers = {}; ///< more header fields
    std::string ca_pem; ///< https: the certificate authorities to trust (empty: the system's)
    /// https: the name the server's certificate must carry (and SNI); empty = the URL's host.
    std::string server_name = {};
    bool insecure_skip_verify = false; ///< https: accept any server certificate
    std::string client_cert_pem = {};  ///< https: present this client certificate (with its key)
    std::string client_key_pem = {};
    std::chrono::milliseconds timeout{10000}; ///< for the whole exchange
};

struct client_response {
    std::string error; ///< empty when an answer arrived (whatever its status)
    int status = 0;
    std::string content_type;
    std::string body;
};

/// Runs on: `executor`. Cancellation: none; bounded by `timeout`.
/// Errors (in `error`): a bad URL, resolve/connect/TLS failures, the timeout, a malformed answer.
boost::asio::awaitable<client_response> send_once(boost::asio::any_io_executor executor,
                                                  client_request request);

} // namespace hpaplus::net
