// kube/api_client.cpp — the HTTP(S) transport to the API server.
#include "kube/api_client.hpp"

#include "kube/json_decoder.hpp"
#include "net/json_parse.hpp"

#include "net/use_tuple.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <deque>
#include <random>
#include <variant>
#include <vector>

namespace hpaplus::kube {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using net::use_tuple;

namespace {

class api_error_category final : public boost::system::error_category {
  public:
    const char* name() const noexcept override { return "kube-api"; }
    std::string message(int ev) const override {
        switch (static_cast<errc>(ev)) {
        case errc::timeout:
            return "the request timed out";
        case errc::connection_failed:
            return "cannot connect to the server"; // also used for metric backends
        case errc::bad_request:
            return "bad request";
        case errc::unauthorized:
            return "unauthorized";
        case errc::forbidden:
            return "forbidden";
        case errc::not_found:
            return "not found";
        case errc::conflict:
            return "conflict: the object has been modified";
        case errc::already_exists:
            return "already exists";
        case errc::gone:
            return "gone: the resource version is too old";
        case errc::invalid:
            return "invalid";
        case errc::not_leader:
            return "not written: this replica does not hold the leader Lease";
        case errc::too_many_requests:
            return "too many requests";
        case errc::server_error:
            return "server error";
        case errc::unsupported_media_type:
            return "unsupported media type";
        case errc::too_large:
            return "the answer is larger than the client's limit";
        case errc::undecodable:
            return "a watch event that does not decode";
        case errc::other:
            return "unexpected response";
        }
        return "unknown";
    }
};

using plain_stream = beast::tcp_stream;
using tls_stream = beast::ssl_stream<beast::tcp_stream>;
using connection = std::variant<std::unique_ptr<plain_stream>, std::unique_ptr<tls_stream>>;

// Writes the request and reads the whole response (a plain coroutine: no coroutine lambdas,
// which GCC 12 miscompiles).
template <class Stream>
asio::awaitable<beast::error_code>
write_read(Stream& stream, http::request<http::string_body>& req, beast::flat_buffer& buffer,
           http::response_parser<http::string_body>& parser, bool& sent) {
    auto [wec, written] = co_await http::async_write(stream, req, use_tuple);
    if (wec) co_return wec;
    sent = true;
    auto [rec, read] = co_await http::async_read(stream, buffer, parser, use_tuple);
    co_return rec;
}

beast::tcp_stream& lowest(connection& c) {
    return std::visit([](auto& s) -> beast::tcp_stream& { return beast::get_lowest_layer(*s); }, c);
}

// An idle pooled connection the server has closed meanwhile: a request sent on it would fail after
// being written, when a write can no longer be retried. The server has nothing to say on an idle
// connection but goodbye (FIN, a reset, or TLS's close_notify), so anything readable means closed.
bool closed_by_peer(connection& c) {
    const int fd = lowest(c).socket().native_handle();
    char byte = 0;
    const auto n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

} // namespace

const boost::system::error_category& api_category() noexcept {
    static const api_error_category category;
    return category;
}

boost::system::error_code make_error_code(errc e) noexcept {
    return {static_cast<int>(e), api_category()};
}

std::optional<int> retry_after_seconds(std::string_view header) {
    while (!header.empty() && (header.front() == ' ' || header.front() == '\t'))
        header.remove_prefix(1);
    while (!header.empty() && (header.back() == ' ' || header.back() == '\t'))
        header.remove_suffix(1);
    int seconds = 0;
    const auto [end, ec] = std::from_chars(header.data(), header.data() + header.size(), seconds);
    if (header.empty() || header.front() == '-' || ec != std::errc{} ||
        end != header.data() + header.size() || seconds > 86400)
        return std::nullopt;
    return seconds;
}

namespace {

/// A `Status` object's code, reason, message, retry advice and causes.
api_status status_from(const rapidjson::Value& status) {
    api_status out;
    json_decoder d;
    const json_node root{&status, ""};
    out.code = static_cast<int>(d.opt_int(root["code"], 0, 999).value_or(0));
    out.reason = d.opt_string(root["reason"]).value_or("");
    out.message = d.opt_string(root["message"]).value_or("");
    if (auto ra = d.opt_int(root["details"]["retryAfterSeconds"], 0, 86400))
        out.retry_after_seconds = static_cast<int>(*ra);
    if (const auto* causes = root["details"]["causes"].value; causes && causes->IsArray())
        for (const auto& c : causes->GetArray())
            if (c.IsObject() && c.HasMember("reason") && c["reason"].IsString())
                out.causes.emplace_back(c["reason"].GetString(), c["reason"].GetStringLength());
    return out;
}

} // namespace

bool resource_version_too_large(const api_status& status) {
    for (const auto& c : status.causes)
        if (c == "ResourceVersionTooLarge") return true;
    // Older servers set no cause, only the message (client-go checks for both).
    return status.code == 504 &&
           status.message.find("Too large resource version") != std::string::npos;
}

errc classify(int status, const std::string& reason) {
    switch (status) {
    case 400:
        return errc::bad_request;
    case 401:
        return errc::unauthorized;
    case 403:
        return errc::forbidden;
    case 404:
        return errc::not_found;
    case 409:
        return reason == "AlreadyExists" ? errc::already_exists : errc::conflict;
    case 410:
        return errc::gone;
    case 415:
        return errc::unsupported_media_type;
    case 422:
        return errc::invalid;
    case 429:
        return errc::too_many_requests;
    case 504:
        return errc::timeout;
    default:
        return status >= 500 ? errc::server_error : errc::other;
    }
}

struct api_client::impl : std::enable_shared_from_this<api_client::impl> {
    asio::any_io_executor executor;
    cluster_config config;
    client_options options;
    std::optional<asio::ssl::context> ssl;
    std::vector<connection> idle;
    std::size_t open = 0;                                    ///< pool connections, idle or in use
    std::deque<std::shared_ptr<asio::steady_timer>> waiters; ///< requests waiting for a slot
    /// Report and backlog requests waiting for a token, in arrival order (the head of the first
    /// non-empty one watches the bucket; the others sleep until it wakes them).
    std::deque<std::shared_ptr<asio::steady_timer>> reporters, backlog;
    double tokens;
    std::chrono::steady_clock::time_point refilled = std::chrono::steady_clock::now();
    std::mt19937_64 rng{std::random_device{}()};
    std::uint64_t attempts = 0;
    api_client::request_observer observer;
    api_client::write_fence write_fence;
    std::uint64_t throttled = 0;

