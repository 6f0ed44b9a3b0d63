// controller/runtime/ops_server.cpp — the operations endpoint.
#include "controller/runtime/ops_server.hpp"

#include "net/http_server.hpp"

namespace hpaplus::controller {
namespace {

// Kept out of a lambda: GCC 12 cannot compile coroutine lambdas.
boost::asio::awaitable<void> handle(const ops_handlers& h, net::http_request& request,
                                    net::http_responder& responder) {
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
    } else {
        response.status = 404;
        response.body = "not found: try /healthz, /readyz or /metrics\n";
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
    auto shared = std::make_shared<ops_handlers>(std::move(handlers));
    server_ = std::make_unique<net::http_server>(
        executor, options, [shared](net::http_request& request, net::http_responder& responder) {
            return handle(*shared, request, responder);
        });
}

ops_server::~ops_server() = default;
void ops_server::start() {
    server_->start();
}
void ops_server::stop() {
    server_->stop();
}
std::string ops_server::url() const {
    return server_->url();
}

} // namespace hpaplus::controller
