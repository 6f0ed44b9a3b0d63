// core/latency_histogram.hpp — a fixed-size log-scale histogram of durations (timer lateness,
// request latency): eight buckets per doubling from 1 µs to about 19 h, so a quantile is off by
// at most 9 %. Recording is one log2 and an increment; nothing allocates after construction.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

namespace hpaplus::core {

class latency_histogram {
  public:
    static constexpr int buckets_per_doubling = 8;
    static constexpr int doublings = 36; ///< 2^36 µs ≈ 19 h; longer durations share the last bucket

    void record(std::chrono::nanoseconds d) noexcept;
    std::uint64_t count() const noexcept { return count_; }
    /// The upper edge of the bucket holding the q-quantile (0 < q ≤ 1); 0 when empty.
    std::chrono::nanoseconds quantile(double q) const noexcept;
    std::chrono::nanoseconds max() const noexcept { return max_; }
    void add(const latency_histogram& other) noexcept;
    /// What was recorded after `earlier`, a copy of this histogram taken before (max stays this
    /// histogram's: it cannot be taken apart).
    latency_histogram since(const latency_histogram& earlier) const noexcept;

  private:
    static constexpr std::size_t size = std::size_t{buckets_per_doubling} * doublings + 1;
    std::array<std::uint64_t, size> counts_{};
    std::uint64_t count_ = 0;
    std::chrono::nanoseconds max_{0};
};

} // namespace hpaplus::core
