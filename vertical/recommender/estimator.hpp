// vertical/recommender/estimator.hpp — from a container's history to its recommendation:
// percentile → +margin → confidence scaling (bounds only) → per-container minimum, then the
// VPAPlus's minAllowed/maxAllowed (the raw target is kept as uncappedTarget). Upstream:
// pkg/recommender/logic and pkg/utils/vpa/capping.go (ApplyVPAPolicy).
#pragma once

#include "vertical/recommender/aggregate.hpp"
#include "vertical/recommender/types.hpp"

#include <map>
#include <string>
#include <vector>

namespace hpaplus::vertical {

struct container_estimate {
    amounts target;
    amounts lower_bound;
    amounts upper_bound;
    friend bool operator==(const container_estimate&, const container_estimate&) = default;
};

/// Units of history (confidence_unit, a day by default): min(lifespan, samples at one a minute).
double confidence_of(const container_aggregate& a, const recommender_config& config);

/// `containers_per_pod` splits the pod minimum (25m, 250Mi) between the containers.
container_estimate estimate(const container_aggregate& a, const recommender_config& config,
                            std::size_t containers_per_pod);

/// The recommendation the VPAPlus status shows: nullopt when the policy turns the container off.
std::optional<container_recommendation> apply_policy(const std::string& container,
                                                     const container_estimate& e,
                                                     const container_policy* policy);

/// Every container's recommendation, by name (upstream's UpdateVPAs up to the capping
/// post-processor): estimate with the pod minimum shared by the containers that take part, then
/// the policy. The controller and `hpaplus recommend` both call this.
std::vector<container_recommendation>
recommend_containers(const std::map<std::string, container_aggregate>& history,
                     const std::vector<container_policy>& policies,
                     const recommender_config& config);

/// The lowest confidence of the recommended containers (0 when there are none): what the
/// LowConfidence condition reports.
double lowest_confidence(const std::map<std::string, container_aggregate>& history,
                         const std::vector<container_recommendation>& recommendations,
                         const recommender_config& config);

} // namespace hpaplus::vertical
