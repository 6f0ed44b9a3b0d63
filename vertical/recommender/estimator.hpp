// vertical/recommender/estimator.hpp — from a container's history to its recommendation:
// percentile → +margin → confidence scaling (bounds only) → per-container minimum, then the
// VPAPlus's minAllowed/maxAllowed (the raw target is kept as uncappedTarget). Upstream:
// pkg/recommender/logic and pkg/utils/vpa/capping.go (ApplyVPAPolicy).
#pragma once

#include "vertical/recommender/aggregate.hpp"
#include "vertical/recommender/types.hpp"

namespace hpaplus::vertical {

struct container_estimate {
    amounts target;
    amounts lower_bound;
    amounts upper_bound;
    friend bool operator==(const container_estimate&, const container_estimate&) = default;
};

/// Upstream's ResourceAmount ceiling (1e14): an unbounded upper bound is written as this.
inline constexpr std::int64_t max_resource_amount = 100'000'000'000'000;

/// Days of history (in confidence_unit): min(lifespan, samples / (60 × 24)).
double confidence_of(const container_aggregate& a, const recommender_config& config);

/// `containers_per_pod` splits the pod minimum (25m, 250Mi) between the containers.
container_estimate estimate(const container_aggregate& a, const recommender_config& config,
                            std::size_t containers_per_pod);

/// The recommendation the VPAPlus status shows: nullopt when the policy turns the container off.
std::optional<container_recommendation> apply_policy(const std::string& container,
                                                     const container_estimate& e,
                                                     const container_policy* policy);

} // namespace hpaplus::vertical
