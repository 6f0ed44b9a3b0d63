// net/http_server.cpp — accept loop and per-connection sessions (after the Beast coroutine
// examples).
#include "net/http_server.hpp"

#include "net/use_tuple.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <fstream>
#include <set>
#include <stdexcept>
#include <tuple>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace hpaplus::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct http_server::impl : std::enable_shared_from_this<http_server::impl> {
    asio::any_io_executor executor;
    http_server_options options;
    http_handler handler;
    tcp::acceptor acceptor;
    /// The serving context; a reload replaces it, and live sessions keep the one they started with.
    std::shared_ptr<asio::ssl::context> ssl;
    std::string loaded_pem; ///< the certificate and key files as last read (reloads compare)
    asio::steady_timer reload_timer{executor};
    std::set<beast::tcp_stream*> open; ///< live connections, closed on stop()
    bool stopped = false;
    std::atomic<std::uint64_t> accept_failures{0};
    std::atomic<std::uint64_t> refused_connections{0};
    asio::steady_timer trim_timer{executor};
    bool trim_pending = false;

    impl(asio::any_io_executor ex, http_server_options opts, http_handler h)
        : executor(ex), options(std::move(opts)), handler(std::move(h)), acceptor(ex) {}

    asio::awaitable<void> accept_loop();
    asio::awaitable<void> reload_loop();
    template <class Stream>
    asio::awaitable<void> session(Stream stream, std::shared_ptr<asio::ssl::context> context);
    void closed(beast::tcp_stream* s);
};

// Freed connection buffers go back to the system a second after connections close (at most once a
// second): without it glibc keeps them in its arenas, and a burst of hundreds of TLS clients
// (~80 KB each) would leave the process that much larger for good.
void http_server::impl::closed(beast::tcp_stream* s) {
    open.erase(s);
    if (trim_pending || stopped) return;
    trim_pending = true;
    trim_timer.expires_after(std::chrono::seconds(1));
    trim_timer.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
        self->trim_pending = false;
#ifdef __GLIBC__
        if (!ec) ::malloc_trim(0);
#else
        (void)ec;
#endif
    });
}

namespace {

std::string der_of(X509* cert) {
    const int size = i2d_X509(cert, nullptr);
    if (size <= 0) return {};
    std::string der(static_cast<std::size_t>(size), '\0');
    auto* out = reinterpret_cast<unsigned char*>(der.data());
    i2d_X509(cert, &out);
    return der;
}

// What the TLS client presented: its certificate, then the chain it sent with it (at most 10).
std::vector<std::string> peer_chain(SSL* ssl) {
    std::vector<std::string> out;
    X509* leaf = SSL_get1_peer_certificate(ssl);
    if (!leaf) return out;
    out.push_back(der_of(leaf));
    X509_free(leaf);
    // On a server the chain does not repeat the leaf.
    if (STACK_OF(X509)* chain = SSL_get_peer_cert_chain(ssl))
        for (int i = 0; i < sk_X509_num(chain) && out.size() < 10; ++i)
            out.push_back(der_of(sk_X509_value(chain, i)));
    return out;
}

template <class Stream> class stream_responder final : public http_responder {
  public:
    stream_responder(Stream& stream, unsigned version, bool keep_alive,
                     std::chrono::seconds write_timeout)
        : stream_(stream), version_(version), keep_alive_(keep_alive),
          write_timeout_(write_timeout) {}

    bool answered() const { return answered_; }
    bool keep_alive() const { return keep_alive_ && ok_; }

    asio::awaitable<bool> send(http_response r) override {
        answered_ = true;
        http::response<http::string_body> res{static_cast<http::status>(r.status), version_};
        res.set(http::field::server, "hpaplus");
        res.set(http::field::content_type, r.content_type);
        for (const auto& [k, v] : r.headers)
            res.set(k, v);
        res.keep_alive(keep_alive_);
        res.body() = std::move(r.body);
        res.prepare_payload();
        beast::get_lowest_layer(stream_).expires_after(write_timeout_);
        auto [ec, n] = co_await http::async_write(stream_, res, use_tuple);
        ok_ = !ec;
        co_return ok_;
    }

    asio::awaitable<bool> begin_stream(int status, std::string content_type) override {
        answered_ = true;
        keep_alive_ = false; // a stream ends the connection when it is done
        header_.result(static_cast<http::status>(status));
        header_.version(version_);
        header_.set(http::field::server, "hpaplus");
        header_.set(http::field::content_type, content_type);
        header_.chunked(true);
        http::response_serializer<http::empty_body> sr{header_};
        beast::get_lowest_layer(stream_).expires_after(write_timeout_);
        auto [ec, n] = co_await http::async_write_header(stream_, sr, use_tuple);
        ok_ = !ec;
        co_return ok_;
    }

    asio::awaitable<bool> send_chunk(std::string_view data) override {
        if (!ok_) co_return false;
        if (data.empty()) co_return true; // an empty chunk would end the stream
        beast::get_lowest_layer(stream_).expires_after(write_timeout_);
        auto [ec, n] =
            co_await asio::async_write(stream_, http::make_chunk(asio::buffer(data)), use_tuple);
        ok_ = !ec;
        co_return ok_;
    }

    asio::awaitable<bool> end_stream() override {
        if (!ok_) co_return false;
        beast::get_lowest_layer(stream_).expires_after(write_timeout_);
        auto [ec, n] = co_await asio::async_write(stream_, http::make_chunk_last(), use_tuple);
        ok_ = !ec;
        co_return ok_;
    }

  private:
    Stream& stream_;
    unsigned version_;
    bool keep_alive_;
    std::chrono::seconds write_timeout_;
    bool answered_ = false;
    bool ok_ = true;
    http::response<http::empty_body> header_;
};

http_request to_request(http::request<http::string_body>&& req) {
    http_request r;
    r.method = std::string(req.method_string());
    r.target = std::string(req.target());
    const auto q = r.target.find('?');
    r.path = percent_decode(std::string_view(r.target).substr(0, q), false);
    if (q != std::string::npos) r.query = parse_query(std::string_view(r.target).substr(q + 1));
    for (const auto& field : req) {
        std::string name(field.name_string());
        for (auto& c : name)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        r.headers.emplace_back(std::move(name), std::string(field.value()));
    }
    r.body = std::move(req.body());
    return r;
}

http_response plain_error(int status, std::string message) {
    return {status, "text/plain", std::move(message) + "\n", {}};
}

} // namespace

