// policy/pod_grouping.hpp — which pods count, and what each pod requests (or is limited to).
// Mirrors upstream groupPods / calculateRequests; `usage_basis::limits` is the HPAPlus extension.
#pragma once

#include "policy/types.hpp"

#include "core/outcome.hpp"
#include <boost/system/result.hpp>

#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::policy {

/// Samples sorted by pod name (what upstream keeps in a map).
using sample_set = std::vector<pod_sample>;

/// Pod names for samples that view them, where no answer holds the text (a backend's values, a
/// replayed workload); a deque: names kept never move.
class sample_names {
  public:
    std::string_view keep(std::string_view name) { return names_.emplace_back(name); }

  private:
    std::deque<std::string> names_;
};
void sort_samples(sample_set& samples);
const pod_sample* find_sample(const sample_set& samples, std::string_view pod);
/// Inserts or overwrites the sample of `pod` with `milli` (keeps the set sorted); the sample views
/// `pod`, which must outlive it.
void put_sample(sample_set& samples, std::string_view pod, std::int64_t milli);

/// The result of `groupPods`.
struct pod_groups {
    int ready_count = 0;
    std::vector<std::string_view> unready;
    std::vector<std::string_view> missing;
    std::vector<std::string_view> ignored;
    /// unreadyPods Count: the pods upstream would have left out as unready that count (with
    /// their measured values) in ready_count.
    std::vector<std::string_view> counted_unready;
};

/// Classifies pods: ignored (deleted or terminal), unready (pending; for cpu also not yet ready or
/// still initializing), missing (no sample), ready. `resource` is empty for Pods metrics. With
/// `unready_pods::count`, a cpu pod that is not Ready but past its start-up windows counts as
/// ready (listed in counted_unready); pods still starting stay unready.
pod_groups group_pods(const std::vector<const pod_info*>& pods, const sample_set& samples,
                      std::string_view resource, const controller_config& config,
                      core::time_point now, unready_pods mode = unready_pods::ignore);

/// unreadyPods Count: a pod past both start-up windows (the cpu initialization period and the
/// initial readiness delay, from its start time); what it measures is no longer a boot spike.
bool past_start_up(const pod_info& pod, const controller_config& config, core::time_point now);

/// Removes the samples of the named pods.
void remove_samples(sample_set& samples, const std::vector<std::string_view>& pods);

/// One pod's request (or limit) in milli-units.
struct pod_amount {
    std::string_view pod;
    std::int64_t milli = 0;
};
using pod_amounts = std::vector<pod_amount>; ///< sorted by pod name

/// `calculateRequests`: pod-level value when set (and no container is named), else the sum over the
/// containers and sidecar init containers (or the one named container). Every listed pod must have
/// it.
core::outcome<pod_amounts> pod_resource_amounts(const std::vector<const pod_info*>& pods,
                                                std::string_view container,
                                                std::string_view resource, usage_basis basis);

const pod_amount* find_amount(const pod_amounts& amounts, std::string_view pod);

/// Whether a boost recorded as `boosted` millicores is in force in a container whose CPU request
/// is `spec` (spec.containers[].resources) and `applied` (status.containerStatuses[].resources):
/// while the request it has (applied, else spec) is the boosted one — before the boost ended,
/// or after it while the resize back down is asked for but not applied yet.
bool boost_in_force(std::int64_t boosted, const std::optional<std::int64_t>& spec,
                    const std::optional<std::int64_t>& applied, bool ended);

} // namespace hpaplus::policy
