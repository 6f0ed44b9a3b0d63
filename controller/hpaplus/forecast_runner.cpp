// controller/hpaplus/forecast_runner.cpp — one thread for forecasts, started and joined by its
// owner.
#include "controller/hpaplus/forecast_runner.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <optional>
#include <thread>

namespace hpaplus::controller {
namespace asio = boost::asio;

struct forecast_runner::impl {
    asio::io_context io{1};
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work{
        asio::make_work_guard(io)};
    std::thread thread{[this] { io.run(); }};
    std::atomic<bool> stopped{false};
};

namespace {

asio::awaitable<forecast::forecast_result> forecast_of(forecast::forecast_input in) {
    co_return forecast::forecast(in);
}

} // namespace

forecast_runner::forecast_runner() : impl_(std::make_unique<impl>()) {}

forecast_runner::~forecast_runner() {
    stop();
}

asio::awaitable<forecast::forecast_result> forecast_runner::run(forecast::forecast_input in) {
    // Stopped (at shutdown, after the lanes drained): a pass still under way computes its own.
    if (impl_->stopped) co_return forecast::forecast(in);
    co_return co_await asio::co_spawn(impl_->io, forecast_of(std::move(in)), asio::use_awaitable);
}

void forecast_runner::stop() {
    if (impl_->stopped.exchange(true)) return;
    impl_->work.reset(); // io.run() returns once the forecasts asked for are done
    impl_->thread.join();
}

bool forecast_runner::running() const {
    return impl_->thread.joinable();
}

} // namespace hpaplus::controller