parsed_request parse_request(std::string_view bytes, std::size_t body_limit) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(body_limit);
    parser.eager(true);
    beast::error_code ec;
    while (!ec && !parser.is_done() && !bytes.empty()) {
        const std::size_t used = parser.put(asio::buffer(bytes.data(), bytes.size()), ec);
        bytes.remove_prefix(used);
        if (ec == http::error::need_more) ec = used ? beast::error_code{} : ec;
    }
    parsed_request out;
    if (!parser.got_some()) { // nothing: a connection closed before a request
        out.status = 400;
        return out;
    }
    if (!ec && !parser.is_done()) parser.put_eof(ec);
    if (ec == http::error::body_limit)
        out.status = 413;
    else if (ec == http::error::header_limit)
        out.status = 431;
    else if (ec || !parser.is_done())
        out.status = 400;
    else
        out.request = to_request(parser.release());
    return out;
}

// After a refusal (413, 431) the client may still be sending the rest of a large request: closing
// now would reset the connection and lose the answer, so what comes is read and dropped — at most
// 64 MiB or 5 s — until the client, having read the answer, closes.
template <class Stream> asio::awaitable<void> discard_rest(Stream& stream) {
    beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(5));
    std::array<char, 16384> sink;
    for (std::size_t total = 0; total < (64u << 20);) {
        auto [ec, n] = co_await stream.async_read_some(asio::buffer(sink), use_tuple);
        if (ec) break;
        total += n;
    }
}

