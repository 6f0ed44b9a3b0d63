// controller/runtime/ops_server.cpp — the operations endpoint.
#include "controller/runtime/ops_server.hpp"

#include "controller/runtime/debug_snapshots.hpp"
#include "core/names.hpp"
#include "net/http_server.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <charconv>

namespace hpaplus::controller {
namespace {

constexpr std::string_view debug_objects = "/debug/objects/";

// /debug/objects/NAMESPACE/NAME[?kind=HPAPlus|HorizontalPodAutoscaler][&timeout=SECONDS]: waits
// for the object's next pass (on this replica) and answers the input it decided from.
boost::asio::awaitable<net::http_response> debug_object(debug_snapshots& board,
                                                        const std::atomic<bool>& stopping,
                                                        const net::http_request& request) {
    net::http_response response;
    response.content_type = "text/plain; charset=utf-8";
    const std::string_view rest = std::string_view(request.path).substr(debug_objects.size());
    const auto slash = rest.find('/');
    const std::string_view ns = rest.substr(0, slash);
    const std::string_view name = slash == rest.npos ? "" : rest.substr(slash + 1);
    const std::string_view kind = request.query_param("kind").value_or("");
    const std::string_view wait = request.query_param("timeout").value_or("60");
    int seconds = 0;
    const auto parsed = std::from_chars(wait.data(), wait.data() + wait.size(), seconds);
    if (!core::is_dns1123_label(ns) || !core::is_dns1123_subdomain(name)) {
        response.status = 400;
        response.body = "want /debug/objects/NAMESPACE/NAME\n";
    } else if (!kind.empty() && kind != "HPAPlus" && kind != "HorizontalPodAutoscaler") {
        response.status = 400;
        response.body = "kind: want HPAPlus or HorizontalPodAutoscaler\n";
    } else if (parsed.ec != std::errc() || parsed.ptr != wait.data() + wait.size() || seconds < 1 ||
               seconds > 600) {
        response.status = 400;
        response.body = "timeout: want whole seconds from 1 to 600\n";
    }
    if (response.status != 200) co_return response;
    const std::uint64_t ticket = board.ask(std::string(kind), std::string(ns), std::string(name));
    if (ticket == 0) {
        response.status = 429;
        response.body = "too many requests wait for a pass already; try again later\n";
        co_return response;
    }
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < deadline && !stopping) {
        if (auto answer = board.take(ticket)) {
            response.content_type = "application/json";
            response.body = std::move(*answer);
            co_return response;
        }
        timer.expires_after(std::chrono::milliseconds(50));
        co_await timer.async_wait(boost::asio::use_awaitable);
    }
    board.cancel(ticket);
    response.status = 504;
    response.body = "no pass of " + std::string(ns) + "/" + std::string(name) + " within " +
                    std::to_string(seconds) +
                    "s on this replica: is the object there, with a period shorter than that, "
                    "and run by this replica (the leader, or the holder of its shard)?\n";
    co_return response;
}

// Kept out of a lambda: GCC 12 cannot compile coroutine lambdas.
} // namespace

struct ops_server::state {
    ops_handlers h;
    std::atomic<bool> stopping{false}; ///< a /debug/objects request waits no more
};

namespace {

boost::asio::awaitable<void> handle(const ops_server::state& state, net::http_request& request,
                                    net::http_responder& responder) {
    const ops_handlers& h = state.h;
    net::http_response response;
    response.content_type = "text/plain; charset=utf-8";
    if (request.method != "GET" && request.method != "HEAD") {
        response.status = 405;
        response.body = "method not allowed\n";
    } else if (request.path == "/healthz" || request.path == "/livez") {
        response.body = "ok\n";
    } else if (request.path == "/readyz") {
        const std::string why = h.not_ready ? h.not_ready() : "starting";
        response.status = why.empty() ? 200 : 503;
        response.body = why.empty() ? "ok\n" : "not ready: " + why + "\n";
    } else if (request.path == "/metrics") {
        response.content_type = "text/plain; version=0.0.4; charset=utf-8";
        response.body = h.metrics ? h.metrics() : std::string();
    } else if (h.snapshots && request.path.starts_with(debug_objects)) {
        response = co_await debug_object(*h.snapshots, state.stopping, request);
    } else {
        response.status = 404;
        response.body = "not found: try /healthz, /readyz, /metrics or "
                        "/debug/objects/NAMESPACE/NAME\n";
    }
    co_await responder.send(std::move(response));
}

} // namespace

ops_server::ops_server(boost::asio::any_io_executor executor, const std::string& address,
                       unsigned short port, ops_handlers handlers) {
    net::http_server_options options;
    options.address = address;
    options.port = port;
    options.idle_timeout = std::chrono::seconds(60);
    options.body_limit = 4096;
    state_ = std::make_shared<state>();
    state_->h = std::move(handlers);
    server_ = std::make_unique<net::http_server>(
        executor, options,
        [shared = state_](net::http_request& request, net::http_responder& responder) {
            return handle(*shared, request, responder);
        });
}

ops_server::~ops_server() = default;
void ops_server::start() {
    server_->start();
}
void ops_server::stop() {
    state_->stopping = true;
    server_->stop();
}
std::string ops_server::url() const {
    return server_->url();
}

} // namespace hpaplus::controller
