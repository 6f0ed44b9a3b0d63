// policy/metric_samples.hpp — turning what the metrics APIs returned into per-pod samples, the way
// upstream's metrics clients do (container sums, missing containers, empty answers).
#pragma once

#include "core/kubernetes.hpp"
#include "policy/pod_grouping.hpp"

#include "core/outcome.hpp"
#include <boost/system/result.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::policy {

/// `GetResourceMetric`: per-pod usage of `resource` (summed over containers, or of one container).
/// A pod missing the resource in any container (or, with a container, missing that container) has
/// no sample; an empty list is an error with upstream's text.
core::outcome<sample_set> samples_from_pod_metrics(const std::vector<core::pod_metrics>& items,
                                                   std::string_view resource,
                                                   std::string_view container);
/// The same over views (a shared list's items, not copied).
core::outcome<sample_set>
samples_from_pod_metrics(const std::vector<const core::pod_metrics*>& items,
                         std::string_view resource, std::string_view container);

/// `GetRawMetric`'s empty-answer rule for custom (Pods) metrics.
core::outcome<sample_set> samples_from_custom_metrics(sample_set items);

/// Sum of values (milli-units), whatever their sign, or nothing when the exact sum does not fit in
/// int64 (checked arithmetic): a Formula's External input fails rather than decide from a capped
/// number.
std::optional<std::int64_t> checked_sum(const std::vector<std::int64_t>& values);

/// Sum of External metric values (milli-units) as upstream's GetExternalMetricReplicas adds them:
/// in order, and at the first addition that overflows, MaxInt64 for a positive value — the rest
/// unread. Upstream's Go wraps a negative overflow, and its AverageValue path takes any negative
/// running sum for an overflow (so one negative value scales to maxReplicas); HPAPlus keeps the
/// sign: a negative overflow is MinInt64 (docs/metrics.md, "Values out of range").
std::int64_t saturating_sum(const std::vector<std::int64_t>& values);

/// The error for a sum checked_sum() refused.
std::string sum_out_of_range(std::size_t count);

} // namespace hpaplus::policy
