// policy/replica_calculator.cpp — upstream replica arithmetic, to the last rounding rule.
// Where upstream would silently overflow (int64 sums, int32 conversions) we saturate instead and
// say so here; for every input that does not overflow the answers are identical.
#include "policy/replica_calculator.hpp"

#include "core/int128.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace hpaplus::policy {
namespace {

constexpr auto int32_max = std::numeric_limits<std::int32_t>::max();
constexpr auto int32_min = std::numeric_limits<std::int32_t>::min();

std::int32_t saturate_int32(core::int128 v) {
    if (v > int32_max) return int32_max;
    if (v < int32_min) return int32_min;
    return static_cast<std::int32_t>(v);
}

const std::string no_pods = "no pods returned by selector while calculating replica count";
const std::string no_samples = "did not receive metrics for targeted pods (pods might be unready)";

// The samples a calculation works on: the caller's until the calculation must change them, then
// its own copy. In steady state (every pod ready and measured) nothing is removed or filled in,
// and the pods' names are not copied on every pass.
class working_samples {
  public:
    explicit working_samples(const sample_set& given) : given_(&given) {}
    const sample_set& get() const { return own_ ? *own_ : *given_; }
    sample_set& edit() {
        if (!own_) own_ = *given_;
        return *own_;
    }
    // Ignored and unready pods have no say in the first pass.
    void remove_ignored_and_unready(const pod_groups& groups) {
        if (!groups.ignored.empty()) remove_samples(edit(), groups.ignored);
        if (!groups.unready.empty()) remove_samples(edit(), groups.unready);
    }

  private:
    const sample_set* given_;
    std::optional<sample_set> own_;
};

// How both calculations open: the pods grouped (ready, unready, ignored, missing), and the samples
// of the first pass (the ready pods'); an error when there are no pods or no such samples.
struct opening {
    pod_groups groups;
    working_samples samples;
};

core::outcome<opening> open_calculation(const calculator_context& ctx, const sample_set& given,
                                        std::string_view resource) {
    if (ctx.pods->empty()) return no_pods;
    opening o{group_pods(*ctx.pods, given, resource, *ctx.config, ctx.now, ctx.unready),
              working_samples(given)};
    o.samples.remove_ignored_and_unready(o.groups);
    if (o.samples.get().empty()) return no_samples;
    return o;
}

// Rebalancing before the second pass: on a scale-down a missing pod counts as
// `scale_down_value(pod)`, on a scale-up as 0 (at a ratio of exactly 1 it is left out); on a
// scale-up with unready pods, those count as 0 too.
template <class ScaleDownValue>
void fill_missing_and_unready(sample_set& samples, const pod_groups& groups, double ratio,
                              bool scale_up_with_unready, ScaleDownValue scale_down_value) {
    if (ratio < 1.0) {
        for (auto pod : groups.missing)
            put_sample(samples, pod, scale_down_value(pod));
    } else if (ratio > 1.0) {
        for (auto pod : groups.missing)
            put_sample(samples, pod, 0);
    }
    if (scale_up_with_unready) {
        for (auto pod : groups.unready)
            put_sample(samples, pod, 0);
    }
}

// The shared tail of GetResourceReplicas and calcPlainMetricReplicas: after filling missing and
// unready pods, keep current replicas if within tolerance, if the direction flipped, or if the new
// count moves against the ratio.
template <class Ratio>
std::int32_t rebalanced_replicas(const calculator_context& ctx, double ratio,
                                 const sample_set& samples, Ratio new_ratio_of) {
    const double new_ratio = new_ratio_of(samples);
    if (ctx.tol.within(new_ratio) || (ratio < 1.0 && new_ratio > 1.0) ||
        (ratio > 1.0 && new_ratio < 1.0))
        return ctx.current_replicas;
    const std::int32_t replicas = ceil_replicas(new_ratio * static_cast<double>(samples.size()));
    if ((new_ratio < 1.0 && replicas > ctx.current_replicas) ||
        (new_ratio > 1.0 && replicas < ctx.current_replicas))
        return ctx.current_replicas;
    return replicas;
}

} // namespace

std::int32_t ceil_replicas(double x) noexcept {
    if (std::isnan(x)) return 0;
    const double c = std::ceil(x);
    if (c >= static_cast<double>(int32_max)) return int32_max;
    if (c <= static_cast<double>(int32_min)) return int32_min;
    return static_cast<std::int32_t>(c);
}

core::outcome<utilization_ratio> resource_utilization_ratio(const sample_set& samples,
                                                            const pod_amounts& requests,
                                                            std::int32_t target_utilization) {
    core::int128 usage_total = 0;
    core::int128 request_total = 0;
    std::int64_t entries = 0;
    for (const auto& s : samples) {
        const pod_amount* request = find_amount(requests, s.pod);
        if (!request) continue; // a sample of a pod we do not know: extraneous, skipped here
        usage_total += s.milli;
        request_total += request->milli;
        ++entries;
    }
    if (request_total == 0) return std::string("no metrics returned matched known pods");
    const std::int32_t utilization = saturate_int32((usage_total * 100) / request_total);
    const auto raw_average = static_cast<std::int64_t>(usage_total / entries);
    return utilization_ratio{static_cast<double>(utilization) /
                                 static_cast<double>(target_utilization),
                             utilization, raw_average};
}

