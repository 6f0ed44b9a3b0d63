// core/latency_histogram.cpp — bucket index ⇄ duration.
#include "core/latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace hpaplus::core {
namespace {

// Bucket 0 holds everything under 1 µs; bucket i ≥ 1 holds up to 2^(i / 8) µs.
std::size_t bucket_of(std::chrono::nanoseconds d, std::size_t size) {
    const double us = static_cast<double>(d.count()) / 1000.0;
    if (us <= 1.0) return 0;
    const double index = std::ceil(std::log2(us) * latency_histogram::buckets_per_doubling - 1e-9);
    return std::min(size - 1, static_cast<std::size_t>(std::max(1.0, index)));
}

std::chrono::nanoseconds upper_edge(std::size_t bucket) {
    const double us =
        std::exp2(static_cast<double>(bucket) / latency_histogram::buckets_per_doubling);
    return std::chrono::nanoseconds(static_cast<std::int64_t>(us * 1000.0));
}

} // namespace

void latency_histogram::record(std::chrono::nanoseconds d) noexcept {
    if (d.count() < 0) d = std::chrono::nanoseconds(0);
    ++counts_[bucket_of(d, size)];
    ++count_;
    max_ = std::max(max_, d);
}

std::chrono::nanoseconds latency_histogram::quantile(double q) const noexcept {
    if (count_ == 0) return std::chrono::nanoseconds(0);
    const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < size; ++i) {
        seen += counts_[i];
        if (seen < std::max<std::uint64_t>(rank, 1)) continue;
        // The last bucket has no upper edge of its own: what lands there is at most max_.
        return i + 1 == size ? max_ : std::min(upper_edge(i), max_);
    }
    return max_;
}

void latency_histogram::add(const latency_histogram& other) noexcept {
    for (std::size_t i = 0; i < size; ++i)
        counts_[i] += other.counts_[i];
    count_ += other.count_;
    max_ = std::max(max_, other.max_);
}

latency_histogram latency_histogram::since(const latency_histogram& earlier) const noexcept {
    latency_histogram out = *this;
    for (std::size_t i = 0; i < size; ++i)
        out.counts_[i] -= std::min(out.counts_[i], earlier.counts_[i]);
    out.count_ -= std::min(out.count_, earlier.count_);
    return out;
}

} // namespace hpaplus::core
