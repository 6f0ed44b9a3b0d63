// vertical/recommender/histogram.cpp — buckets, decay and checkpoints, as upstream computes them.
#include "vertical/recommender/histogram.hpp"

#include "vertical/recommender/go_math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hpaplus::vertical {
namespace {

__extension__ using wide = __int128;

// When the decay factor would exceed 2^this, the reference moves forward and weights shrink.
constexpr std::int64_t max_decay_exponent = 100;
// Go's time.Time{} (January 1, year 1, UTC) before the Unix epoch, in nanoseconds.
constexpr wide go_zero_to_unix_ns = static_cast<wide>(62135596800) * 1'000'000'000;
constexpr double sample_epsilon = 0.001 * 0.1; // 0.001 × the minimum sample weight

wide since_go_zero(std::optional<core::time_point> t) {
    return t ? go_zero_to_unix_ns + t->time_since_epoch().count() : 0;
}

// Go's Time.Sub: the difference in nanoseconds, saturated to what a Duration holds.
std::int64_t go_sub(std::optional<core::time_point> a, std::optional<core::time_point> b) {
    const wide d = since_go_zero(a) - since_go_zero(b);
    if (d > std::numeric_limits<std::int64_t>::max())
        return std::numeric_limits<std::int64_t>::max();
    if (d < std::numeric_limits<std::int64_t>::min())
        return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(d);
}

// Go's Time.Round(d): the nearest multiple of d since Go's zero time, halves rounded up (held
// within what a time_point holds).
core::time_point go_round(core::time_point t, std::chrono::nanoseconds d) {
    const wide since = t.time_since_epoch().count();
    const auto rest = static_cast<std::int64_t>(since_go_zero(t) % d.count());
    const wide rounded = rest + rest < d.count() ? since - rest : since + (d.count() - rest);
    const wide lo = std::numeric_limits<std::int64_t>::min(),
               hi = std::numeric_limits<std::int64_t>::max();
    return core::time_point{
        std::chrono::nanoseconds(static_cast<std::int64_t>(std::clamp(rounded, lo, hi)))};
}

// The package's round(): int(math.Floor(x + 0.5)).
double go_round_half_up(double x) {
    return std::floor(x + 0.5);
}

// Go's int(x) for a float outside int64's range or NaN is 0x8000000000000000 on amd64.
std::int64_t go_int(double x) {
    if (!(x >= -0x1p63 && x < 0x1p63)) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(x);
}

} // namespace

bucket_scheme bucket_scheme::exponential(double max_value, double first_bucket, double ratio,
                                         double epsilon) {
    const double buckets =
        std::ceil(go::log(max_value * (ratio - 1) / first_bucket + 1) / go::log(ratio));
    return {true, first_bucket, ratio, static_cast<std::size_t>(buckets) + 1, epsilon};
}

bucket_scheme bucket_scheme::linear(double max_value, double size, double epsilon) {
    return {false, size, 0, static_cast<std::size_t>(std::ceil(max_value / size)) + 1, epsilon};
}

std::size_t bucket_scheme::bucket_of(double value) const {
    double bucket = 0;
    if (exponential_) {
        if (!(value >= first_)) return 0;
        bucket = go::log(value * (ratio_ - 1) / first_ + 1) / go::log(ratio_);
    } else {
        bucket = value / first_;
    }
    const std::int64_t index = go_int(bucket);
    if (index < 0) return 0;
    return std::min(static_cast<std::size_t>(index), count_ - 1);
}

double bucket_scheme::start_of(std::size_t bucket) const {
    if (!exponential_) return static_cast<double>(bucket) * first_;
    if (bucket == 0) return 0;
    return first_ * (go::pow(ratio_, static_cast<double>(bucket)) - 1) / (ratio_ - 1);
}

const bucket_scheme& cpu_buckets() {
    static const bucket_scheme s = bucket_scheme::exponential(1000.0, 0.01, 1.05, sample_epsilon);
    return s;
}

const bucket_scheme& memory_buckets() {
    static const bucket_scheme s = bucket_scheme::exponential(1e12, 1e7, 1.05, sample_epsilon);
    return s;
}

decaying_histogram::decaying_histogram(const bucket_scheme& scheme,
                                       std::chrono::nanoseconds half_life)
    : scheme_(&scheme), half_life_(half_life), weights_(scheme.count(), 0.0),
      min_bucket_(scheme.count() - 1), max_bucket_(0) {}

