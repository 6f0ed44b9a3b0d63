// forecast/forecast.cpp — resampling, the period tests (FFTW's spectrum, shuffled copies,
// autocorrelation) and the same-phase forecast.
#include "forecast/forecast.hpp"

#include "core/duration.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <numeric>

namespace hpaplus::forecast {
namespace {

using std::chrono::nanoseconds;

// Bounds the work and memory of one forecast (a week at one-second steps is 604,800).
constexpr std::size_t max_buckets = std::size_t{1} << 21;
// How many cycles of the longest candidate period are looked at.
constexpr std::int64_t max_cycles = 4;
static_assert(max_steps_per_period * max_cycles == static_cast<std::int64_t>(max_buckets));

// FFTW's planner (plan creation and destruction) is not thread-safe; fftw_execute is.
std::mutex& planner() {
    static std::mutex m;
    return m;
}

// FFTW's arrays and plan for a real input of n points.
class spectrum {
  public:
    explicit spectrum(std::size_t n)
        : n_(n), in_(fftw_alloc_real(n)), out_(fftw_alloc_complex(n / 2 + 1)) {
        const std::lock_guard lock(planner());
        plan_ = fftw_plan_dft_r2c_1d(static_cast<int>(n), in_, out_, FFTW_ESTIMATE);
    }
    ~spectrum() {
        {
            const std::lock_guard lock(planner());
            fftw_destroy_plan(plan_);
        }
        fftw_free(in_);
        fftw_free(out_);
    }
    spectrum(const spectrum&) = delete;
    spectrum& operator=(const spectrum&) = delete;

    /// |X_k|² / n for k = 0 … n/2.
    const std::vector<double>& power(const std::vector<double>& x) {
        std::copy(x.begin(), x.end(), in_);
        fftw_execute(plan_);
        power_.resize(n_ / 2 + 1);
        for (std::size_t k = 0; k < power_.size(); ++k)
            power_[k] =
                (out_[k][0] * out_[k][0] + out_[k][1] * out_[k][1]) / static_cast<double>(n_);
        return power_;
    }

  private:
    std::size_t n_;
    double* in_;
    fftw_complex* out_;
    fftw_plan plan_;
    std::vector<double> power_;
};

// splitmix64: the shuffles are the same on every machine and every run.
class random_bits {
  public:
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }

  private:
    std::uint64_t state_ = 0x5eed;
};

double autocorrelation(const std::vector<double>& x, std::size_t lag) {
    double top = 0, bottom = 0;
    for (std::size_t t = 0; t < x.size(); ++t) {
        bottom += x[t] * x[t];
        if (t + lag < x.size()) top += x[t] * x[t + lag];
    }
    return bottom > 0 ? top / bottom : 0;
}

std::int64_t steps_in(nanoseconds d, nanoseconds step) {
    return static_cast<std::int64_t>(
        std::llround(static_cast<double>(d.count()) / static_cast<double>(step.count())));
}

// `t − d`, or the earliest time there is (a hostile `now` near the ends of time).
core::time_point before(core::time_point t, nanoseconds d) {
    const auto earliest = core::time_point::min();
    const auto room = static_cast<std::uint64_t>(t.time_since_epoch().count()) -
                      static_cast<std::uint64_t>(earliest.time_since_epoch().count());
    return room > static_cast<std::uint64_t>(d.count()) ? t - d : earliest;
}

std::optional<std::string> validate(const forecast_input& in) {
    if (in.step.count() <= 0) return "the step must be above 0";
    if (in.periods.empty()) return "no candidate period";
    for (const auto p : in.periods) {
        if (p > max_period)
            return "period " + core::format_go_duration(p) + " is longer than 400 days";
        if (p < 2 * in.step)
            return "period " + core::format_go_duration(p) + " is shorter than two samples of " +
                   core::format_go_duration(in.step);
    }
    if (in.look_ahead > max_period) return "lookAhead must not be longer than 400 days";
    if (!(in.margin >= 0)) return "the margin must not be negative";
    if (in.look_ahead.count() < 0) return "lookAhead must not be negative";
    const auto longest = *std::max_element(in.periods.begin(), in.periods.end());
    if (longest / in.step > max_steps_per_period)
        return "period " + core::format_go_duration(longest) + " has more than " +
               std::to_string(max_steps_per_period) + " steps of " +
               core::format_go_duration(in.step);
    return std::nullopt;
}

} // namespace

