// metrics/http_backend.cpp — requests to one Prometheus or monitor backend.
#include "metrics/http_backend.hpp"

#include "kube/api_client.hpp"
#include "kube/config.hpp"
#include "metrics/backends/backend_type.hpp"
#include "metrics/backends/json_answer.hpp"
#include "metrics/circuit_breaker.hpp"
#include "net/base64.hpp"
#include "net/http_message.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace hpaplus::metrics {
namespace asio = boost::asio;
using clock = std::chrono::steady_clock;

namespace {

std::string slurp(const std::string& path) {
    auto text = kube::read_file(path);
    if (!text) throw std::runtime_error("cannot read " + path);
    return std::move(*text);
}

kube::cluster_config cluster_for(const backend_config& b) {
    kube::cluster_config c;
    c.server = split_origin(b.url).first;
    if (!kube::split_server(c.server, c.scheme, c.host, c.port))
        throw std::runtime_error("backend \"" + b.name + "\": bad url " + c.server); // no query
    if (!b.ca_file.empty()) c.ca_pem = slurp(b.ca_file);
    c.insecure_skip_tls_verify = b.insecure_skip_tls_verify;
    c.token = b.bearer_token;
    c.token_file = b.bearer_token_file;
    c.source = "metric backend " + b.name;
    return c;
}

kube::client_options client_for(const backend_config& b) {
    kube::client_options o;
    o.request_timeout = b.timeout;
    o.connect_timeout = std::min(b.timeout, std::chrono::milliseconds(10000));
    o.qps = 1e9; // backends are protected by coalescing and the breaker, not a client-side limit
    o.burst = 1 << 30;
    o.max_retries =
        0; // a retry would double the wait on a slow backend; the next reconcile retries
    o.max_body_bytes = b.max_response_bytes;
    return o;
}

backend_answer failure(answer_kind kind, std::string error) {
    backend_answer a;
    a.kind = kind;
    a.error = std::move(error);
    return a;
}

struct flight {
    explicit flight(const asio::any_io_executor& ex) : ready(ex, clock::time_point::max()) {}
    asio::steady_timer ready; ///< cancelled when the answer is in
    std::optional<backend_answer> answer;
    clock::time_point at{};
    std::string key; ///< method, target and body: what `flights` is keyed by (a view of this)
};

// Bound on remembered answers: beyond it, answers are only shared while in flight.
constexpr std::size_t max_remembered = 100000;

} // namespace

struct http_backend::impl {
    impl(asio::any_io_executor ex, backend_config c)
        : executor(ex), config(std::move(c)), client(ex, cluster_for(config), client_for(config)),
          breaker(config.breaker), base_path(split_origin(config.url).second) {
        while (!base_path.empty() && base_path.back() == '/')
            base_path.pop_back();
        if (!config.basic_username.empty())
            headers.emplace_back(
                "Authorization",
                "Basic " + net::base64_encode(config.basic_username + ":" + config.basic_password));
        for (const auto& [k, v] : config.headers)
            headers.emplace_back(k, v);
        for (const auto& [k, v] : headers) // every header value may be a credential
            secrets.push_back(v.rfind("Basic ", 0) == 0 ? v.substr(6) : v);
        for (const std::string* s : {&config.bearer_token, &config.basic_password})
            secrets.push_back(*s);
    }

    // `text` with every credential this backend sends replaced by "[redacted]": an answer may
    // repeat them, and errors end up in logs, conditions and Events.
    std::string redact(std::string text) const {
        std::vector<std::string> all = secrets;
        if (!config.bearer_token_file.empty())
            if (auto token = kube::read_file(config.bearer_token_file)) {
                const auto end = token->find_last_not_of(" \t\r\n");
                all.push_back(token->substr(0, end == std::string::npos ? 0 : end + 1));
            }
        for (const auto& secret : all) {
            if (secret.size() < 4) continue; // too short to tell from ordinary text
            for (auto at = text.find(secret); at != std::string::npos;
                 at = text.find(secret, at + 10))
                text.replace(at, secret.size(), "[redacted]");
        }
        return text;
    }

