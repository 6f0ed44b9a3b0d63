// vertical/recommender/histogram.cpp — buckets, decay and checkpoints.
#include "vertical/recommender/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace hpaplus::vertical {
namespace {

// Past this many half-lives the sample weights would overflow a double's useful range, so the
// reference moves forward and the stored weights shrink instead.
constexpr double max_decay_exponent = 100;

} // namespace

bucket_scheme::bucket_scheme(double max_value, double first_bucket, double ratio)
    : first_(first_bucket), ratio_(ratio),
      count_(static_cast<std::size_t>(std::ceil(
                 std::log(max_value * (ratio - 1) / first_bucket + 1) / std::log(ratio))) +
             1) {}

std::size_t bucket_scheme::bucket_of(double value) const {
    if (value < first_) return 0;
    const double b = std::log(value * (ratio_ - 1) / first_ + 1) / std::log(ratio_);
    return std::min(static_cast<std::size_t>(b), count_ - 1);
}

double bucket_scheme::start_of(std::size_t bucket) const {
    if (bucket == 0) return 0;
    return first_ * (std::pow(ratio_, static_cast<double>(bucket)) - 1) / (ratio_ - 1);
}

const bucket_scheme& cpu_buckets() {
    static const bucket_scheme s(1000.0, 0.01, 1.05);
    return s;
}

const bucket_scheme& memory_buckets() {
    static const bucket_scheme s(1e12, 1e7, 1.05);
    return s;
}

decaying_histogram::decaying_histogram(const bucket_scheme& scheme,
                                       std::chrono::nanoseconds half_life)
    : scheme_(&scheme), half_life_(half_life), weights_(scheme.count(), 0.0) {}

void decaying_histogram::shift_reference(core::time_point to) {
    // The reference stays a whole number of half-lives from the epoch (rounded half up).
    const auto hl = half_life_.count();
    const auto since = to.time_since_epoch().count();
    const auto rounded = (since / hl + ((since % hl) * 2 >= hl ? 1 : 0)) * hl;
    const core::time_point next{std::chrono::nanoseconds(rounded)};
    if (has_reference_) {
        const double exponent =
            std::round(static_cast<double>((reference_ - next).count()) / static_cast<double>(hl));
        const double factor = std::ldexp(1.0, static_cast<int>(exponent));
        for (double& w : weights_)
            w *= factor;
        total_ *= factor;
    }
    reference_ = next;
    has_reference_ = true;
}

double decaying_histogram::decay_factor(core::time_point at) {
    if (!has_reference_ || static_cast<double>((at - reference_).count()) >
                               max_decay_exponent * static_cast<double>(half_life_.count()))
        shift_reference(at);
    return std::exp2(static_cast<double>((at - reference_).count()) /
                     static_cast<double>(half_life_.count()));
}

void decaying_histogram::add(double value, double weight, core::time_point at) {
    if (!(weight > 0)) return;
    const double w = weight * decay_factor(at);
    weights_[scheme_->bucket_of(value)] += w;
    total_ += w;
}

void decaying_histogram::subtract(double value, double weight, core::time_point at) {
    if (!(weight > 0)) return;
    double& bucket = weights_[scheme_->bucket_of(value)];
    const double w = std::min(weight * decay_factor(at), bucket);
    bucket -= w;
    total_ = std::max(0.0, total_ - w);
}

bool decaying_histogram::empty() const {
    return std::none_of(weights_.begin(), weights_.end(),
                        [](double w) { return w >= empty_bucket_weight; });
}

double decaying_histogram::percentile(double p) const {
    if (empty()) return 0;
    std::size_t first = 0;
    while (weights_[first] < empty_bucket_weight)
        ++first;
    std::size_t last = weights_.size() - 1;
    while (weights_[last] < empty_bucket_weight)
        --last;
    const double threshold = p * total_;
    double sum = 0;
    std::size_t bucket = first;
    for (; bucket < last; ++bucket) {
        sum += weights_[bucket];
        if (sum >= threshold) break;
    }
    if (bucket < weights_.size() - 1) return scheme_->start_of(bucket + 1);
    return scheme_->start_of(bucket);
}

histogram_checkpoint decaying_histogram::save() const {
    histogram_checkpoint c;
    c.total_weight = total_;
    c.reference = reference_;
    const double heaviest = *std::max_element(weights_.begin(), weights_.end());
    if (heaviest <= 0) return c;
    const double ratio = static_cast<double>(max_checkpoint_weight) / heaviest;
    for (std::size_t b = 0; b < weights_.size(); ++b) {
        const auto w = static_cast<std::uint32_t>(std::round(weights_[b] * ratio));
        if (w > 0) c.bucket_weights.emplace(b, w);
    }
    return c;
}

bool decaying_histogram::load(const histogram_checkpoint& c) {
    if (c.total_weight < 0) return false;
    std::uint64_t sum = 0;
    for (const auto& [bucket, w] : c.bucket_weights) {
        if (bucket >= weights_.size()) return false;
        sum += w;
    }
    std::fill(weights_.begin(), weights_.end(), 0.0);
    total_ = 0;
    reference_ = c.reference;
    has_reference_ = true;
    if (sum == 0) return true;
    const double ratio = c.total_weight / static_cast<double>(sum);
    for (const auto& [bucket, w] : c.bucket_weights) {
        weights_[bucket] += static_cast<double>(w) * ratio;
        total_ += static_cast<double>(w) * ratio;
    }
    return true;
}

} // namespace hpaplus::vertical
