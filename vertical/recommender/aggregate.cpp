// vertical/recommender/aggregate.cpp — samples into histograms, as upstream's container state
// feeds its aggregate.
#include "vertical/recommender/aggregate.hpp"

#include <algorithm>
#include <limits>

namespace hpaplus::vertical {

namespace {

__extension__ using wide = __int128;

std::int64_t saturated(wide v) {
    constexpr auto lo = std::numeric_limits<std::int64_t>::min();
    constexpr auto hi = std::numeric_limits<std::int64_t>::max();
    return static_cast<std::int64_t>(v < lo ? lo : v > hi ? hi : v);
}

} // namespace

std::chrono::nanoseconds time_between(core::time_point a, core::time_point b) {
    return std::chrono::nanoseconds(
        saturated(static_cast<wide>(b.time_since_epoch().count()) - a.time_since_epoch().count()));
}

std::int64_t resource_amount(double v) {
    if (v > static_cast<double>(max_resource_amount)) return max_resource_amount;
    if (v < 0) return 0;
    if (!(v == v)) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(v);
}

container_aggregate::container_aggregate(const recommender_config& config)
    : cpu_(cpu_buckets(), config.cpu_half_life),
      memory_(memory_buckets(), config.memory_half_life) {}

void container_aggregate::add_cpu(std::int64_t milli, core::time_point at) {
    cpu_.add(static_cast<double>(milli) / 1000.0, min_cpu_sample_weight, at);
    if (!last_ || at > *last_) last_ = at;
    if (!first_ || at < *first_) first_ = at;
    ++samples_;
}

bool container_aggregate::expired(core::time_point now, const recommender_config& config) const {
    return last_ && time_between(*last_, now) >= config.memory_window();
}

aggregate_checkpoint container_aggregate::save() const {
    return {cpu_.save(), memory_.save(), first_, last_, samples_};
}

bool container_aggregate::load(const aggregate_checkpoint& c) {
    decaying_histogram cpu = cpu_, memory = memory_;
    if (!cpu.load(c.cpu) || !memory.load(c.memory)) return false;
    cpu_ = std::move(cpu);
    memory_ = std::move(memory);
    first_ = c.first_sample;
    last_ = c.last_sample;
    samples_ = c.total_samples;
    return true;
}

bool container_window::add_cpu(container_aggregate& into, std::int64_t milli, core::time_point at) {
    if (milli < 0 || (last_cpu_ && at <= *last_cpu_)) return false;
    into.add_cpu(milli, at);
    last_cpu_ = at;
    return true;
}

bool container_window::add_memory(container_aggregate& into, std::int64_t bytes,
                                  core::time_point at, bool oom, const recommender_config& config) {
    if (bytes < 0 || (!oom && last_memory_ && at < *last_memory_)) return false;
    last_memory_ = at;
    if (!window_end_) window_end_ = at;
    bool add_peak = false;
    if (at < *window_end_) {
        const std::int64_t old_peak = std::max(memory_peak_, oom_peak_);
        if (old_peak != 0 && bytes > old_peak) {
            into.subtract_memory_peak(old_peak, *window_end_);
            add_peak = true;
        }
    } else {
        // The next interval that holds `at` starts a new peak (saturated at the end of time).
        const auto interval = config.memory_interval.count();
        const auto behind = time_between(*window_end_, at).count();
        *window_end_ = core::time_point(std::chrono::nanoseconds(
            saturated(static_cast<wide>(window_end_->time_since_epoch().count()) +
                      static_cast<wide>(behind / interval) * interval + interval)));
        memory_peak_ = 0;
        oom_peak_ = 0;
        add_peak = true;
    }
    if (!add_peak) return true;
    into.add_memory_peak(bytes, *window_end_);
    (oom ? oom_peak_ : memory_peak_) = bytes;
    return true;
}

bool container_window::record_oom(container_aggregate& into, std::int64_t memory_bytes,
                                  core::time_point at, const recommender_config& config) {
    if (window_end_ && time_between(at, *window_end_) > config.memory_interval) return false;
    // The previous OOM peak is left out of the base on purpose: repeated OOMs must not compound.
    const std::int64_t used = std::max(memory_bytes, memory_peak_);
    const std::int64_t needed = std::max(used + resource_amount(config.oom_min_bump_bytes),
                                         scale_amount(used, config.oom_bump_ratio));
    return add_memory(into, needed, at, true, config);
}

} // namespace hpaplus::vertical