    asio::any_io_executor executor;
    backend_config config;
    kube::api_client client;
    circuit_breaker breaker;
    std::string base_path; ///< prometheus: the path under which /api/v1/query lives
    std::vector<std::pair<std::string, std::string>> headers;
    std::vector<std::string> secrets; ///< what redact() hides: header values, token, password
    /// Keyed by a view of the flight's own key: the map holds the flight, so the view lives as
    /// long.
    std::unordered_map<std::string_view, std::shared_ptr<flight>> flights;
    /// The flights put in `flights`, oldest first, for `expire`.
    std::deque<std::weak_ptr<flight>> by_sent;
    backend_stats stats;

    core::outcome<kube::api_request> request_for(const std::string& query,
                                                 template_values values) const {
        auto r = config.type->request(config, base_path, query, std::move(values));
        if (r) r->headers = headers;
        return r;
    }

    backend_answer decode(const kube::api_response& response) const {
        if (response) {
            return config.type->read(config, response.body);
        }
        if (response.http_status == 0) {
            if (response.ec == kube::errc::too_large)
                return failure(answer_kind::unavailable,
                               "the answer is larger than maxResponseBytes (" +
                                   std::to_string(config.max_response_bytes) + " bytes)");
            return failure(answer_kind::unavailable,
                           response.ec == kube::errc::timeout
                               ? "no answer within " + seconds_text(config.timeout)
                               : response.status.message);
        }
        // An HTTP error: the backend's own words where it gives them.
        std::string said = config.type->error_text(config, response.body);
        if (said.empty()) said = json_answer::text_at(response.body, "/error");
        if (said.empty()) said = response.body.substr(0, 200);
        const std::string text =
            "HTTP " + std::to_string(response.http_status) + (said.empty() ? "" : ": " + said);
        const bool down = response.http_status >= 500 || response.http_status == 429;
        return failure(down ? answer_kind::unavailable : answer_kind::bad_answer, text);
    }

    // An answer older than the coalescing window holds memory for nothing. A few are dropped per
    // request sent: dropping them all at once (up to max_remembered) would hold the thread, as the
    // shared PodMetrics reads' sweep did. A request remembers at most one, so two drops keep up.
    void expire(clock::time_point now) {
        for (int dropped = 0; dropped < 2 && !by_sent.empty();) {
            if (const auto f = by_sent.front().lock()) {
                if (!f->answer || now - f->at <= config.coalesce) return; // the oldest is fresh
                if (const auto it = flights.find(f->key); it != flights.end() && it->second == f) {
                    flights.erase(it);
                    ++dropped;
                }
            }
            by_sent.pop_front();
        }
    }
};

http_backend::http_backend(asio::any_io_executor executor, backend_config config)
    : impl_(std::make_shared<impl>(executor, std::move(config))) {}

http_backend::~http_backend() {
    impl_->client.close();
}

const backend_config& http_backend::config() const {
    return impl_->config;
}

bool http_backend::has_history() const {
    return impl_->config.type->has_history();
}

asio::awaitable<range_answer> http_backend::query_range(std::string query, core::time_point start,
                                                        core::time_point end,
                                                        std::chrono::seconds step) {
    const auto self = impl_;
    range_answer out;
    const std::string who = "backend " + self->config.name + ": ";
    if (!self->config.type->has_history()) {
        out.error = who + "not a backend with history (range queries)";
        co_return out;
    }
    kube::api_request request =
        self->config.type->range_request(self->config, self->base_path, query, start, end, step);
    request.headers = self->headers;
    const auto response = co_await self->client.send(std::move(request));
    if (!response) {
        const std::string said = self->config.type->error_text(self->config, response.body);
        out.error =
            who + (response.http_status == 0 ? response.message()
                                             : "HTTP " + std::to_string(response.http_status) +
                                                   (said.empty() ? "" : ": " + said));
        co_return out;
    }
    out = self->config.type->read_range(response.body);
    if (!out.error.empty()) out.error = who + out.error;
    co_return out;
}

void fetch_latency::observe(std::chrono::nanoseconds took) {
    const double seconds = std::chrono::duration<double>(took).count();
    const auto at = std::lower_bound(bounds.begin(), bounds.end(), seconds);
    ++counts[static_cast<std::size_t>(at - bounds.begin())];
    ++count;
    sum += seconds;
}

void fetch_latency::add(const fetch_latency& other) {
    for (std::size_t i = 0; i < counts.size(); ++i)
        counts[i] += other.counts[i];
    count += other.count;
    sum += other.sum;
}

