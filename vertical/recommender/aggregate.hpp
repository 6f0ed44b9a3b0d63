// vertical/recommender/aggregate.hpp — the history of one container name across a VPAPlus's pods:
// CPU samples (each the minimum weight, as upstream: its feeder never set the request and VPA 1.4
// stopped reading it), one memory peak per aggregation interval per pod container, OOM bumps.
// Amounts are upstream's ResourceAmount: integer millicores and bytes. Upstream:
// pkg/recommender/model (aggregate_container_state.go, container.go, types.go).
#pragma once

#include "vertical/recommender/histogram.hpp"

#include <chrono>
#include <cstdint>
#include <optional>

namespace hpaplus::vertical {

using namespace std::chrono_literals;

/// The recommender's knobs, upstream's defaults.
struct recommender_config {
    std::chrono::nanoseconds cpu_half_life = 24h;
    std::chrono::nanoseconds memory_half_life = 24h;
    std::chrono::nanoseconds memory_interval = 24h; ///< one memory peak per interval
    int memory_interval_count = 8;                  ///< history window = interval × count
    double oom_bump_ratio = 1.2;
    double oom_min_bump_bytes = 100.0 * 1024 * 1024; ///< 1.048576e+08
    double target_percentile = 0.9;
    double lower_percentile = 0.5;
    double upper_percentile = 0.95;
    double margin = 0.15;
    double pod_min_cpu_millicores = 25;             ///< --pod-recommendation-min-cpu-millicores
    double pod_min_memory_mb = 250;                 ///< --pod-recommendation-min-memory-mb (MiB)
    std::chrono::nanoseconds confidence_unit = 24h; ///< "days" of the confidence formula

    std::chrono::nanoseconds memory_window() const {
        return memory_interval * memory_interval_count;
    }
};

/// The weight of every CPU sample (upstream's minSampleWeight).
inline constexpr double min_cpu_sample_weight = 0.1;

/// Upstream's ResourceAmount ceiling (1e14): an unbounded upper bound is written as this.
inline constexpr std::int64_t max_resource_amount = 100'000'000'000'000;

/// b − a, saturated to what a nanosecond count holds: times come from outside (the metrics API,
/// a recorded file) and two of them may be further apart than 292 years.
std::chrono::nanoseconds time_between(core::time_point a, core::time_point b);

/// resourceAmountFromFloat: truncated toward zero, clamped to [0, 1e14] (NaN becomes Go's
/// int64(NaN), the most negative int64, as on amd64).
std::int64_t resource_amount(double v);
/// ScaleResource: resource_amount(amount × factor).
inline std::int64_t scale_amount(std::int64_t amount, double factor) {
    return resource_amount(static_cast<double>(amount) * factor);
}

struct aggregate_checkpoint {
    histogram_checkpoint cpu;
    histogram_checkpoint memory;
    std::optional<core::time_point> first_sample;
    std::optional<core::time_point> last_sample;
    std::uint64_t total_samples = 0;
};

class container_aggregate {
  public:
    explicit container_aggregate(const recommender_config& config);

    /// A CPU sample measured from `at` (millicores used).
    void add_cpu(std::int64_t milli, core::time_point at);
    void add_memory_peak(std::int64_t bytes, core::time_point at) {
        memory_.add(static_cast<double>(bytes), 1.0, at);
    }
    void subtract_memory_peak(std::int64_t bytes, core::time_point at) {
        memory_.subtract(static_cast<double>(bytes), 1.0, at);
    }

    const decaying_histogram& cpu() const { return cpu_; }
    const decaying_histogram& memory_peaks() const { return memory_; }
    std::optional<core::time_point> first_sample() const { return first_; }
    std::optional<core::time_point> last_sample() const { return last_; }
    std::uint64_t total_samples() const { return samples_; }
    /// No sample for the whole memory window: the history is worth nothing any more.
    bool expired(core::time_point now, const recommender_config& config) const;

    aggregate_checkpoint save() const;
    bool load(const aggregate_checkpoint& c);

  private:
    decaying_histogram cpu_;
    decaying_histogram memory_;
    std::optional<core::time_point> first_;
    std::optional<core::time_point> last_;
    std::uint64_t samples_ = 0;
};

/// One pod container's part (upstream's ContainerState): its last CPU sample (a sample not
/// after it is dropped), its last memory sample (a usage sample before it is dropped, an OOM never
/// is) and its memory peak in the current aggregation interval, which it replaces in the
/// aggregate when a higher one comes.
class container_window {
  public:
    /// False when the sample is dropped (negative, or not after the last CPU sample).
    bool add_cpu(container_aggregate& into, std::int64_t milli, core::time_point at);
    /// False when the sample is dropped (negative, or before the last memory sample).
    bool add_memory(container_aggregate& into, std::int64_t bytes, core::time_point at,
                    const recommender_config& config) {
        return add_memory(into, bytes, at, false, config);
    }
    /// An OOM kill at `at` of a container that had `memory_bytes` (upstream feeds the request): a
    /// peak of max(used + minBump, used × ratio), used = max(that, the interval's usage peak).
    /// False when the OOM is older than one interval before the window's end.
    bool record_oom(container_aggregate& into, std::int64_t memory_bytes, core::time_point at,
                    const recommender_config& config);

  private:
    bool add_memory(container_aggregate& into, std::int64_t bytes, core::time_point at, bool oom,
                    const recommender_config& config);

    std::optional<core::time_point> last_cpu_;
    std::optional<core::time_point> last_memory_;
    std::optional<core::time_point> window_end_;
    std::int64_t memory_peak_ = 0;
    std::int64_t oom_peak_ = 0;
};

} // namespace hpaplus::vertical