std::string_view to_string(no_forecast r) {
    switch (r) {
    case no_forecast::none:
        return "";
    case no_forecast::bad_input:
        return "InvalidPrediction";
    case no_forecast::too_little_history:
        return "TooLittleHistory";
    case no_forecast::history_too_sparse:
        return "HistoryTooSparse";
    case no_forecast::no_period:
        return "NoPeriodFound";
    }
    return "";
}

grid resample(const std::vector<sample>& history, core::time_point now, nanoseconds step,
              nanoseconds span) {
    grid g;
    g.step = step;
    const auto m =
        static_cast<std::size_t>(std::max<std::int64_t>(1, (span + step - nanoseconds(1)) / step));
    g.start = before(now, static_cast<std::int64_t>(m) * step);
    std::vector<double> sum(m, 0);
    std::vector<std::uint32_t> count(m, 0);
    for (const auto& s : history) {
        if (s.time > now || s.time <= g.start || !std::isfinite(s.value)) continue;
        // Bucket i holds (now − (m−i)·step, now − (m−1−i)·step].
        const auto back = static_cast<std::size_t>((now - s.time) / step);
        if (back >= m) continue; // g.start was clamped at the start of time
        const std::size_t i = m - 1 - back;
        sum[i] += s.value;
        ++count[i];
    }
    // Outliers first, among the buckets with samples: a spike in a gap would otherwise become the
    // end of two long filled slopes.
    std::vector<double> known;
    for (std::size_t i = 0; i < m; ++i)
        if (count[i] > 0) known.push_back(sum[i] / count[i]);
    clamp_outliers(known);
    g.known = known.size();
    g.values.assign(m, 0);
    std::optional<std::size_t> last; // the last bucket with samples
    for (std::size_t i = 0, k = 0; i < m; ++i) {
        if (count[i] == 0) continue;
        g.values[i] = known[k++];
        const std::size_t from = last ? *last + 1 : 0;
        for (std::size_t j = from; j < i; ++j) // the gap before: flat at the start, else linear
            g.values[j] = last ? g.values[*last] + (g.values[i] - g.values[*last]) *
                                                       static_cast<double>(j - *last) /
                                                       static_cast<double>(i - *last)
                               : g.values[i];
        last = i;
    }
    if (last)
        for (std::size_t j = *last + 1; j < m; ++j)
            g.values[j] = g.values[*last];
    return g;
}

void clamp_outliers(std::vector<double>& values) {
    if (values.size() < 4) return;
    std::vector<double> sorted = values;
    const auto at = [&](double q) {
        const auto k = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1));
        std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k),
                         sorted.end());
        return sorted[k];
    };
    const double low = at(0.005);
    const double high = at(0.995);
    for (auto& v : values)
        v = std::clamp(v, low, high);
}