core::outcome<utilization_result>
resource_utilization_replicas(const calculator_context& ctx, const sample_set& given,
                              std::int32_t target_utilization, std::string_view resource,
                              std::string_view container, usage_basis basis) {
    auto opened = open_calculation(ctx, given, resource);
    if (!opened) return opened.error();
    auto& [groups, samples] = *opened;

    auto requests = pod_resource_amounts(*ctx.pods, container, resource, basis);
    if (!requests) return requests.error();
    auto first = resource_utilization_ratio(samples.get(), *requests, target_utilization);
    if (!first) return first.error();
    const double ratio = first->ratio;
    utilization_result result{ctx.current_replicas, first->utilization, first->raw_average,
                              std::move(groups.counted_unready)};

    const bool scale_up_with_unready = !groups.unready.empty() && ratio > 1.0;
    if (!scale_up_with_unready && groups.missing.empty()) {
        if (!ctx.tol.within(ratio)) result.replicas = ceil_replicas(ratio * groups.ready_count);
        return result;
    }
    // Scale-down: a missing pod counts as using max(100 %, target) of its own request.
    const std::int64_t fallback = std::max<std::int64_t>(100, target_utilization);
    fill_missing_and_unready(
        samples.edit(), groups, ratio, scale_up_with_unready,
        [&](std::string_view pod) { return find_amount(*requests, pod)->milli * fallback / 100; });
    result.replicas = rebalanced_replicas(ctx, ratio, samples.get(), [&](const sample_set& s) {
        auto r = resource_utilization_ratio(s, *requests, target_utilization);
        return r ? r->ratio : 0.0; // cannot fail: the first pass found requests for these pods
    });
    return result;
}

core::outcome<usage_result> plain_metric_replicas(const calculator_context& ctx,
                                                  const sample_set& given,
                                                  std::int64_t target_usage,
                                                  std::string_view resource) {
    auto opened = open_calculation(ctx, given, resource);
    if (!opened) return opened.error();
    auto& [groups, samples] = *opened;

    // GetMetricUsageRatio: the integer-truncated average over the samples, then the ratio.
    auto average_of = [](const sample_set& s) {
        core::int128 total = 0;
        for (const auto& sample : s)
            total += sample.milli;
        const core::int128 average = total / static_cast<core::int128>(s.size());
        return static_cast<std::int64_t>(
            std::clamp<core::int128>(average, std::numeric_limits<std::int64_t>::min(),
                                     std::numeric_limits<std::int64_t>::max()));
    };
    auto ratio_of = [&](const sample_set& s) {
        return static_cast<double>(average_of(s)) / static_cast<double>(target_usage);
    };
    usage_result result{ctx.current_replicas, average_of(samples.get()),
                        std::move(groups.counted_unready)};
    const double ratio = ratio_of(samples.get());

    const bool scale_up_with_unready = !groups.unready.empty() && ratio > 1.0;
    if (!scale_up_with_unready && groups.missing.empty()) {
        if (!ctx.tol.within(ratio)) result.replicas = ceil_replicas(ratio * groups.ready_count);
        return result;
    }
    // Scale-down: a missing pod counts as using exactly the target.
    fill_missing_and_unready(samples.edit(), groups, ratio, scale_up_with_unready,
                             [&](std::string_view) { return target_usage; });
    result.replicas = rebalanced_replicas(ctx, ratio, samples.get(), ratio_of);
    return result;
}

core::outcome<ratio_replicas> usage_ratio_replicas(const calculator_context& ctx,
                                                   double usage_ratio) {
    if (ctx.current_replicas == 0)
        return ratio_replicas{ceil_replicas(usage_ratio), {}}; // from zero: no tolerance, no pods
    if (ctx.tol.within(usage_ratio)) return ratio_replicas{ctx.current_replicas, {}};
    const auto& pods = *ctx.pods;
    if (pods.empty()) return "unable to calculate ready pods: " + no_pods;
    ratio_replicas result;
    std::int64_t ready = 0;
    for (const pod_info* pod : pods) {
        if (pod->phase != pod_phase::running) continue;
        if (pod->ready == core::condition_status::true_) {
            ++ready;
        } else if (ctx.unready == unready_pods::count && !pod->deleting &&
                   past_start_up(*pod, *ctx.config, ctx.now)) {
            ++ready;
            result.counted_unready.push_back(pod->name);
        }
    }
    // Count: readiness collapsed before any pod got past its start-up windows.
    if (ready == 0 && ctx.unready == unready_pods::count) {
        ready = ctx.current_replicas;
        result.replicas_stood_in = true;
    }
    result.replicas = ceil_replicas(usage_ratio * static_cast<double>(ready));
    return result;
}

usage_result per_pod_replicas(std::int32_t status_replicas, std::int64_t usage,
                              std::int64_t target_per_pod, const tolerances& tol) {
    usage_result result{status_replicas, 0, {}};
    const double ratio = static_cast<double>(usage) / (static_cast<double>(target_per_pod) *
                                                       static_cast<double>(status_replicas));
    if (!tol.within(ratio))
        result.replicas =
            ceil_replicas(static_cast<double>(usage) / static_cast<double>(target_per_pod));
    // getPerPodUsage: MaxInt64 stays MaxInt64, 0 replicas report 0.
    if (static_cast<double>(usage) >=
        static_cast<double>(std::numeric_limits<std::int64_t>::max())) {
        result.usage = std::numeric_limits<std::int64_t>::max();
    } else if (status_replicas != 0) {
        result.usage = static_cast<std::int64_t>(
            std::ceil(static_cast<double>(usage) / static_cast<double>(status_replicas)));
    }
    return result;
}

} // namespace hpaplus::policy
