// controller/hpaplus/forecast_runner.hpp — the thread predictive HPAPlus forecasts run on, owned
// by the process (the manager makes it before the lanes and stops it at shutdown). A forecast
// over a long history at a fine step takes a second or more (2^21 steps: about 1.7 s), which no
// lane may spend away from its other objects. One thread: forecasts are once per step per object,
// and FFTW's planner is serialized anyway.
#pragma once

#include "forecast/forecast.hpp"

#include <boost/asio/awaitable.hpp>

#include <memory>

namespace hpaplus::controller {

class forecast_runner {
  public:
    forecast_runner();  ///< starts its thread
    ~forecast_runner(); ///< stops it
    forecast_runner(const forecast_runner&) = delete;
    forecast_runner& operator=(const forecast_runner&) = delete;

    /// The forecast of `in`, computed on the runner's thread; once it is stopped, on the caller's.
    /// Runs on: the caller's executor (where it resumes). Cancellation: none.
    boost::asio::awaitable<forecast::forecast_result> run(forecast::forecast_input in);

    /// Lets the forecasts already asked for finish, then joins the thread. Idempotent.
    void stop();
    /// Whether its thread still runs.
    bool running() const;

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace hpaplus::controller
