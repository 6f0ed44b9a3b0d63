// vertical/recommender/histogram.hpp — the VPA recommender's decaying histogram: exponential
// buckets, weights that grow with time instead of old weights shrinking (so a sample one
// half-life older counts half), percentiles that answer a bucket's end, and the checkpoint form
// (bucket weights scaled so the heaviest is 10000). Upstream: pkg/recommender/util.
#pragma once

#include "core/time.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <vector>

namespace hpaplus::vertical {

/// Bucket 0 is [0, first); bucket n ≥ 1 starts at first·(ratioⁿ − 1)/(ratio − 1).
class bucket_scheme {
  public:
    bucket_scheme(double max_value, double first_bucket, double ratio);
    std::size_t count() const { return count_; }
    std::size_t bucket_of(double value) const;
    double start_of(std::size_t bucket) const;

  private:
    double first_;
    double ratio_;
    std::size_t count_;
};

/// CPU in cores: first bucket 0.01, max 1000, 5 % growth.
const bucket_scheme& cpu_buckets();
/// Memory in bytes: first bucket 1e7, max 1e12, 5 % growth.
const bucket_scheme& memory_buckets();

/// A bucket below this weight counts as empty (0.001 × the minimum sample weight 0.1).
inline constexpr double empty_bucket_weight = 1e-4;
/// The heaviest bucket's weight in a checkpoint.
inline constexpr std::uint32_t max_checkpoint_weight = 10000;

struct histogram_checkpoint {
    std::map<std::size_t, std::uint32_t> bucket_weights; ///< only non-zero buckets
    double total_weight = 0;
    core::time_point reference{}; ///< the decay reference timestamp
    friend bool operator==(const histogram_checkpoint&, const histogram_checkpoint&) = default;
};

class decaying_histogram {
  public:
    decaying_histogram(const bucket_scheme& scheme, std::chrono::nanoseconds half_life);

    /// Adds `value` with `weight` × 2^((at − reference)/halfLife).
    void add(double value, double weight, core::time_point at);
    /// Takes back what add(value, weight, at) added (weights never go below zero).
    void subtract(double value, double weight, core::time_point at);
    /// The end of the bucket where the running weight first reaches p × total (the start of the
    /// last bucket when it is reached there); 0 when empty.
    double percentile(double p) const;
    bool empty() const;
    double total_weight() const { return total_; }

    histogram_checkpoint save() const;
    /// Replaces the contents; false (and nothing changed) when the checkpoint names a bucket
    /// this scheme does not have or has a negative total.
    bool load(const histogram_checkpoint& c);

  private:
    double decay_factor(core::time_point at);
    void shift_reference(core::time_point to);

    const bucket_scheme* scheme_;
    std::chrono::nanoseconds half_life_;
    core::time_point reference_{};
    bool has_reference_ = false;
    std::vector<double> weights_;
    double total_ = 0;
};

} // namespace hpaplus::vertical
