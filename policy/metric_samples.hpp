// policy/metric_samples.hpp — turning what the metrics APIs returned into per-pod samples, the way
// upstream's metrics clients do (container sums, missing containers, empty answers).
#pragma once

#include "policy/pod_grouping.hpp"
#include "policy/pod_metrics.hpp"

#include "core/outcome.hpp"
#include <boost/system/result.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::policy {

/// `GetResourceMetric`: per-pod usage of `resource` (summed over containers, or of one container).
/// A pod missing the resource in any container (or, with a container, missing that container) has
/// no sample; an empty list is an error with upstream's text.
core::outcome<sample_set> samples_from_pod_metrics(const std::vector<pod_metrics>& items,
                                                   std::string_view resource,
                                                   std::string_view container);
/// The same over views (a shared list's items, not copied).
core::outcome<sample_set> samples_from_pod_metrics(const std::vector<const pod_metrics*>& items,
                                                   std::string_view resource,
                                                   std::string_view container);

/// `GetRawMetric`'s empty-answer rule for custom (Pods) metrics.
core::outcome<sample_set> samples_from_custom_metrics(sample_set items);

/// Sum of External metric values for a Value target, capped at INT64_MAX (upstream caps instead of
/// overflowing).
std::int64_t sum_capped(const std::vector<std::int64_t>& values);

/// Sum for an AverageValue target: upstream treats any negative running sum as an overflow and
/// answers INT64_MAX (so negative values scale to the maximum); kept for exactness.
std::int64_t sum_negative_as_overflow(const std::vector<std::int64_t>& values);

} // namespace hpaplus::policy