template <class Stream>
asio::awaitable<void> http_server::impl::session(Stream stream,
                                                 std::shared_ptr<asio::ssl::context> context) {
    (void)context; // held for as long as the session uses it
    auto self = shared_from_this();
    beast::tcp_stream& lowest = beast::get_lowest_layer(stream);
    open.insert(&lowest);
    struct unregister {
        impl* srv;
        beast::tcp_stream* s;
        ~unregister() { srv->closed(s); }
    } guard{this, &lowest};

    // The handshake and the first header within header_timeout of the start, whatever trickles in.
    lowest.expires_after(options.header_timeout);
    std::vector<std::string> peer; // the client's certificate chain, DER, leaf first
    if constexpr (!std::is_same_v<Stream, beast::tcp_stream>) {
        auto [ec] = co_await stream.async_handshake(asio::ssl::stream_base::server, use_tuple);
        if (ec) co_return;
        if (options.request_client_certificate) peer = peer_chain(stream.native_handle());
    }
    beast::flat_buffer buffer;
    for (bool first = true; !stopped; first = false) {
        http::request_parser<http::string_body> parser;
        parser.body_limit(options.body_limit);
        if (!first) lowest.expires_after(options.idle_timeout);
        auto [ec, n] = co_await http::async_read_header(stream, buffer, parser, use_tuple);
        if (!ec && !parser.is_done()) {
            lowest.expires_after(options.idle_timeout);
            std::tie(ec, n) = co_await http::async_read(stream, buffer, parser, use_tuple);
        }
        if (ec == http::error::body_limit || ec == http::error::header_limit) {
            stream_responder<Stream> r(stream, 11, false, options.write_timeout);
            // named: GCC 12 mishandles a conditional's temporary passed to co_await
            http_response refusal = ec == http::error::body_limit
                                        ? plain_error(413, "request body too large")
                                        : plain_error(431, "request header fields too large");
            co_await r.send(std::move(refusal));
            co_await discard_rest(stream);
            break;
        }
        if (ec) break;
        const unsigned version = parser.get().version();
        const bool keep_alive = parser.get().keep_alive();
        http_request request = to_request(parser.release());
        request.peer_certificates = peer;
        stream_responder<Stream> responder(stream, version, keep_alive, options.write_timeout);
        lowest.expires_never(); // the handler may stream for as long as it likes
        co_await handler(request, responder);
        if (!responder.answered()) co_await responder.send(plain_error(500, "no response"));
        if (!responder.keep_alive()) break;
    }
    beast::error_code ignored;
    lowest.socket().shutdown(tcp::socket::shutdown_both, ignored);
}

namespace {

bool out_of_resources(const boost::system::error_code& ec) {
    return ec == asio::error::no_descriptors || ec == boost::system::errc::too_many_files_open ||
           ec == boost::system::errc::too_many_files_open_in_system ||
           ec == asio::error::no_buffer_space || ec == asio::error::no_memory;
}

} // namespace

asio::awaitable<void> http_server::impl::accept_loop() {
    using namespace std::chrono_literals;
    auto self = shared_from_this();
    std::chrono::milliseconds accept_backoff{0};
    while (!stopped) {
        auto [ec, socket] = co_await acceptor.async_accept(use_tuple);
        if (ec) {
            if (ec == asio::error::operation_aborted || stopped) co_return;
            ++accept_failures;
            // Out of file descriptors or memory: the connection stays in the backlog and accept
            // would fail again at once, so wait (5 ms doubling to 1 s, as Go's net/http does)
            // while the open connections go on being served. Other failures concern one client.
            if (out_of_resources(ec)) {
                accept_backoff = std::min<std::chrono::milliseconds>(
                    std::max<std::chrono::milliseconds>(accept_backoff * 2, 5ms), 1s);
                asio::steady_timer wait(executor, accept_backoff);
                co_await wait.async_wait(use_tuple);
            }
            continue;
        }
        accept_backoff = 0ms;
        // (A session registers as open when it starts, right after this loop's next wait.)
        if (open.size() >= options.max_connections) {
            ++refused_connections;
            socket.close(ec);
            continue;
        }
        socket.set_option(tcp::no_delay(true), ec);
        if (ssl) {
            asio::co_spawn(executor,
                           session(beast::ssl_stream<beast::tcp_stream>(
                                       beast::tcp_stream(std::move(socket)), *ssl),
                                   ssl),
                           asio::detached);
        } else {
            asio::co_spawn(executor, session(beast::tcp_stream(std::move(socket)), nullptr),
                           asio::detached);
        }
    }
}

namespace {

// A TLS server context for a PEM certificate chain and key; throws what is wrong.
std::shared_ptr<asio::ssl::context> server_context(const std::string& cert_pem,
                                                   const std::string& key_pem,
                                                   bool request_client_certificate) {
    auto c = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
    if (request_client_certificate) {
        // Ask, accept whatever comes: the handler decides per request (an untrusted certificate
        // is a 401 there, as on the Kubernetes API server, not a failed handshake).
        c->set_verify_mode(asio::ssl::verify_peer);
        c->set_verify_callback([](bool, asio::ssl::verify_context&) { return true; });
    }
    c->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                   asio::ssl::context::no_tlsv1_1);
    // Idle connections give their 2 × ~17 KB record buffers back until they are used again.
    SSL_CTX_set_mode(c->native_handle(), SSL_MODE_RELEASE_BUFFERS);
    c->use_certificate_chain(asio::buffer(cert_pem));
    c->use_private_key(asio::buffer(key_pem), asio::ssl::context::pem);
    if (SSL_CTX_check_private_key(c->native_handle()) != 1)
        throw std::runtime_error("the private key does not match the certificate");
    return c;
}

