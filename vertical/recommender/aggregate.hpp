// vertical/recommender/aggregate.hpp — the history of one container name across a VPAPlus's pods:
// CPU samples weighted by the request, one memory peak per aggregation interval per pod container,
// OOM bumps. Upstream: pkg/recommender/model (aggregate_container_state.go, container.go).
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
    double oom_min_bump_bytes = 100.0 * 1024 * 1024;
    double target_percentile = 0.9;
    double lower_percentile = 0.5;
    double upper_percentile = 0.95;
    double margin = 0.15;
    std::int64_t pod_min_cpu_milli = 25;
    std::int64_t pod_min_memory_bytes = 250LL * 1024 * 1024;
    std::chrono::nanoseconds confidence_unit = 24h; ///< "days" of the confidence formula

    std::chrono::nanoseconds memory_window() const {
        return memory_interval * memory_interval_count;
    }
};

/// The smallest weight a CPU sample gets (a request below 0.1 core counts as 0.1).
inline constexpr double min_cpu_sample_weight = 0.1;

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

    /// A CPU sample (cores used, cores requested) measured from `at`.
    void add_cpu(double cores, double request_cores, core::time_point at);
    void add_memory_peak(double bytes, core::time_point at) { memory_.add(bytes, 1.0, at); }
    void subtract_memory_peak(double bytes, core::time_point at) {
        memory_.subtract(bytes, 1.0, at);
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

/// One pod container's part: its last CPU sample (older ones are dropped) and its memory peak in
/// the current aggregation interval, which it replaces in the aggregate when a higher one comes.
class container_window {
  public:
    /// False when the sample is not newer than the last one (dropped).
    bool add_cpu(container_aggregate& into, double cores, double request_cores,
                 core::time_point at);
    void add_memory(container_aggregate& into, double bytes, core::time_point at,
                    const recommender_config& config) {
        add_memory(into, bytes, at, false, config);
    }
    /// An OOM kill at `at`: a peak of max(used + minBump, used × ratio), used = max(request, the
    /// interval's usage peak). False when the OOM is older than one interval before the window.
    bool record_oom(container_aggregate& into, double request_bytes, core::time_point at,
                    const recommender_config& config);

  private:
    void add_memory(container_aggregate& into, double bytes, core::time_point at, bool oom,
                    const recommender_config& config);

    std::optional<core::time_point> last_cpu_;
    std::optional<core::time_point> window_end_;
    double memory_peak_ = 0;
    double oom_peak_ = 0;
};

} // namespace hpaplus::vertical
