// policy/prediction.cpp — the forecast's vote.
#include "policy/prediction.hpp"

#include "policy/metric_evaluation.hpp"

#include <algorithm>
#include <cmath>

namespace hpaplus::policy {

const metric_spec* named_metric(const autoscaler_spec& spec, std::string_view name) {
    for (const auto& m : spec.metrics)
        if (!m.name.empty() && m.name == name) return &m;
    return nullptr;
}

prediction_vote vote_of(const metric_spec& m, double forecast, std::int32_t current,
                        const tolerances& tolerance) {
    prediction_vote v;
    v.value = forecast;
    v.metric = (m.name.empty() ? metric_name(m) : m.name) + " (forecast)";
    double target = 0;
    switch (m.target.type) {
    case metric_target_type::utilization:
        target = m.target.average_utilization.value_or(0);
        break;
    case metric_target_type::average_value:
        target = m.target.average_value ? m.target.average_value->as_double() : 0;
        break;
    case metric_target_type::value:
        target = m.target.value ? m.target.value->as_double() : 0;
        break;
    }
    const std::int32_t base = std::max<std::int32_t>(current, 1);
    v.replicas = base;
    if (!(target > 0) || !std::isfinite(forecast)) return v;
    v.ratio = forecast / target;
    if (tolerance.within(v.ratio)) return v;
    // Clamped as a double first: a hostile forecast (±1e308) must not overflow the conversion.
    const double wanted = std::clamp(std::ceil(v.ratio * base), 0.0, 2147483647.0);
    v.replicas = static_cast<std::int32_t>(wanted);
    return v;
}

} // namespace hpaplus::policy