void backend_stats::add(const backend_stats& other) {
    sent += other.sent;
    coalesced += other.coalesced;
    short_circuited += other.short_circuited;
    failed += other.failed;
    unavailable += other.unavailable;
    bad_answers += other.bad_answers;
    latency.add(other.latency);
    // Each lane has its own breaker: the backend shows open while any lane's is.
    using state = circuit_breaker::state;
    if (breaker == state::open || other.breaker == state::open)
        breaker = state::open;
    else if (breaker == state::half_open || other.breaker == state::half_open)
        breaker = state::half_open;
}

backend_stats http_backend::stats() const {
    backend_stats s = impl_->stats;
    s.breaker = impl_->breaker.current();
    return s;
}

std::size_t http_backend::remembered() const {
    return impl_->flights.size();
}

asio::awaitable<backend_answer> http_backend::fetch(std::string query, template_values values) {
    auto self = impl_; // the backend may be destroyed while this request is out
    auto request = self->request_for(query, std::move(values));
    if (!request) co_return failure(answer_kind::bad_answer, request.error().text);
    std::string key = request->method + '\n' + request->target + '\n' + request->body;

    auto now = clock::now();
    if (const auto it = self->flights.find(key); it != self->flights.end()) {
        std::shared_ptr<flight> shared = it->second;
        if (!shared->answer) {
            ++self->stats.coalesced;
            boost::system::error_code ec;
            co_await shared->ready.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            if (shared->answer) co_return *shared->answer;
        } else if (now - shared->at <= self->config.coalesce) {
            ++self->stats.coalesced;
            co_return *shared->answer;
        }
    }
    if (!self->breaker.allow(now)) {
        ++self->stats.short_circuited;
        const auto wait =
            std::chrono::duration_cast<std::chrono::seconds>(self->breaker.retry_at() - now);
        co_return failure(answer_kind::unavailable,
                          "circuit open after " +
                              std::to_string(self->breaker.consecutive_failures()) +
                              " failures in a row; next try in " +
                              std::to_string(std::max<long long>(1, wait.count())) + "s");
    }
    self->expire(now);
    auto mine = std::make_shared<flight>(self->executor);
    mine->key = std::move(key);
    if (self->flights.size() < max_remembered) {
        // Erase before inserting: the map's key is a view of the flight it replaces.
        self->flights.erase(mine->key);
        self->flights.emplace(mine->key, mine);
        self->by_sent.emplace_back(mine);
    }

    ++self->stats.sent;
    const auto sent_at = clock::now();
    auto response = co_await self->client.send(std::move(*request));
    self->stats.latency.observe(clock::now() - sent_at);
    backend_answer answer = self->decode(response);
    if (!answer.error.empty()) answer.error = self->redact(std::move(answer.error));
    const bool backend_failed = answer.kind == answer_kind::unavailable ||
                                (response && answer.kind == answer_kind::bad_answer);
    if (backend_failed) {
        ++self->stats.failed;
        ++(answer.kind == answer_kind::unavailable ? self->stats.unavailable
                                                   : self->stats.bad_answers);
        self->breaker.record_failure(clock::now());
    } else {
        self->breaker.record_success();
    }
    mine->answer = answer;
    mine->at = clock::now();
    // Only answers worth reusing stay for the coalescing window; failures are shared in flight.
    const bool keep = self->config.coalesce.count() > 0 &&
                      (answer.kind == answer_kind::values || answer.kind == answer_kind::no_data);
    if (!keep) {
        const auto it = self->flights.find(mine->key);
        if (it != self->flights.end() && it->second == mine) self->flights.erase(it);
    }
    mine->ready.cancel();
    co_return answer;
}

http_backends make_http_backends(asio::any_io_executor executor, const backends_file& file) {
    http_backends out;
    for (const auto& b : file.backends)
        if (b.type->over_http()) out.push_back(std::make_unique<http_backend>(executor, b));
    return out;
}

http_backend* find_backend(const http_backends& backends, const std::string& name) {
    const auto it = std::find_if(backends.begin(), backends.end(),
                                 [&](const auto& b) { return b->config().name == name; });
    return it == backends.end() ? nullptr : it->get();
}

} // namespace hpaplus::metrics