    impl(asio::any_io_executor ex, cluster_config c, client_options o)
        : executor(ex), config(std::move(c)), options(o), tokens(o.burst) {
        if (config.scheme != "https") return;
        ssl.emplace(asio::ssl::context::tls_client);
        if (config.insecure_skip_tls_verify) {
            ssl->set_verify_mode(asio::ssl::verify_none);
        } else {
            ssl->set_verify_mode(asio::ssl::verify_peer);
            if (config.ca_pem.empty())
                ssl->set_default_verify_paths();
            else
                ssl->add_certificate_authority(asio::buffer(config.ca_pem));
        }
        if (!config.client_cert_pem.empty()) {
            ssl->use_certificate_chain(asio::buffer(config.client_cert_pem));
            ssl->use_private_key(asio::buffer(config.client_key_pem), asio::ssl::context::pem);
        }
    }

    // Token bucket, first come first served (as client-go's limiter): each request reserves the
    // next token, the bucket going into debt, and waits until that token has been earned. A
    // request never waits behind ones that came later, so under overload requests still finish
    // in order instead of all retrying for tokens at random. qps <= 0: no limit.
    void refill() {
        const auto now = std::chrono::steady_clock::now();
        tokens = std::min<double>(options.burst,
                                  tokens + std::chrono::duration<double>(now - refilled).count() *
                                               options.qps);
        refilled = now;
    }

