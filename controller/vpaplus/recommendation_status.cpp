// controller/vpaplus/recommendation_status.cpp — RecommendationProvided and LowConfidence.
#include "controller/vpaplus/recommendation_status.hpp"

#include "core/kubernetes.hpp"

#include <string>

namespace hpaplus::controller {

void set_recommendation_conditions(
    std::vector<core::condition>& conditions,
    const std::vector<vertical::container_recommendation>& recommendations, bool has_history,
    double confidence, core::time_point now) {
    using core::condition_status;
    if (recommendations.empty() && !has_history)
        core::set_condition(conditions, "RecommendationProvided", condition_status::false_,
                            "NoUsageSamples", "no usage samples yet", now);
    else if (recommendations.empty())
        core::set_condition(conditions, "RecommendationProvided", condition_status::false_,
                            "NothingToControl",
                            "every container is turned off by the policy, has no CPU sample "
                            "yet, or has its resources left to an HPAPlus",
                            now);
    else
        core::set_condition(conditions, "RecommendationProvided", condition_status::true_,
                            "RecommendationProvided", "recommendation from usage history", now);
    const auto minutes = static_cast<long long>(confidence * 24 * 60);
    core::set_condition(
        conditions, "LowConfidence",
        confidence < 1 ? condition_status::true_ : condition_status::false_,
        confidence < 1 ? "ShortHistory" : "EnoughHistory",
        "about " + std::to_string(minutes) + " minutes of history at one sample a minute", now);
}

} // namespace hpaplus::controller
