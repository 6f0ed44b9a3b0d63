// tests/support/run_awaitable.hpp — runs one awaitable on a test's io_context to completion, with
// a deadline, so a test never hangs on a coroutine that does not finish.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <optional>

namespace hpaplus::test {

/// Spawns `work` on `io` and runs `io` until it finishes or `limit` passes (a test failure,
/// returning T{}). Other work on `io` (informers, servers) runs meanwhile.
template <class T>
T run_awaitable(boost::asio::io_context& io, boost::asio::awaitable<T> work,
                std::chrono::steady_clock::duration limit = std::chrono::seconds(10)) {
    std::optional<T> out;
    boost::asio::co_spawn(io, std::move(work), [&](std::exception_ptr e, T v) {
        if (e) std::rethrow_exception(e);
        out = std::move(v);
    });
    io.restart();
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!out && !io.stopped() && std::chrono::steady_clock::now() < end)
        io.run_one_until(end);
    EXPECT_TRUE(out) << "the awaitable did not finish in time";
    return out ? std::move(*out) : T{};
}

} // namespace hpaplus::test
