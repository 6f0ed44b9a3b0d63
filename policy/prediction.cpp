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
    // A per-pod target's forecast is the workload's total: it needs total / target pods,
    // however many there are now.
    const bool per_pod = m.target.type != metric_target_type::value;
    v.ratio = per_pod ? forecast / (target * base) : forecast / target;
    if (tolerance.within(v.ratio)) return v;
    // Clamped as a double first: a hostile forecast (±1e308) must not overflow the conversion.
    const double wanted =
        std::clamp(std::ceil(per_pod ? forecast / target : v.ratio * base), 0.0, 2147483647.0);
    v.replicas = static_cast<std::int32_t>(wanted);
    return v;
}

std::optional<double> forecast_quantity(const metric_spec& m, const metric_status& status,
                                        std::int32_t pods) {
    const metric_value_status& c = status.current;
    if (m.target.type == metric_target_type::value)
        return c.value ? std::optional(c.value->as_double()) : std::nullopt;
    const double n = std::max<std::int32_t>(pods, 0);
    if (m.target.type == metric_target_type::utilization)
        return c.average_utilization ? std::optional(*c.average_utilization * n) : std::nullopt;
    return c.average_value ? std::optional(c.average_value->as_double() * n) : std::nullopt;
}

prediction_input prediction_of(const forecast::forecast_result& r) {
    prediction_input in;
    if (r.value && std::isfinite(*r.value)) {
        in.value = r.value;
        in.period = r.period;
        in.next_peak = r.next_peak;
    } else {
        in.why = r.why == forecast::no_forecast::none ? "InvalidPrediction"
                                                      : std::string(forecast::to_string(r.why));
    }
    in.message = r.message;
    return in;
}

} // namespace hpaplus::policy
