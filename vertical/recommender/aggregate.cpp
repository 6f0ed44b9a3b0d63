// vertical/recommender/aggregate.cpp — samples into histograms.
#include "vertical/recommender/aggregate.hpp"

#include <algorithm>

namespace hpaplus::vertical {

container_aggregate::container_aggregate(const recommender_config& config)
    : cpu_(cpu_buckets(), config.cpu_half_life),
      memory_(memory_buckets(), config.memory_half_life) {}

void container_aggregate::add_cpu(double cores, double request_cores, core::time_point at) {
    // Weighted by the request: when the request rises, the history gathered at the old request
    // counts for less, so a starved container gets more CPU soon.
    cpu_.add(cores, std::max(request_cores, min_cpu_sample_weight), at);
    if (!last_ || at > *last_) last_ = at;
    if (!first_ || at < *first_) first_ = at;
    ++samples_;
}

bool container_aggregate::expired(core::time_point now, const recommender_config& config) const {
    return last_ && now - *last_ >= config.memory_window();
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

bool container_window::add_cpu(container_aggregate& into, double cores, double request_cores,
                               core::time_point at) {
    if (cores < 0 || (last_cpu_ && at <= *last_cpu_)) return false;
    last_cpu_ = at;
    into.add_cpu(cores, request_cores, at);
    return true;
}

void container_window::add_memory(container_aggregate& into, double bytes, core::time_point at,
                                  bool oom, const recommender_config& config) {
    if (bytes < 0) return;
    if (!window_end_) window_end_ = at;
    bool add_peak = false;
    if (at < *window_end_) {
        const double old_peak = std::max(memory_peak_, oom_peak_);
        if (old_peak != 0 && bytes > old_peak) {
            into.subtract_memory_peak(old_peak, *window_end_);
            add_peak = true;
        }
    } else {
        // The next interval that holds `at` starts a new peak.
        const auto interval = config.memory_interval;
        const auto behind = at - *window_end_;
        *window_end_ += (behind / interval) * interval + interval;
        memory_peak_ = 0;
        oom_peak_ = 0;
        add_peak = true;
    }
    if (!add_peak) return;
    into.add_memory_peak(bytes, *window_end_);
    (oom ? oom_peak_ : memory_peak_) = bytes;
}

bool container_window::record_oom(container_aggregate& into, double request_bytes,
                                  core::time_point at, const recommender_config& config) {
    if (window_end_ && at < *window_end_ - config.memory_interval) return false;
    // The previous OOM peak is left out of the base on purpose: repeated OOMs must not compound.
    const double used = std::max(request_bytes, memory_peak_);
    const double needed = std::max(used + config.oom_min_bump_bytes, used * config.oom_bump_ratio);
    add_memory(into, needed, at, true, config);
    return true;
}

} // namespace hpaplus::vertical