    asio::awaitable<void> take_token(request_class priority = request_class::decide) {
        if (options.qps <= 0) co_return;
        if (priority != request_class::decide) {
            co_await take_spare_token(priority);
            co_return;
        }
        refill();
        tokens -= 1.0;
        if (tokens >= 0) co_return;
        ++throttled;
        asio::steady_timer t(executor,
                             std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(-tokens / options.qps)));
        co_await t.async_wait(use_tuple);
    }

    // A report or backlog request's token: taken only while the bucket holds one (decide
    // requests go into debt; these never do, so they never delay one), report requests before
    // backlog ones, each class in arrival order.
    asio::awaitable<void> take_spare_token(request_class priority) {
        auto& queue = priority == request_class::report ? reporters : backlog;
        const auto my_turn = [&](const std::shared_ptr<asio::steady_timer>& me) {
            return (queue.empty() || queue.front() == me) &&
                   (priority == request_class::report || reporters.empty());
        };
        refill();
        if (my_turn(nullptr) && queue.empty() && tokens >= 1.0) {
            tokens -= 1.0;
            co_return;
        }
        ++throttled;
        auto me = std::make_shared<asio::steady_timer>(executor);
        queue.push_back(me);
        for (;;) {
            refill();
            if (my_turn(me) && tokens >= 1.0) {
                tokens -= 1.0;
                queue.pop_front();
                // The next in line watches the bucket now.
                if (!reporters.empty())
                    reporters.front()->cancel();
                else if (!backlog.empty())
                    backlog.front()->cancel();
                co_return;
            }
            if (my_turn(me))
                me->expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>((1.0 - tokens) / options.qps)));
            else
                me->expires_at(asio::steady_timer::time_point::max());
            co_await me->async_wait(use_tuple);
        }
    }

    // Waits until an idle connection or room for a new one exists.
    asio::awaitable<void> wait_for_slot() {
        while (idle.empty() && open >= std::max<std::size_t>(1, options.max_connections)) {
            auto waiter = std::make_shared<asio::steady_timer>(
                executor, asio::steady_timer::time_point::max());
            waiters.push_back(waiter);
            co_await waiter->async_wait(use_tuple);
        }
    }

    void wake_one() {
        if (waiters.empty()) return;
        waiters.front()->cancel();
        waiters.pop_front();
    }

    // A pool connection ends (failed, not reusable, or not kept): its slot is free.
    void drop_connection() {
        --open;
        wake_one();
    }

    void return_connection(connection conn) {
        if (idle.size() >= options.max_idle_connections) return drop_connection();
        idle.push_back(std::move(conn));
        wake_one();
    }

    asio::awaitable<boost::system::result<connection>> connect() {
        tcp::resolver resolver(executor);
        auto [rec, endpoints] =
            co_await resolver.async_resolve(config.host, config.port, use_tuple);
        if (rec) co_return make_error_code(errc::connection_failed);
        auto stream = std::make_unique<plain_stream>(executor);
        stream->expires_after(options.connect_timeout);
        auto [cec, ep] = co_await stream->async_connect(endpoints, use_tuple);
        if (cec)
            co_return make_error_code(cec == beast::error::timeout ? errc::timeout
                                                                   : errc::connection_failed);
        if (!ssl) co_return connection(std::move(stream));
        auto tls = std::make_unique<tls_stream>(std::move(*stream), *ssl);
        const std::string name =
            config.tls_server_name.empty() ? config.host : config.tls_server_name;
        SSL_set_tlsext_host_name(tls->native_handle(), name.c_str());
        if (!config.insecure_skip_tls_verify)
            tls->set_verify_callback(asio::ssl::host_name_verification(name));
        auto [hec] = co_await tls->async_handshake(asio::ssl::stream_base::client, use_tuple);
        if (hec) co_return make_error_code(errc::connection_failed);
        co_return connection(std::move(tls));
    }

    // One attempt on one connection. Returns the transport error, if any; `sent`: the whole
    // request was written (the server may have acted on it).
    asio::awaitable<boost::system::error_code> exchange(connection& conn, const api_request& r,
                                                        api_response& out, bool& reusable,
                                                        bool& sent) {
        http::request<http::string_body> req{http::string_to_verb(r.method), r.target, 11};
        req.set(http::field::host, config.host);
        req.set(http::field::user_agent, "hpaplus");
        req.set(http::field::accept, "application/json");
        if (const std::string& token = current_token(config); !token.empty())
            req.set(http::field::authorization, "Bearer " + token);
        for (const auto& [field, value] : r.headers)
            req.set(field, value);
        if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH") {
            req.set(http::field::content_type, r.content_type);
            req.body() = r.body;
        }
        req.keep_alive(true);
        req.prepare_payload();
        lowest(conn).expires_after(options.request_timeout);
        beast::flat_buffer buffer;
        http::response_parser<http::string_body> parser;
        parser.body_limit(options.max_body_bytes);
        beast::error_code ec;
        if (auto* plain = std::get_if<std::unique_ptr<plain_stream>>(&conn)) {
            ec = co_await write_read(**plain, req, buffer, parser, sent);
        } else {
            ec = co_await write_read(*std::get<std::unique_ptr<tls_stream>>(conn), req, buffer,
                                     parser, sent);
        }
        if (ec) co_return ec;
        auto res = parser.release();
        out.http_status = static_cast<int>(res.result_int());
        if (out.http_status == 401) config.token_read_at = {}; // maybe rotated: read it again
        out.body = std::move(res.body());
        reusable = res.keep_alive();
        if (const auto ra = res.find(http::field::retry_after); ra != res.end())
            out.status.retry_after_seconds = retry_after_seconds(ra->value());
        co_return beast::error_code{};
    }

    void decode_status(api_response& out) {
        rapidjson::Document doc;
        if (!parse_json(doc, out.body, "") && doc.IsObject()) out.status = status_from(doc);
        out.status.code = out.http_status;
        if (out.status.message.empty())
            out.status.message = "HTTP " + std::to_string(out.http_status);
        out.ec = make_error_code(classify(out.http_status, out.status.reason));
    }

    std::chrono::milliseconds backoff(int attempt) {
        const auto base = options.backoff_base.count() << std::min(attempt, 6);
        std::uniform_int_distribution<long long> jitter(0, base / 2);
        return std::chrono::milliseconds(base + jitter(rng));
    }

    asio::awaitable<api_response> send(api_request r) {
        auto self = shared_from_this();
        const bool idempotent = r.method == "GET" || r.method == "HEAD";
        api_response out;
        for (int attempt = 0;; ++attempt) {
            co_await take_token(r.priority);
            co_await wait_for_slot();
            out = api_response{};
            if (!idempotent && write_fence && !write_fence(r.fence_key)) {
                out.ec = make_error_code(errc::not_leader);
                out.status.message = out.ec.message();
                co_return out;
            }
            ++attempts;
            connection conn;
            while (!idle.empty() && closed_by_peer(idle.back())) {
                idle.pop_back();
                drop_connection();
            }
            bool from_pool = !idle.empty();
            if (from_pool) {
                conn = std::move(idle.back());
                idle.pop_back();
            } else {
                ++open;
                auto fresh = co_await connect();
                if (!fresh) {
                    drop_connection();
                    if (observer) observer(r.method, 0);
                    out.ec = fresh.error();
                    out.status.message = out.ec.message() + " (" + config.server + ")";
                    if (attempt < options.max_retries) {
                        asio::steady_timer t(executor, backoff(attempt));
                        co_await t.async_wait(use_tuple);
                        continue;
                    }
                    co_return out;
                }
                conn = std::move(*fresh);
            }
            bool reusable = false;
            bool sent = false;
            const auto ec = co_await exchange(conn, r, out, reusable, sent);
            if (observer) observer(r.method, ec ? 0 : out.http_status);
            if (ec) {
                drop_connection();
                // A write that reached the server may have been applied: never sent twice blindly
                // (the caller reads the object again and decides).
                const bool maybe_applied = sent && !idempotent;
                // A pooled connection the server closed meanwhile: try again on a new one at once.
                if (from_pool && !maybe_applied && attempt <= options.max_retries &&
                    ec != http::error::body_limit)
                    continue;
                out.ec = make_error_code(ec == beast::error::timeout     ? errc::timeout
                                         : ec == http::error::body_limit ? errc::too_large
                                                                         : errc::connection_failed);
                out.status.message = out.ec.message() + ": " + ec.message();
                if (maybe_applied)
                    out.status.message += " (the " + r.method + " may have been applied)";
                // A timeout or an answer over the limit would only come again.
                if (!maybe_applied && (idempotent || out.ec == errc::connection_failed) &&
                    attempt < options.max_retries && out.ec != errc::timeout &&
                    out.ec != errc::too_large) {
                    asio::steady_timer t(executor, backoff(attempt));
                    co_await t.async_wait(use_tuple);
                    continue;
                }
                co_return out;
            }
            if (reusable)
                return_connection(std::move(conn));
            else
                drop_connection();
            if (out.http_status >= 200 && out.http_status < 300) co_return out;
            decode_status(out);
            const bool throttled = out.http_status == 429 && r.retry_throttled;
            const bool retry_5xx = idempotent && out.http_status >= 500 && out.http_status != 501;
            if ((throttled || retry_5xx) && attempt < options.max_retries) {
                auto wait = backoff(attempt);
                if (out.status.retry_after_seconds)
                    wait = std::min(options.max_retry_after,
                                    std::chrono::milliseconds(
                                        std::chrono::seconds(*out.status.retry_after_seconds)));
                asio::steady_timer t(executor, wait);
                co_await t.async_wait(use_tuple);
                continue;
            }
            co_return out;
        }
    }
};

