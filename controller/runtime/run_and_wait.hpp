// controller/runtime/run_and_wait.hpp — runs a function on another thread's executor and waits
// for its result: how the main thread asks a lane (--threads) what it counts or tells it what to
// do. A lane never waits for the main thread, so the main thread waiting for a lane cannot
// deadlock; the lane's thread must be running.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>

#include <future>

namespace hpaplus::controller {

template <class F> auto run_and_wait(const boost::asio::any_io_executor& executor, F f) {
    std::packaged_task<decltype(f())()> task(std::move(f));
    auto result = task.get_future();
    boost::asio::post(executor, [&task] { task(); });
    return result.get();
}

} // namespace hpaplus::controller
