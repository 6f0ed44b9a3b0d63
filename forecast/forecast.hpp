// forecast/forecast.hpp — PURE: the predictive HPAPlus's forecast of one metric from its own past.
// The series is resampled to a fixed step (gaps filled, outliers clamped); each candidate period is
// tested in the spectrum (its peak must stand above every peak of shuffled copies of the series)
// and confirmed by the autocorrelation at its lag, as Crane's DSP predictor does; the forecast over
// [now, now + lookAhead] is the highest value at the same phase in the past cycles of the longest
// period found, plus the margin. No period found, or too little history: no forecast, and why.
#pragma once

#include "core/time.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::forecast {

struct sample {
    core::time_point time;
    double value = 0;
};

struct forecast_input {
    std::vector<sample> history; ///< any order; samples after `now` are not used
    core::time_point now;
    std::chrono::nanoseconds step{std::chrono::minutes(1)}; ///< the resampling step
    std::vector<std::chrono::nanoseconds> periods;          ///< the candidate periods
    std::chrono::nanoseconds look_ahead{std::chrono::minutes(5)};
    double margin = 0.1; ///< the forecast is the past's highest value × (1 + margin)
    /// The period the previous forecast used: it is kept while its autocorrelation confirms it,
    /// even when its spectral peak is not above every shuffled copy's this time. The permutation
    /// test finds a rhythm; near two cycles of history it sits close to its threshold, and a
    /// rhythm already found must not flicker in and out pass by pass.
    std::optional<std::chrono::nanoseconds> known_period;
};

/// What the test of one candidate period found.
struct period_test {
    std::chrono::nanoseconds period{0};
    bool enough_history = false; ///< at least two cycles of it
    double power = 0;            ///< the spectrum's highest power at its frequency (± one bin)
    double threshold = 0;        ///< the highest power of any shuffled copy
    double autocorrelation = 0;  ///< at its lag
    bool found = false; ///< power > threshold and autocorrelation ≥ min_autocorrelation, or kept
    bool kept = false;  ///< found as the known period on its autocorrelation alone
};

/// Why there is no forecast.
enum class no_forecast { none, bad_input, too_little_history, history_too_sparse, no_period };
std::string_view to_string(no_forecast r); ///< the condition reason: "", "InvalidPrediction", ...

struct forecast_result {
    no_forecast why = no_forecast::none;
    std::string message; ///< says what was found, or why nothing was
    std::vector<period_test> tests;
    std::optional<std::chrono::nanoseconds> period; ///< the period forecast with
    std::optional<double> value;                    ///< the forecast, margin included
    std::optional<core::time_point> next_peak; ///< when the next cycle's highest value is expected
    std::size_t cycles = 0;                    ///< past cycles the forecast looked at
};

/// The longest period and lookAhead a forecast takes (every sum of durations stays far from
/// overflowing), and the most history steps a period may have (the work of one forecast is
/// bounded by four cycles of it).
inline constexpr std::chrono::nanoseconds max_period = std::chrono::hours(24 * 400);
inline constexpr std::int64_t max_steps_per_period = std::int64_t{1} << 19;

/// The autocorrelation a period's lag must reach to confirm its spectral peak.
inline constexpr double min_autocorrelation = 0.3;
/// Shuffled copies the spectral peak is tested against.
inline constexpr int shuffles = 20;

/// A bad input (step ≤ 0, no candidate period, a period shorter than two steps, a negative margin
/// or lookAhead) is `bad_input` with a message; nothing here throws.
forecast_result forecast(const forecast_input& in);

/// The series on a fixed grid (exposed for tests): buckets of `step` ending at `now` (the last
/// one holds `now`), each the mean of its samples; then outliers among them clamped
/// (clamp_outliers); then empty buckets filled linearly between their neighbours (held flat at
/// the ends). `known` counts buckets that had samples.
struct grid {
    core::time_point start; ///< the first bucket's start
    std::chrono::nanoseconds step{0};
    std::vector<double> values;
    std::size_t known = 0;
};
grid resample(const std::vector<sample>& history, core::time_point now,
              std::chrono::nanoseconds step, std::chrono::nanoseconds span);

/// Clamps values outside the 0.5th–99.5th percentiles to them (a lone spike does not become a
/// peak the forecast repeats; a rhythm's peak lasts longer than 0.5 % of the series).
void clamp_outliers(std::vector<double>& values);

} // namespace hpaplus::forecast
