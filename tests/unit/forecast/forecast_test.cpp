// The predictive HPAPlus's forecast (forecast/): the series the issue names — a pure sine, a daily
// square wave with noise, a weekly pattern with a quiet weekend, white noise, gaps and an outlier,
// too short a history — and bad inputs.
#include "forecast/forecast.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>

namespace hpaplus::forecast {
namespace {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

// A Monday, 00:00.
const core::time_point monday{std::chrono::hours(24 * 20000 + 24 * 4)};

// Deterministic noise in [-1, 1].
class noise {
  public:
    double next() {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(state_ >> 11) / static_cast<double>(1ULL << 53) * 2 - 1;
    }

  private:
    std::uint64_t state_ = 42;
};

// One sample every `step` from `from` (included) to `to` (excluded).
std::vector<sample> series(core::time_point from, core::time_point to, nanoseconds step,
                           const std::function<double(nanoseconds since_monday)>& f) {
    std::vector<sample> out;
    for (auto t = from; t < to; t += step)
        out.push_back({t, f(t - monday)});
    return out;
}

nanoseconds time_of_day(nanoseconds t) {
    return t % 24h;
}

double daily_sine(nanoseconds t) {
    return 100 + 50 * std::sin(2 * std::numbers::pi * static_cast<double>(t.count()) /
                               static_cast<double>(nanoseconds(24h).count()));
}

forecast_input input(std::vector<sample> history, core::time_point now, nanoseconds step,
                     std::vector<nanoseconds> periods, nanoseconds look_ahead) {
    forecast_input in;
    in.history = std::move(history);
    in.now = now;
    in.step = step;
    in.periods = std::move(periods);
    in.look_ahead = look_ahead;
    return in;
}

TEST(Forecast, APureSineHasItsPeriodAndTheForecastIsTheNextStretchOfIt) {
    const auto now = monday + 72h;
    const auto r = forecast(
        input(series(monday, now + 5min, 5min, daily_sine), now, 5min, {24h, 168h}, 30min));
    ASSERT_EQ(to_string(r.why), "") << r.message;
    ASSERT_TRUE(r.period);
    EXPECT_EQ(*r.period, 24h);
    ASSERT_EQ(r.tests.size(), 2u);
    EXPECT_TRUE(r.tests[0].found);
    EXPECT_GT(r.tests[0].autocorrelation, 0.6);
    EXPECT_FALSE(r.tests[1].enough_history) << "a week needs two weeks of history";
    EXPECT_EQ(r.cycles, 3u); // the samples at 0 h, 24 h and 48 h are at now's phase
    // The next 30 minutes of a rising sine: its value half an hour on, plus 10 %.
    EXPECT_NEAR(*r.value, 1.1 * daily_sine(30min), 0.01);
    // The crest comes a quarter period on (the crest's top 0.5 % are clamped flat: its first
    // step is named).
    ASSERT_TRUE(r.next_peak);
    EXPECT_GE(*r.next_peak - now, 5h + 45min);
    EXPECT_LE(*r.next_peak - now, 6h);
}

TEST(Forecast, ADailySquareWaveWithNoiseIsForecastBeforeItRises) {
    noise n;
    const auto load = [&](nanoseconds t) {
        const auto h = time_of_day(t);
        return (h >= 8h && h < 16h ? 100.0 : 20.0) + 5 * n.next();
    };
    const auto now = monday + 6 * 24h + 7h + 55min; // five minutes before the seventh day's rise
    const auto r =
        forecast(input(series(monday, now + 1min, 5min, load), now, 5min, {24h, 168h}, 10min));
    ASSERT_EQ(to_string(r.why), "") << r.message;
    EXPECT_EQ(*r.period, 24h);
    EXPECT_EQ(r.cycles, 6u);
    // Now it is 20; in ten minutes it will be 100: the forecast says so now.
    EXPECT_GT(*r.value, 1.1 * 95);
    EXPECT_LE(*r.value, 1.1 * 105);
    EXPECT_GE(*r.next_peak, monday + 6 * 24h + 8h);
    EXPECT_LT(*r.next_peak, monday + 6 * 24h + 16h);
}

TEST(Forecast, AWeeklyPatternWithAQuietWeekendIsForecastByTheWeek) {
    noise n;
    const auto load = [&](nanoseconds t) {
        const bool weekday = (t / 24h) % 7 < 5;
        const auto h = time_of_day(t);
        return (weekday && h >= 9h && h < 17h ? 100.0 : 20.0) + 2 * n.next();
    };
    const auto saturday = monday + 19 * 24h; // the third Saturday
    const auto now = saturday + 8h + 55min;  // when a weekday would be about to rise
    const auto r =
        forecast(input(series(monday, now + 1min, 15min, load), now, 15min, {24h, 168h}, 10min));
    ASSERT_EQ(to_string(r.why), "") << r.message;
    ASSERT_EQ(r.tests.size(), 2u);
    EXPECT_TRUE(r.tests[0].found) << "the daily rhythm is there too";
    EXPECT_TRUE(r.tests[1].found);
    EXPECT_EQ(*r.period, 168h) << "the longer period knows the weekend";
    EXPECT_LT(*r.value, 1.1 * 25) << "a Saturday stays quiet";
    // The daily period alone would have forecast a weekday's rise.
    auto daily = input(series(monday, now + 1min, 15min, load), now, 15min, {24h}, 10min);
    EXPECT_GT(*forecast(daily).value, 1.1 * 95);
    // The next peak is Monday's.
    EXPECT_GE(*r.next_peak, monday + 21 * 24h + 9h);
    EXPECT_LT(*r.next_peak, monday + 21 * 24h + 17h);
}

TEST(Forecast, APeriodFoundBeforeIsKeptWhileItsAutocorrelationConfirmsIt) {
    // A 20 s rhythm (480 for 6 s of every 20, else 80; the demo's) with 46 s of history: its
    // spectral peak is just below the highest of the shuffled copies'.
    const auto now = monday + 46s;
    auto in = input(series(monday, now + 1s, 1s,
                           [](nanoseconds t) { return (t + 10s) % 20s >= 14s ? 480.0 : 80.0; }),
                    now, 1s, {20s}, 4s);
    const auto alone = forecast(in);
    EXPECT_EQ(to_string(alone.why), "NoPeriodFound") << alone.message;
    ASSERT_EQ(alone.tests.size(), 1u);
    EXPECT_GE(alone.tests[0].autocorrelation, min_autocorrelation);
    // Found at the step before, it is kept: the forecast does not flicker.
    in.known_period = 20s;
    const auto kept = forecast(in);
    ASSERT_TRUE(kept.value) << kept.message;
    EXPECT_TRUE(kept.tests[0].kept);
    EXPECT_EQ(*kept.period, 20s);
    EXPECT_NE(kept.message.find("period 20s kept (its autocorrelation"), std::string::npos)
        << kept.message;
    // Now at second 46: the next 4 s are seconds 16 to 20 of the rhythm, 480 + 10 %.
    EXPECT_DOUBLE_EQ(*kept.value, 528);
    // Noise is not kept, however it was known.
    noise n;
    auto noisy =
        input(series(monday, now + 1s, 1s, [&](nanoseconds) { return 50 + 20 * n.next(); }), now,
              1s, {20s}, 4s);
    noisy.known_period = 20s;
    EXPECT_EQ(to_string(forecast(noisy).why), "NoPeriodFound");
}

TEST(Forecast, WhiteNoiseHasNoPeriodAndNoForecast) {
    noise n;
    const auto now = monday + 7 * 24h;
    const auto r = forecast(
        input(series(monday, now + 1min, 5min, [&](nanoseconds) { return 50 + 20 * n.next(); }),
              now, 5min, {1h, 24h}, 10min));
    EXPECT_EQ(to_string(r.why), "NoPeriodFound");
    EXPECT_FALSE(r.value);
    EXPECT_FALSE(r.period);
    EXPECT_NE(r.message.find("24h0m0s (power"), std::string::npos) << r.message;
    for (const auto& t : r.tests)
        EXPECT_FALSE(t.found);
}

TEST(Forecast, GapsAreFilledAndALoneSpikeIsNotForecastAgain) {
    std::vector<sample> history;
    for (const auto& s : series(monday, monday + 72h + 1min, 5min, daily_sine)) {
        const auto t = s.time - monday;
        if ((t >= 34h && t < 38h) || (t >= 50h && t < 51h)) continue; // two gaps
        history.push_back(s);
    }
    history.push_back({monday + 36h, 10000}); // in the first gap, at the trough's phase: a spike
    const auto now = monday + 72h + 11h + 50min;
    // (the history ends at 72h: the last 11h50m are one long gap, held flat)
    const auto r = forecast(input(history, now, 5min, {24h}, 20min));
    ASSERT_EQ(to_string(r.why), "") << r.message;
    EXPECT_EQ(*r.period, 24h);
    EXPECT_LT(*r.value, 1.1 * 151) << "the spike was clamped to the series' own range";
    EXPECT_GT(*r.value, 1.1 * 100);
}

TEST(Forecast, TooShortAHistoryIsNoForecastAndSaysWhatItNeeds) {
    const auto now = monday + 36h;
    const auto r =
        forecast(input(series(monday, now, 5min, daily_sine), now, 5min, {24h, 168h}, 10min));
    EXPECT_EQ(to_string(r.why), "TooLittleHistory");
    EXPECT_EQ(r.message, "36h0m0s of history; two cycles of the shortest period (24h0m0s) need "
                         "48h0m0s");
    EXPECT_EQ(to_string(forecast(input({}, now, 5min, {24h}, 10min)).why), "TooLittleHistory");
    // Samples after now do not count.
    EXPECT_EQ(
        to_string(
            forecast(input(series(now, now + 72h, 5min, daily_sine), now, 5min, {24h}, 10min)).why),
        "TooLittleHistory");
}

TEST(Forecast, AHistoryMostlyMissingIsNoForecast) {
    std::vector<sample> history;
    for (const auto& s : series(monday, monday + 72h, 5min, daily_sine))
        if ((s.time - monday) % 15min == 0min) history.push_back(s); // a third of the steps
    const auto r = forecast(input(history, monday + 72h, 5min, {24h}, 10min));
    EXPECT_EQ(to_string(r.why), "HistoryTooSparse") << r.message;
}

TEST(Forecast, BadInputsAreRefusedWithAReason) {
    const auto history = series(monday, monday + 72h, 5min, daily_sine);
    const auto now = monday + 72h;
    struct row {
        const char* what;
        std::function<void(forecast_input&)> change;
        const char* message;
    } rows[] = {
        {"no step", [](auto& in) { in.step = 0s; }, "the step must be above 0"},
        {"no period", [](auto& in) { in.periods.clear(); }, "no candidate period"},
        {"a period under two samples",
         [](auto& in) {
             in.periods = {24h, 9min};
         },
         "period 9m0s is shorter than two samples of 5m0s"},
        {"a negative margin", [](auto& in) { in.margin = -0.1; },
         "the margin must not be negative"},
        {"a NaN margin", [](auto& in) { in.margin = std::nan(""); },
         "the margin must not be negative"},
        {"a negative lookAhead", [](auto& in) { in.look_ahead = -1min; },
         "lookAhead must not be negative"},
        {"a period of millions of steps", [](auto& in) { in.step = 1ns; },
         "period 24h0m0s has more than 524288 steps of 1ns"},
        {"a period of years", [](auto& in) { in.periods = {24h * 401}; },
         "period 9624h0m0s is longer than 400 days"},
        {"a lookAhead of years", [](auto& in) { in.look_ahead = 24h * 401; },
         "lookAhead must not be longer than 400 days"},
    };
    for (const auto& r : rows) {
        auto in = input(history, now, 5min, {24h}, 10min);
        r.change(in);
        const auto out = forecast(in);
        EXPECT_EQ(to_string(out.why), "InvalidPrediction") << r.what;
        EXPECT_EQ(out.message, r.message) << r.what;
        EXPECT_FALSE(out.value) << r.what;
    }
}

TEST(Forecast, SamplesAtTheEndsOfTimeAndNonNumbersAreLeftOut) {
    auto history = series(monday, monday + 72h + 1min, 5min, daily_sine);
    history.push_back({core::time_point::min(), 1e300});
    history.push_back({core::time_point::max(), 1e300});
    history.push_back({monday + 12h, std::nan("")});
    history.push_back({monday + 13h, INFINITY});
    const auto r = forecast(input(history, monday + 72h, 5min, {24h}, 30min));
    ASSERT_EQ(to_string(r.why), "") << r.message;
    EXPECT_NEAR(*r.value, 1.1 * daily_sine(30min), 0.01);
    // A `now` at the start of time: nothing before it, no overflow.
    const auto early = forecast(input(history, core::time_point::min(), 5min, {24h}, 30min));
    EXPECT_EQ(to_string(early.why), "TooLittleHistory");
}

TEST(Resample, BucketsEndAtNowAndGapsAreFilledLinearly) {
    const auto now = monday + 10min;
    const std::vector<sample> history = {{monday + 1min, 10},   {monday + 2min, 20},
                                         {monday + 6min, 60},   {monday + 10min, 100},
                                         {monday + 11min, 1e9}, {monday - 5min, -1}};
    const auto g = resample(history, now, 2min, 10min);
    EXPECT_EQ(g.start, monday);
    // (0,2]: 10 and 20 → 15; (2,4] and (4,6]: 60 at 6 → (4,6] is 60, (2,4] between 15 and 60;
    // (6,8] empty → between 60 and 100; (8,10]: 100. After now and before the start: not used.
    EXPECT_EQ(g.values, (std::vector<double>{15, 37.5, 60, 80, 100}));
    EXPECT_EQ(g.known, 3u);
}

TEST(ClampOutliers, OnlyTheFarthestHalfPercentMoves) {
    std::vector<double> v(1000);
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<double>(i % 100);
    v[500] = 1e6;
    clamp_outliers(v);
    EXPECT_EQ(v[500], 99);
    EXPECT_EQ(v[1], 1);
    EXPECT_EQ(v[99], 99);
}

} // namespace
} // namespace hpaplus::forecast