forecast_result forecast(const forecast_input& in) {
    forecast_result r;
    if (auto bad = validate(in)) {
        r.why = no_forecast::bad_input;
        r.message = *bad;
        return r;
    }
    const auto shortest = *std::min_element(in.periods.begin(), in.periods.end());
    const auto longest = *std::max_element(in.periods.begin(), in.periods.end());
    // Older samples are not looked at (and would overflow `now − earliest`).
    const core::time_point oldest = before(in.now, max_cycles * longest);
    std::optional<core::time_point> earliest;
    for (const auto& s : in.history)
        if (s.time <= in.now && s.time >= oldest && std::isfinite(s.value) &&
            (!earliest || s.time < *earliest))
            earliest = s.time;
    const nanoseconds have = earliest ? in.now - *earliest : nanoseconds(0);
    if (have < 2 * shortest) {
        r.why = no_forecast::too_little_history;
        r.message =
            core::format_go_duration(have) + " of history; two cycles of the shortest period (" +
            core::format_go_duration(shortest) + ") need " + core::format_go_duration(2 * shortest);
        return r;
    }
    // One step more than `have`: the earliest sample's bucket.
    grid g = resample(in.history, in.now, in.step, std::min(have + in.step, max_cycles * longest));
    const std::size_t n = g.values.size();
    if (g.known * 2 < n) {
        r.why = no_forecast::history_too_sparse;
        r.message = "only " + std::to_string(g.known) + " of the " + std::to_string(n) +
                    " steps of " + core::format_go_duration(in.step) +
                    " have samples (at least half must)";
        return r;
    }
    std::vector<double> x = g.values;
    const double mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(n);
    for (auto& v : x)
        v -= mean;

    spectrum fft(n);
    const std::vector<double> power = fft.power(x);
    double threshold = 0;
    std::vector<double> shuffled = x;
    random_bits bits;
    for (int s = 0; s < shuffles; ++s) {
        for (std::size_t i = n - 1; i > 0; --i)
            std::swap(shuffled[i], shuffled[bits.next() % (i + 1)]);
        const auto& p = fft.power(shuffled);
        threshold = std::max(threshold, *std::max_element(p.begin() + 1, p.end()));
    }
    for (const auto period : in.periods) {
        period_test t;
        t.period = period;
        t.threshold = threshold;
        const auto lag = steps_in(period, in.step);
        t.enough_history = static_cast<std::size_t>(2 * lag) <= n;
        if (t.enough_history) {
            const double k = static_cast<double>(n) / static_cast<double>(lag);
            const auto first =
                std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(k)) - 1);
            const auto last = std::min<std::int64_t>(static_cast<std::int64_t>(n / 2),
                                                     static_cast<std::int64_t>(std::ceil(k)) + 1);
            for (auto b = first; b <= last; ++b)
                t.power = std::max(t.power, power[static_cast<std::size_t>(b)]);
            t.autocorrelation = autocorrelation(x, static_cast<std::size_t>(lag));
            const bool confirmed = t.autocorrelation >= min_autocorrelation;
            t.found = t.power > threshold && confirmed;
            t.kept = !t.found && confirmed && in.known_period == period;
            t.found = t.found || t.kept;
        }
        if (t.found && (!r.period || period > *r.period)) r.period = period;
        r.tests.push_back(t);
    }
    if (!r.period) {
        r.why = no_forecast::no_period;
        r.message = "no candidate period stands out of the noise:";
        for (const auto& t : r.tests)
            r.message +=
                " " + core::format_go_duration(t.period) +
                (t.enough_history ? " (power " + std::to_string(t.power) + " against " +
                                        std::to_string(t.threshold) + ", autocorrelation " +
                                        std::to_string(t.autocorrelation) + ")"
                                  : " (less than two cycles of history)");
        return r;
    }

    // The same phase in each past cycle: now's bucket is n−1.
    const auto lag = static_cast<std::size_t>(steps_in(*r.period, in.step));
    const auto ahead =
        static_cast<std::size_t>((in.look_ahead + in.step - nanoseconds(1)) / in.step);
    double highest = -INFINITY;
    std::vector<double> by_phase(lag, -INFINITY); // the highest value at each phase of a cycle
    for (std::size_t c = 1; c * lag <= n - 1; ++c) {
        const std::size_t from = n - 1 - c * lag;
        ++r.cycles;
        for (std::size_t i = from; i <= std::min(n - 1, from + ahead); ++i)
            highest = std::max(highest, g.values[i]);
        for (std::size_t d = 0; d < lag && from + d < n; ++d)
            by_phase[d] = std::max(by_phase[d], g.values[from + d]);
    }
    r.value = highest + std::abs(highest) * in.margin;
    const auto peak = std::max_element(by_phase.begin(), by_phase.end()) - by_phase.begin();
    r.next_peak = in.now + peak * in.step;
    const auto chosen = std::find_if(r.tests.begin(), r.tests.end(),
                                     [&](const period_test& t) { return t.period == *r.period; });
    r.message = "period " + core::format_go_duration(*r.period) +
                (chosen->kept ? " kept (its autocorrelation, " +
                                    std::to_string(chosen->autocorrelation) + ", confirms it)"
                              : " found") +
                "; the highest value at this phase of " + std::to_string(r.cycles) +
                " past cycles over the next " + core::format_go_duration(in.look_ahead) + " was " +
                std::to_string(highest);
    return r;
}

} // namespace hpaplus::forecast
