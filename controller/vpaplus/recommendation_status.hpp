// controller/vpaplus/recommendation_status.hpp — the conditions a VPAPlus status carries about its
// recommendation (RecommendationProvided, LowConfidence). The controller writes them each pass;
// `hpaplus recommend` prints the same ones.
#pragma once

#include "core/kubernetes.hpp"
#include "core/time.hpp"
#include "vertical/recommender/types.hpp"

#include <vector>

namespace hpaplus::controller {

/// `has_history`: some container has a history at all; `confidence`: the lowest of the
/// recommended containers' (lowest_confidence).
void set_recommendation_conditions(
    std::vector<core::condition>& conditions,
    const std::vector<vertical::container_recommendation>& recommendations, bool has_history,
    double confidence, core::time_point now);

} // namespace hpaplus::controller
