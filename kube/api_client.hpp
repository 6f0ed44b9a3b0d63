// kube/api_client.hpp — requests to the Kubernetes API server over HTTP or HTTPS: a keep-alive
// connection pool, certificate verification, bearer tokens and client certificates, per-request
// timeouts, a client-side rate limit (QPS/burst), 429 Retry-After and retries with jittered
// backoff for idempotent requests, and Status bodies decoded into error codes.
#pragma once

#include "kube/client_options.hpp"
#include "kube/config.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpaplus::kube {

/// The outcomes a caller handles (everything else is `other`).
enum class errc {
    timeout = 1,
    connection_failed,
    bad_request,            ///< 400
    unauthorized,           ///< 401
    forbidden,              ///< 403
    not_found,              ///< 404
    conflict,               ///< 409 reason Conflict
    already_exists,         ///< 409 reason AlreadyExists
    gone,                   ///< 410 (Expired / Gone)
    invalid,                ///< 422
    too_many_requests,      ///< 429 (after the retries)
    server_error,           ///< 5xx
    unsupported_media_type, ///< 415
    not_leader,             ///< a write the fence refused: this replica does not hold its Lease
    too_large,              ///< the answer's body is over client_options::max_body_bytes
    undecodable,            ///< a watch line that is not an event (the watch ended on it)
    other,
};
const boost::system::error_category& api_category() noexcept;
boost::system::error_code make_error_code(errc e) noexcept;

/// The API server's side of a failure (decoded `Status`), kept for logs and conditions.
struct api_status {
    int code = 0;
    std::string reason;
    std::string message;
    std::optional<int> retry_after_seconds;
    std::vector<std::string> causes = {}; ///< the reasons of details.causes
};

/// The server has not reached the resourceVersion asked for (504 Timeout "Too large resource
/// version"): its versions went back, so a list from scratch is the only way to be current.
bool resource_version_too_large(const api_status& status);

/// What a request is for, which decides its turn at the client's rate limit (--kube-api-qps):
/// reads and writes that decide or carry out a decision come first; status writes and Events
/// after them, never putting the bucket into debt; and those of objects that cannot act (an
/// invalid spec, a target that is not there) only when nothing else waits. A crowd of broken
/// objects then costs its own budget, not a healthy object's pace.
enum class request_class {
    decide,  ///< reads, /scale writes, evictions, leases, watches
    report,  ///< status writes and Events of objects that decided
    backlog, ///< status writes and Events of objects that cannot act
};

struct api_request {
    std::string method = "GET";
    std::string target; ///< path and query, e.g. /api/v1/namespaces/default/pods?limit=500
    std::string body;
    std::string content_type = "application/json";
    /// Extra header fields (metric backends: their own headers, basic authentication).
    std::vector<std::pair<std::string, std::string>> headers = {};
    /// false: a 429 is the server's answer to this call (an eviction a PodDisruptionBudget
    /// forbids), returned at once instead of retried as throttling.
    bool retry_throttled = true;
    /// The `namespace/name` of the object a write is made for (what a sharded replica's fence
    /// asks about); empty when the write is not tied to one object (Events).
    std::string fence_key = {};
    request_class priority = request_class::decide;
};

struct api_response {
    boost::system::error_code ec; ///< empty on 2xx
    int http_status = 0;
    std::string body;
    api_status status; ///< filled when ec is set by the server
    explicit operator bool() const noexcept { return !ec; }
    /// No answer came (timed out, or the connection failed): a write may or may not have been
    /// applied, and the server may be away.
    bool unanswered() const noexcept {
        return ec == make_error_code(errc::timeout) ||
               ec == make_error_code(errc::connection_failed);
    }
    /// What went wrong: the server's Status message, else the transport's.
    std::string message() const { return status.message.empty() ? ec.message() : status.message; }
};

class api_client {
  public:
    /// Throws std::runtime_error when the TLS material is unusable (a start-up error).
    api_client(boost::asio::any_io_executor executor, cluster_config config,
               client_options options = {});
    ~api_client();
    api_client(const api_client&) = delete;
    api_client& operator=(const api_client&) = delete;

    /// One request with rate limiting, retries and Status decoding.
    /// Runs on: the client's executor. Cancellation: none beyond the request timeout.
    /// Errors: every errc; `status` says what the server said.
    boost::asio::awaitable<api_response> send(api_request request);

    /// One watch stream on its own connection: calls `on_event(type, object_json)` for every event
    /// (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR) until the server ends the stream, the handler
    /// returns false, nothing arrives for `idle_timeout`, or the connection fails. An ERROR event
    /// with code 410 ends it with errc::gone (as does an HTTP 410).
    /// Runs on: the client's executor. Cancellation: none; bounded by `idle_timeout`.
    /// Errors: errc::gone, timeout, connection_failed, and the Status-derived codes.
    /// `on_open`, when given, is called once the server has accepted the watch (HTTP 200).
    using event_handler = std::function<bool(std::string_view type, std::string_view object_json)>;
    boost::asio::awaitable<api_response>
    watch(std::string target, event_handler on_event,
          std::chrono::milliseconds idle_timeout = std::chrono::milliseconds(60000),
          std::function<void()> on_open = {});

    /// Called after every attempt of send() with the method and the HTTP status (0 when no
    /// answer arrived), for metrics. Must be cheap; runs on the client's executor.
    using request_observer = std::function<void(const std::string& method, int http_status)>;
    void set_request_observer(request_observer observer);

    /// Asked, with the request's fence_key, right before each attempt of a write (anything but
    /// GET and HEAD) is sent, after the rate limit and the wait for a connection: false refuses it
    /// with errc::not_leader. A leader sets it so that a replica that lost (or cannot be sure of)
    /// its Lease writes nothing; a sharded replica, so that it writes only for its shards.
    using write_fence = std::function<bool(std::string_view fence_key)>;
    void set_write_fence(write_fence may_write);
    /// Closes idle connections.
    void close();

    /// Requests sent to the server (every attempt), for metrics and tests.
    std::uint64_t attempts() const;
    /// Requests that had to wait for the client-side rate limit.
    std::uint64_t throttled() const;

  private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

/// A Retry-After header's delay in seconds: digits only, at most a day; anything else (a date,
/// a negative or huge number, garbage) is no advice, and the client's own backoff applies.
std::optional<int> retry_after_seconds(std::string_view header);

/// Maps an HTTP status and the Status reason to an error code.
errc classify(int http_status, const std::string& reason);

} // namespace hpaplus::kube

namespace boost::system {
template <> struct is_error_code_enum<hpaplus::kube::errc> : std::true_type {};
} // namespace boost::system