// A PEM file, at most 1 MiB (certificate chains are a few KiB); nullopt when unreadable.
std::optional<std::string> read_pem(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text;
    char buffer[8192];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        text.append(buffer, static_cast<std::size_t>(in.gcount()));
        if (text.size() > (1u << 20)) return std::nullopt;
    }
    return text;
}

// Both files' text, or what is wrong.
std::pair<std::optional<std::string>, std::string> read_pair(const tls_files& files,
                                                             std::string& cert, std::string& key) {
    auto c = read_pem(files.cert_file);
    auto k = read_pem(files.key_file);
    if (!c || !k)
        return {std::nullopt,
                "cannot read " + (!c ? files.cert_file : files.key_file) + " (or over 1 MiB)"};
    cert = std::move(*c);
    key = std::move(*k);
    return {cert + '\0' + key, ""};
}

} // namespace

asio::awaitable<void> http_server::impl::reload_loop() {
    auto self = shared_from_this();
    const tls_files& files = *options.tls_from_files;
    std::string failed;     // the content that last failed to load
    std::string last_error; // reported once until something changes
    while (!stopped) {
        reload_timer.expires_after(files.reload_interval);
        auto [ec] = co_await reload_timer.async_wait(use_tuple);
        if (ec || stopped) co_return;
        std::string cert, key;
        auto [both, error] = read_pair(files, cert, key);
        if (both && (*both == loaded_pem || *both == failed)) continue;
        if (both) {
            try {
                ssl = server_context(cert, key, options.request_client_certificate);
                loaded_pem = std::move(*both);
                failed.clear();
                last_error.clear();
                if (options.on_tls_reload) options.on_tls_reload("");
                continue;
            } catch (const std::exception& e) {
                error = files.cert_file + ", " + files.key_file + ": " + e.what();
                failed = std::move(*both);
            }
        }
        if (error == last_error) continue;
        last_error = error;
        if (options.on_tls_reload) options.on_tls_reload(error);
    }
}

http_server::http_server(asio::any_io_executor executor, http_server_options options,
                         http_handler handler)
    : impl_(std::make_shared<impl>(executor, std::move(options), std::move(handler))) {
    auto& o = impl_->options;
    if (o.tls_from_files) {
        std::string cert, key;
        auto [both, error] = read_pair(*o.tls_from_files, cert, key);
        if (!both) throw std::runtime_error(error);
        impl_->ssl = server_context(cert, key, o.request_client_certificate);
        impl_->loaded_pem = std::move(*both);
    } else if (o.tls) {
        impl_->ssl = server_context(o.tls->first, o.tls->second, o.request_client_certificate);
    }
    const tcp::endpoint endpoint{asio::ip::make_address(o.address), o.port};
    impl_->acceptor.open(endpoint.protocol());
    impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
    impl_->acceptor.bind(endpoint);
    impl_->acceptor.listen(asio::socket_base::max_listen_connections);
}

http_server::~http_server() {
    stop();
}

std::uint64_t http_server::accept_failures() const {
    return impl_->accept_failures.load();
}

std::uint64_t http_server::refused_connections() const {
    return impl_->refused_connections.load();
}

unsigned short http_server::port() const {
    return impl_->acceptor.local_endpoint().port();
}

std::string http_server::url() const {
    const auto endpoint = impl_->acceptor.local_endpoint();
    const std::string host = endpoint.address().is_v6() ? "[" + endpoint.address().to_string() + "]"
                                                        : endpoint.address().to_string();
    return std::string(impl_->ssl ? "https://" : "http://") + host + ":" +
           std::to_string(endpoint.port());
}

void http_server::start() {
    asio::co_spawn(impl_->executor, impl_->accept_loop(), asio::detached);
    if (impl_->options.tls_from_files)
        asio::co_spawn(impl_->executor, impl_->reload_loop(), asio::detached);
}

void http_server::stop() {
    asio::post(impl_->executor, [self = impl_] {
        if (self->stopped) return;
        self->stopped = true;
        self->reload_timer.cancel();
        self->trim_timer.cancel();
        beast::error_code ignored;
        self->acceptor.close(ignored);
        for (beast::tcp_stream* s : self->open)
            s->socket().close(ignored);
    });
}

} // namespace hpaplus::net
