// net/http_server.hpp — an HTTP/1.1 server on Asio coroutines over plain TCP or TLS: keep-alive,
// request size limits, idle timeouts, and chunked streaming for long responses (watches).
#pragma once

#include "net/http_message.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace hpaplus::net {

/// How a handler answers: one complete response, or a chunked stream.
/// Every call returns false once the client is gone; handlers then stop.
class http_responder {
  public:
    virtual ~http_responder() = default;
    /// Runs on: the server's executor. Cancellation: none (bounded by the write timeout).
    virtual boost::asio::awaitable<bool> send(http_response response) = 0;
    /// Starts a chunked response (status and headers).
    virtual boost::asio::awaitable<bool> begin_stream(int status, std::string content_type) = 0;
    virtual boost::asio::awaitable<bool> send_chunk(std::string_view data) = 0;
    virtual boost::asio::awaitable<bool> end_stream() = 0;
};

/// Handles one request. Runs on: the server's executor (one thread: no locking needed).
using http_handler = std::function<boost::asio::awaitable<void>(http_request&, http_responder&)>;

/// A serving certificate and key read from files, and read again every `reload_interval`: a
/// changed pair serves every new connection (a renewed certificate needs no restart); a pair
/// that does not load leaves the last good one in place.
struct tls_files {
    std::string cert_file;
    std::string key_file;
    std::chrono::milliseconds reload_interval{10000};
};

struct http_server_options {
    std::string address = "127.0.0.1";
    unsigned short port = 0; ///< 0 = any free port
    /// PEM serving certificate and key; unset = plain HTTP.
    std::optional<std::pair<std::string, std::string>> tls;
    /// Or from files, reloaded (the constructor throws when they do not load at first).
    std::optional<tls_files> tls_from_files;
    /// Asks TLS clients for a certificate (optional: the handshake never fails over it) and hands
    /// what they present to the handler unverified, in http_request::peer_certificates.
    bool request_client_certificate = false;
    /// Told of every reload ("" = the new pair serves) and every failed one (what is wrong; the
    /// last good pair keeps serving). Runs on: the server's executor.
    std::function<void(const std::string& error)> on_tls_reload;
    /// The TLS handshake and the first request's header must arrive within this long of the
    /// connection's start: a deadline, not reset by each byte (a client trickling a header line
    /// every few seconds is closed when it passes).
    std::chrono::seconds header_timeout{10};
    /// A kept-alive connection with no next request header for this long is closed; a request's
    /// body must arrive within this long of its header.
    std::chrono::seconds idle_timeout{120};
    /// Connections open at once; the next ones are accepted and closed at once (refused, not
    /// queued), so a flood of clients costs bounded memory.
    std::size_t max_connections = 1024;
    /// Largest request body accepted (413 above).
    std::size_t body_limit = 16u << 20;
    /// Bound on writing one response or chunk to a slow client.
    std::chrono::seconds write_timeout{30};
};

/// What a connection makes of `bytes` as one request, with the same parser, limits and decoding:
/// the request, or the status the server refuses it with (400 malformed or incomplete, 413 body
/// over `body_limit`, 431 headers over 8 KiB). For tests and fuzzing.
struct parsed_request {
    std::optional<http_request> request;
    int status = 0; ///< when there is no request
};
parsed_request parse_request(std::string_view bytes, std::size_t body_limit);

class http_server {
  public:
    /// Binds and listens (throws std::system_error when the address is taken: a start-up error).
    http_server(boost::asio::any_io_executor executor, http_server_options options,
                http_handler handler);
    ~http_server();
    http_server(const http_server&) = delete;
    http_server& operator=(const http_server&) = delete;

    unsigned short port() const;
    /// `http://127.0.0.1:PORT` or `https://...`.
    std::string url() const;
    /// Starts accepting. Runs on: the executor given to the constructor.
    void start();
    /// Stops accepting and closes every connection (handlers see their next write fail).
    /// Safe to call from any thread; does not block.
    void stop();
    /// Failed accepts so far (out of file descriptors: each retry after a growing pause).
    /// Safe to call from any thread.
    std::uint64_t accept_failures() const;
    /// Connections closed at once because max_connections were open.
    std::uint64_t refused_connections() const;

  private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

} // namespace hpaplus::net
