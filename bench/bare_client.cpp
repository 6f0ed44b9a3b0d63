// bench/bare_client.cpp — Beast GETs on fixed connections, one coroutine per connection.
#include "bare_client.hpp"

#include "process_stats.hpp"

#include "net/use_tuple.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <rapidjson/document.h>

namespace hpaplus::bench {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using clock = std::chrono::steady_clock;
using net::use_tuple;

struct shared_state {
    std::string host, port;
    const std::function<std::string(std::uint64_t)>* target;
    clock::time_point end;
    std::uint64_t next = 0;
    bare_result result;
};

// One GET and parse on `stream` (connected). False on any failure.
asio::awaitable<bool> get_and_parse(beast::tcp_stream& stream, shared_state& s) {
    http::request<http::empty_body> req{http::verb::get, (*s.target)(s.next++), 11};
    req.set(http::field::host, s.host);
    req.set(http::field::accept, "application/json");
    req.keep_alive(true);
    const auto started = clock::now();
    auto [wec, written] = co_await http::async_write(stream, req, use_tuple);
    if (wec) co_return false;
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    auto [rec, read] = co_await http::async_read(stream, buffer, res, use_tuple);
    if (rec || res.result_int() != 200) co_return false;
    rapidjson::Document doc;
    doc.Parse(res.body().data(), res.body().size());
    if (doc.HasParseError()) co_return false;
    s.result.latency.record(clock::now() - started);
    ++s.result.requests;
    co_return true;
}

asio::awaitable<bool> connect(beast::tcp_stream& stream, shared_state& s) {
    asio::ip::tcp::resolver resolver(stream.get_executor());
    auto [rec, endpoints] = co_await resolver.async_resolve(s.host, s.port, use_tuple);
    if (rec) co_return false;
    auto [cec, ep] = co_await stream.async_connect(endpoints, use_tuple);
    co_return !cec;
}

asio::awaitable<void> connection_loop(shared_state& s) {
    beast::tcp_stream stream(co_await asio::this_coro::executor);
    bool connected = false;
    while (clock::now() < s.end) {
        if (!connected) connected = co_await connect(stream, s);
        if (!connected) {
            ++s.result.failures;
            co_return;
        }
        const bool ok = co_await get_and_parse(stream, s);
        if (!ok) {
            ++s.result.failures;
            stream.close();
            connected = false;
        }
    }
}

// Paced: a request starts every 1/rate seconds on a connection of its own lane.
asio::awaitable<void> paced_loop(shared_state& s, clock::duration interval) {
    beast::tcp_stream stream(co_await asio::this_coro::executor);
    const bool connected = co_await connect(stream, s);
    if (!connected) {
        ++s.result.failures;
        co_return;
    }
    asio::steady_timer timer(stream.get_executor());
    auto due = clock::now();
    while (due < s.end) {
        timer.expires_at(due);
        co_await timer.async_wait(use_tuple);
        const bool ok = co_await get_and_parse(stream, s);
        if (!ok) {
            ++s.result.failures;
            co_return;
        }
        due += interval;
    }
}

bare_result finish(asio::io_context& io, shared_state& s) {
    const auto cpu_before = process_cpu();
    const auto started = clock::now();
    io.run();
    s.result.seconds = std::chrono::duration<double>(clock::now() - started).count();
    s.result.cpu_seconds = (process_cpu() - cpu_before).count();
    return s.result;
}

} // namespace

bare_result run_bare_client(const std::string& host, const std::string& port, int connections,
                            std::chrono::milliseconds duration,
                            const std::function<std::string(std::uint64_t)>& target) {
    asio::io_context io(1);
    shared_state s{host, port, &target, clock::now() + duration, 0, {}};
    for (int i = 0; i < connections; ++i)
        asio::co_spawn(io, connection_loop(s), asio::detached);
    return finish(io, s);
}

bare_result run_bare_client_paced(const std::string& host, const std::string& port, double rate,
                                  std::chrono::milliseconds duration,
                                  const std::function<std::string(std::uint64_t)>& target) {
    asio::io_context io(1);
    shared_state s{host, port, &target, clock::now() + duration, 0, {}};
    const auto interval = std::chrono::duration_cast<clock::duration>(
        std::chrono::duration<double>(1.0 / std::max(rate, 0.001)));
    asio::co_spawn(io, paced_loop(s, interval), asio::detached);
    return finish(io, s);
}

} // namespace hpaplus::bench