namespace {

// Reads a chunked watch body incrementally and hands out complete lines.
template <class Stream>
asio::awaitable<beast::error_code> stream_lines(
    Stream& stream, beast::flat_buffer& buffer, http::response_parser<http::string_body>& parser,
    std::chrono::milliseconds idle_timeout, const std::function<bool(std::string_view)>& on_line) {
    std::string pending;
    while (!parser.is_done()) {
        beast::get_lowest_layer(stream).expires_after(idle_timeout);
        auto [ec, n] = co_await http::async_read_some(stream, buffer, parser, use_tuple);
        if (ec) co_return ec;
        pending += parser.get().body();
        parser.get().body().clear();
        std::size_t start = 0, nl;
        while ((nl = pending.find('\n', start)) != std::string::npos) {
            if (nl > start && !on_line(std::string_view(pending).substr(start, nl - start)))
                co_return beast::error_code{};
            start = nl + 1;
        }
        pending.erase(0, start);
    }
    if (!pending.empty()) on_line(pending);
    co_return beast::error_code{};
}

template <class Stream>
asio::awaitable<beast::error_code>
write_and_read_header(Stream& stream, http::request<http::string_body>& req,
                      beast::flat_buffer& buffer,
                      http::response_parser<http::string_body>& parser) {
    auto [wec, written] = co_await http::async_write(stream, req, use_tuple);
    if (wec) co_return wec;
    auto [rec, read] = co_await http::async_read_header(stream, buffer, parser, use_tuple);
    co_return rec;
}

template <class Stream>
asio::awaitable<void> read_rest(Stream& stream, beast::flat_buffer& buffer,
                                http::response_parser<http::string_body>& parser) {
    auto [ec, n] = co_await http::async_read(stream, buffer, parser, use_tuple);
    (void)ec;
}

} // namespace

