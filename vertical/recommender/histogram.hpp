// vertical/recommender/histogram.hpp — the VPA recommender's decaying histogram: buckets (linear
// or exponential), weights that grow with time instead of old weights shrinking (so a sample one
// half-life older counts half), percentiles that answer a bucket's end, and the checkpoint form
// (bucket weights scaled so the heaviest is 10000). Upstream: pkg/recommender/util. Its quirks are
// kept on purpose, because they decide numbers: the first and last non-empty buckets are tracked
// as upstream tracks them (a checkpoint may name a bucket lighter than epsilon), a subtraction
// within epsilon of a bucket's weight empties it, rescaling touches only the tracked range, and
// the decay reference is a multiple of the half-life counted from Go's zero time (year 1).
#pragma once

#include "core/time.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace hpaplus::vertical {

class bucket_scheme {
  public:
    /// Bucket 0 is [0, first); bucket n ≥ 1 starts at first·(ratioⁿ − 1)/(ratio − 1); the last
    /// bucket's start is ≥ max_value. Upstream: NewExponentialHistogramOptions.
    static bucket_scheme exponential(double max_value, double first_bucket, double ratio,
                                     double epsilon);
    /// Buckets of `size` from 0; the last starts at or above max_value. Upstream:
    /// NewLinearHistogramOptions.
    static bucket_scheme linear(double max_value, double size, double epsilon);

    std::size_t count() const { return count_; }
    /// Values below the range go to bucket 0, above it to the last bucket.
    std::size_t bucket_of(double value) const;
    double start_of(std::size_t bucket) const;
    /// A bucket lighter than this counts as empty.
    double epsilon() const { return epsilon_; }

  private:
    bucket_scheme(bool exponential, double first, double ratio, std::size_t count, double epsilon)
        : exponential_(exponential), first_(first), ratio_(ratio), count_(count),
          epsilon_(epsilon) {}
    bool exponential_;
    double first_; ///< the first bucket's size (linear: every bucket's)
    double ratio_;
    std::size_t count_;
    double epsilon_;
};

/// CPU in cores: first bucket 0.01, max 1000, 5 % growth, epsilon 1e-4 (0.001 × the minimum
/// sample weight 0.1).
const bucket_scheme& cpu_buckets();
/// Memory in bytes: first bucket 1e7, max 1e12, 5 % growth, epsilon 1e-4.
const bucket_scheme& memory_buckets();

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
    /// Takes back what add(value, weight, at) added; a bucket left within epsilon is emptied.
    void subtract(double value, double weight, core::time_point at);
    /// Adds every bucket of `other` (same scheme and half-life), the older reference moved to
    /// the younger first.
    void merge(decaying_histogram other);
    /// The end of the bucket where the running weight first reaches p × total (the start of the
    /// last bucket when it is reached there); 0 when empty.
    double percentile(double p) const;
    bool empty() const { return weights_[min_bucket_] < scheme_->epsilon(); }
    double total_weight() const { return total_; }
    double bucket_weight(std::size_t bucket) const { return weights_[bucket]; }
    std::optional<core::time_point> reference() const { return reference_; }

    histogram_checkpoint save() const;
    /// Adds the checkpoint's weights; false (and nothing changed) when it names a bucket this
    /// scheme does not have or has a negative total.
    bool load(const histogram_checkpoint& c);

  private:
    void add_weight(std::size_t bucket, double weight);
    double decay_factor(core::time_point at);
    void shift_reference(core::time_point to);
    void scale(double factor);
    void update_min_and_max();

    const bucket_scheme* scheme_;
    std::chrono::nanoseconds half_life_;
    std::optional<core::time_point> reference_; ///< nullopt: Go's zero time
    std::vector<double> weights_;
    double total_ = 0;
    std::size_t min_bucket_; ///< first non-empty bucket, or the last bucket when none
    std::size_t max_bucket_; ///< last non-empty bucket, or 0 when none
};

} // namespace hpaplus::vertical
