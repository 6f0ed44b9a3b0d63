// net/http_client.cpp — a single request over plain TCP or TLS (certificate and host name checked).
#include "net/http_client.hpp"

#include "net/use_tuple.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <optional>

namespace hpaplus::net {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

struct url_parts {
    bool tls = false;
    std::string host;
    std::string port;
    std::string target;
};

std::optional<url_parts> parse_url(const std::string& url) {
    url_parts u;
    std::string rest;
    if (url.rfind("https://", 0) == 0) {
        u.tls = true;
        rest = url.substr(8);
    } else if (url.rfind("http://", 0) == 0) {
        rest = url.substr(7);
    } else {
        return std::nullopt;
    }
    const auto slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    u.target = slash == std::string::npos ? "/" : rest.substr(slash);
    if (!authority.empty() && authority.front() == '[') { // [::1]:443
        const auto close = authority.find(']');
        if (close == std::string::npos) return std::nullopt;
        u.host = authority.substr(1, close - 1);
        if (close + 1 < authority.size() && authority[close + 1] == ':')
            u.port = authority.substr(close + 2);
    } else if (const auto colon = authority.rfind(':'); colon != std::string::npos) {
        u.host = authority.substr(0, colon);
        u.port = authority.substr(colon + 1);
    } else {
        u.host = authority;
    }
    if (u.port.empty()) u.port = u.tls ? "443" : "80";
    if (u.host.empty()) return std::nullopt;
    return u;
}

template <class Stream>
asio::awaitable<client_response> exchange(Stream& stream, http::request<http::string_body>& req) {
    client_response out;
    auto [wec, written] = co_await http::async_write(stream, req, use_tuple);
    if (wec) {
        out.error = "writing the request: " + wec.message();
        co_return out;
    }
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(16u << 20);
    auto [rec, read] = co_await http::async_read(stream, buffer, parser, use_tuple);
    if (rec) {
        out.error = rec == beast::error::timeout ? std::string("timed out waiting for the answer")
                                                 : "reading the answer: " + rec.message();
        co_return out;
    }
    out.status = static_cast<int>(parser.get().result_int());
    out.content_type = std::string(parser.get()[http::field::content_type]);
    out.body = std::move(parser.get().body());
    co_return out;
}

} // namespace

asio::awaitable<client_response> send_once(asio::any_io_executor executor, client_request request) {
    client_response out;
    const auto url = parse_url(request.url);
    if (!url) {
        out.error = "not an http(s) URL: " + request.url;
        co_return out;
    }
    http::request<http::string_body> req{http::string_to_verb(request.method), url->target, 11};
    req.set(http::field::host, url->host);
    req.set(http::field::content_type, request.content_type);
    req.set(http::field::accept, request.accept);
    for (const auto& [name, value] : request.headers)
        req.insert(name, value);
    req.body() = std::move(request.body);
    req.prepare_payload();

    asio::ip::tcp::resolver resolver(executor);
    auto [rec, endpoints] = co_await resolver.async_resolve(url->host, url->port, use_tuple);
    if (rec) {
        out.error = "resolving " + url->host + ": " + rec.message();
        co_return out;
    }
    beast::tcp_stream tcp(executor);
    tcp.expires_after(request.timeout); // one deadline for connect, handshake, write and read
    auto [cec, ep] = co_await tcp.async_connect(endpoints, use_tuple);
    if (cec) {
        out.error = "connecting to " + url->host + ":" + url->port + ": " +
                    (cec == beast::error::timeout ? std::string("timed out") : cec.message());
        co_return out;
    }
    if (!url->tls) co_return co_await exchange(tcp, req);

    asio::ssl::context ssl(asio::ssl::context::tls_client);
    ssl.set_verify_mode(request.insecure_skip_verify ? asio::ssl::verify_none
                                                     : asio::ssl::verify_peer);
    boost::system::error_code ec;
    if (request.ca_pem.empty())
        ssl.set_default_verify_paths(ec);
    else
        ssl.add_certificate_authority(asio::buffer(request.ca_pem), ec);
    if (ec) {
        out.error = "the CA bundle is not usable: " + ec.message();
        co_return out;
    }
    if (!request.client_cert_pem.empty()) {
        ssl.use_certificate_chain(asio::buffer(request.client_cert_pem), ec);
        if (!ec)
            ssl.use_private_key(asio::buffer(request.client_key_pem), asio::ssl::context::pem, ec);
        if (ec) {
            out.error = "the client certificate is not usable: " + ec.message();
            co_return out;
        }
    }
    const std::string& name = request.server_name.empty() ? url->host : request.server_name;
    beast::ssl_stream<beast::tcp_stream> stream(std::move(tcp), ssl);
    SSL_set_tlsext_host_name(stream.native_handle(), name.c_str());
    if (!request.insecure_skip_verify)
        stream.set_verify_callback(asio::ssl::host_name_verification(name));
    auto [hec] = co_await stream.async_handshake(asio::ssl::stream_base::client, use_tuple);
    if (hec) {
        out.error = "TLS handshake with " + url->host + ":" + url->port + ": " + hec.message();
        co_return out;
    }
    co_return co_await exchange(stream, req);
}

} // namespace hpaplus::net