asio::awaitable<api_response> api_client::watch(std::string target, event_handler on_event,
                                                std::chrono::milliseconds idle_timeout,
                                                std::function<void()> on_open) {
    auto self = impl_;
    api_response out;
    co_await self->take_token();
    ++self->attempts;
    auto conn = co_await self->connect();
    if (!conn) {
        out.ec = conn.error();
        out.status.message = out.ec.message() + " (" + self->config.server + ")";
        co_return out;
    }
    http::request<http::string_body> req{http::verb::get, target, 11};
    req.set(http::field::host, self->config.host);
    req.set(http::field::user_agent, "hpaplus");
    req.set(http::field::accept, "application/json");
    if (const std::string token = current_token(self->config); !token.empty())
        req.set(http::field::authorization, "Bearer " + token);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(boost::none); // a watch may run for hours
    lowest(*conn).expires_after(self->options.request_timeout);
    beast::error_code ec;
    auto* plain = std::get_if<std::unique_ptr<plain_stream>>(&*conn);
    tls_stream* tls = plain ? nullptr : std::get<std::unique_ptr<tls_stream>>(*conn).get();
    if (plain)
        ec = co_await write_and_read_header(**plain, req, buffer, parser);
    else
        ec = co_await write_and_read_header(*tls, req, buffer, parser);
    if (ec) {
        out.ec =
            make_error_code(ec == beast::error::timeout ? errc::timeout : errc::connection_failed);
        out.status.message = out.ec.message() + ": " + ec.message();
        co_return out;
    }
    out.http_status = static_cast<int>(parser.get().result_int());
    if (out.http_status != 200) { // a refused watch (HTTP 410, 403, ...) carries a Status
        if (plain)
            co_await read_rest(**plain, buffer, parser);
        else
            co_await read_rest(*tls, buffer, parser);
        out.body = parser.get().body();
        self->decode_status(out);
        co_return out;
    }
    if (on_open) on_open();
    std::optional<api_status> ended; // an ERROR event: the server ended the watch with a Status
    std::string garbled;             // why a line could not be read as an event
    const std::function<bool(std::string_view)> on_line = [&](std::string_view line) {
        rapidjson::Document doc;
        const std::string bad = net::parse_json(doc, line);
        if (!bad.empty() || !doc.IsObject() || !doc.HasMember("type") || !doc["type"].IsString() ||
            !doc.HasMember("object") || !doc["object"].IsObject()) {
            // As client-go's watch does on a decode error: end the watch (errc::undecodable). The
            // caller lists again (or resumes from the last event it applied), so what this line
            // was (a DELETED, say) is not lost; skipping it let later events move the version past
            // it for good.
            garbled = bad.empty() ? "not a watch event (type and object)" : bad;
            return false;
        }
        const std::string_view type(doc["type"].GetString(), doc["type"].GetStringLength());
        const rapidjson::Value& object = doc["object"];
        if (type == "ERROR") {
            ended = object.IsObject() ? status_from(object) : api_status{};
            if (ended->message.empty()) ended->message = "the watch ended with an ERROR event";
            return false;
        }
        rapidjson::StringBuffer text;
        rapidjson::Writer<rapidjson::StringBuffer> writer(text);
        object.Accept(writer);
        return on_event(type, std::string_view(text.GetString(), text.GetSize()));
    };
    if (plain)
        ec = co_await stream_lines(**plain, buffer, parser, idle_timeout, on_line);
    else
        ec = co_await stream_lines(*tls, buffer, parser, idle_timeout, on_line);
    if (ended) {
        out.status = std::move(*ended);
        out.ec = make_error_code(classify(out.status.code, out.status.reason));
    } else if (!garbled.empty()) {
        out.ec = make_error_code(errc::undecodable);
        out.status.message = "the watch sent an event that does not decode (" + garbled + ")";
    } else if (ec && ec != http::error::end_of_stream) {
        out.ec =
            make_error_code(ec == beast::error::timeout ? errc::timeout : errc::connection_failed);
        out.status.message = "the watch stream ended: " + ec.message();
    }
    co_return out;
}

api_client::api_client(asio::any_io_executor executor, cluster_config config,
                       client_options options)
    : impl_(std::make_shared<impl>(executor, std::move(config), options)) {}

api_client::~api_client() = default;

asio::awaitable<api_response> api_client::send(api_request request) {
    return impl_->send(std::move(request));
}

void api_client::set_request_observer(request_observer observer) {
    impl_->observer = std::move(observer);
}

void api_client::set_write_fence(write_fence may_write) {
    impl_->write_fence = std::move(may_write);
}

void api_client::close() {
    impl_->open -= impl_->idle.size();
    impl_->idle.clear();
}

std::uint64_t api_client::attempts() const {
    return impl_->attempts;
}

std::uint64_t api_client::throttled() const {
    return impl_->throttled;
}

} // namespace hpaplus::kube
