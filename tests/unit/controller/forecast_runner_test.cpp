// The forecasts' thread: forecasts computed there give what forecast::forecast gives; stop()
// lets those already asked for finish and joins the thread (the process calls it at shutdown);
// a forecast asked for afterwards is computed by the caller.
#include "controller/hpaplus/forecast_runner.hpp"

#include "../../support/run_awaitable.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <thread>

namespace hpaplus::controller {
namespace {

using namespace std::chrono_literals;

// Eight cycles of a 10-minute rhythm, one sample a minute: a forecast that finds the period.
forecast::forecast_input rhythm() {
    forecast::forecast_input in;
    in.now = core::time_point(std::chrono::hours(24 * 365 * 50));
    in.step = 1min;
    in.periods = {10min};
    for (int i = 0; i < 80; ++i)
        in.history.push_back(
            {in.now - std::chrono::minutes(80 - i), 100 + 50 * std::sin(i * 2 * M_PI / 10)});
    return in;
}

void expect_same(const forecast::forecast_result& a, const forecast::forecast_result& b) {
    EXPECT_EQ(a.why, b.why);
    EXPECT_EQ(a.message, b.message);
    EXPECT_EQ(a.period, b.period);
    EXPECT_EQ(a.value, b.value);
    EXPECT_EQ(a.next_peak, b.next_peak);
}

// The io_context is made before the runner, so it outlives it: the runner's thread may still hold
// the executor of the coroutine it answered until it is joined (as the process joins it before
// its lanes' contexts go).
TEST(ForecastRunner, ComputesOnItsThreadWhatTheForecastGives) {
    boost::asio::io_context io;
    forecast_runner runner;
    EXPECT_TRUE(runner.running());
    const auto got = test::run_awaitable(io, runner.run(rhythm()));
    const auto want = forecast::forecast(rhythm());
    ASSERT_TRUE(want.period) << want.message; // the input has a rhythm to find
    expect_same(got, want);
}

TEST(ForecastRunner, StopLetsAForecastUnderWayFinishAndJoinsTheThread) {
    boost::asio::io_context io;
    forecast_runner runner;
    std::optional<forecast::forecast_result> got;
    boost::asio::co_spawn(io, runner.run(rhythm()),
                          [&](std::exception_ptr, forecast::forecast_result r) { got = r; });
    io.poll(); // asked for: the forecast is now the runner's
    runner.stop();
    EXPECT_FALSE(runner.running()) << "stop() joins the thread";
    io.restart();
    io.run_for(10s); // its answer was posted back before the thread ended
    ASSERT_TRUE(got) << "a forecast asked for before stop() still answers";
    expect_same(*got, forecast::forecast(rhythm()));
    runner.stop(); // idempotent
}

TEST(ForecastRunner, AfterStopTheCallerComputesIt) {
    boost::asio::io_context io;
    forecast_runner runner;
    runner.stop();
    const auto got = test::run_awaitable(io, runner.run(rhythm()));
    expect_same(got, forecast::forecast(rhythm()));
}

} // namespace
} // namespace hpaplus::controller