void decaying_histogram::add_weight(std::size_t bucket, double weight) {
    weights_[bucket] += weight;
    total_ += weight;
    if (bucket < min_bucket_ && weights_[bucket] >= scheme_->epsilon()) min_bucket_ = bucket;
    if (bucket > max_bucket_ && weights_[bucket] >= scheme_->epsilon()) max_bucket_ = bucket;
}

void decaying_histogram::update_min_and_max() {
    const double epsilon = scheme_->epsilon();
    const std::size_t last = weights_.size() - 1;
    while (weights_[min_bucket_] < epsilon && min_bucket_ < last)
        ++min_bucket_;
    while (weights_[max_bucket_] < epsilon && max_bucket_ > 0)
        --max_bucket_;
}

void decaying_histogram::scale(double factor) {
    for (std::size_t b = min_bucket_; b <= max_bucket_; ++b)
        weights_[b] *= factor;
    total_ *= factor;
    update_min_and_max();
}

void decaying_histogram::shift_reference(core::time_point to) {
    const core::time_point next = go_round(to, half_life_);
    const double exponent = go_round_half_up(static_cast<double>(go_sub(reference_, next)) /
                                             static_cast<double>(half_life_.count()));
    scale(std::ldexp(1.0, static_cast<int>(std::clamp(exponent, -1e6, 1e6))));
    reference_ = next;
}

double decaying_histogram::decay_factor(core::time_point at) {
    const wide max_allowed =
        since_go_zero(reference_) + static_cast<wide>(half_life_.count()) * max_decay_exponent;
    if (since_go_zero(at) > max_allowed) shift_reference(at);
    return go::exp2(static_cast<double>(go_sub(at, reference_)) /
                    static_cast<double>(half_life_.count()));
}

void decaying_histogram::add(double value, double weight, core::time_point at) {
    add_weight(scheme_->bucket_of(value), weight * decay_factor(at));
}

void decaying_histogram::subtract(double value, double weight, core::time_point at) {
    double w = weight * decay_factor(at);
    const std::size_t bucket = scheme_->bucket_of(value);
    if (w > weights_[bucket] - scheme_->epsilon()) w = weights_[bucket];
    total_ -= w;
    weights_[bucket] -= w;
    update_min_and_max();
}

void decaying_histogram::merge(decaying_histogram other) {
    if (since_go_zero(reference_) < since_go_zero(other.reference_))
        shift_reference(*other.reference_);
    else if (since_go_zero(other.reference_) < since_go_zero(reference_))
        other.shift_reference(*reference_);
    for (std::size_t b = other.min_bucket_; b <= other.max_bucket_; ++b)
        weights_[b] += other.weights_[b];
    total_ += other.total_;
    min_bucket_ = std::min(min_bucket_, other.min_bucket_);
    max_bucket_ = std::max(max_bucket_, other.max_bucket_);
}

double decaying_histogram::percentile(double p) const {
    if (empty()) return 0;
    const double threshold = p * total_;
    double sum = 0;
    std::size_t bucket = min_bucket_;
    for (; bucket < max_bucket_; ++bucket) {
        sum += weights_[bucket];
        if (sum >= threshold) break;
    }
    if (bucket < weights_.size() - 1) return scheme_->start_of(bucket + 1);
    return scheme_->start_of(bucket);
}

histogram_checkpoint decaying_histogram::save() const {
    histogram_checkpoint c;
    c.total_weight = total_;
    c.reference = reference_.value_or(core::time_point{});
    double heaviest = 0;
    for (std::size_t b = min_bucket_; b <= max_bucket_; ++b)
        heaviest = std::max(heaviest, weights_[b]);
    const double ratio = static_cast<double>(max_checkpoint_weight) / heaviest;
    for (std::size_t b = min_bucket_; b <= max_bucket_; ++b) {
        const auto w = static_cast<std::uint32_t>(go_int(go_round_half_up(weights_[b] * ratio)));
        if (w > 0) c.bucket_weights.emplace(b, w);
    }
    return c;
}

bool decaying_histogram::load(const histogram_checkpoint& c) {
    if (!(c.total_weight >= 0)) return false;
    std::uint64_t sum = 0;
    for (const auto& [bucket, w] : c.bucket_weights) {
        if (bucket >= weights_.size()) return false;
        sum += w;
    }
    reference_ = c.reference;
    if (sum == 0) return true;
    const double ratio = c.total_weight / static_cast<double>(sum);
    for (const auto& [bucket, w] : c.bucket_weights) {
        min_bucket_ = std::min(min_bucket_, bucket);
        max_bucket_ = std::max(max_bucket_, bucket);
        weights_[bucket] += static_cast<double>(w) * ratio;
    }
    total_ += c.total_weight;
    return true;
}

} // namespace hpaplus::vertical
