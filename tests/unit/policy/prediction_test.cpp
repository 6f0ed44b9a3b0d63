// spec.prediction's vote (policy/prediction): a forecast against the named metric's target, as an
// Object metric's Value target is computed.
#include "policy/prediction.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace hpaplus::policy {
namespace {

metric_spec metric(metric_target_type type, double target, std::string name = "load") {
    metric_spec m;
    m.name = std::move(name);
    m.target.type = type;
    if (type == metric_target_type::utilization)
        m.target.average_utilization = static_cast<std::int32_t>(target);
    else if (type == metric_target_type::average_value)
        m.target.average_value = core::quantity::from_milli(
            static_cast<std::int64_t>(target * 1000), core::quantity_format::decimal_si);
    else
        m.target.value = core::quantity::from_milli(static_cast<std::int64_t>(target * 1000),
                                                    core::quantity_format::decimal_si);
    return m;
}

TEST(PredictionVote, AsksForTheReplicasTheForecastNeedsAgainstTheTarget) {
    const tolerances t{0.1, 0.1};
    struct row {
        const char* what;
        metric_spec m;
        double forecast;
        std::int32_t current;
        std::int32_t replicas;
    } rows[] = {
        {"Utilization: a total of 270 (90 % on 3 pods) against 50 %",
         metric(metric_target_type::utilization, 50), 270, 3, 6},
        {"the same total however many pods there are now",
         metric(metric_target_type::utilization, 50), 270, 1, 6},
        {"within the tolerance: as it is (162 on 3 pods is 108 % of 150)",
         metric(metric_target_type::utilization, 50), 162, 3, 3},
        {"below: fewer (the decision's max keeps the current load's)",
         metric(metric_target_type::utilization, 50), 60, 3, 2},
        {"AverageValue: a total of 1.5 against 250m",
         metric(metric_target_type::average_value, 0.25), 1.5, 2, 6},
        {"Value 1500 against 1000", metric(metric_target_type::value, 1000), 1500, 4, 6},
        {"from zero replicas: counted as one", metric(metric_target_type::value, 10), 35, 0, 4},
        {"a NaN forecast asks for nothing new", metric(metric_target_type::value, 10), std::nan(""),
         4, 4},
        {"a huge forecast saturates", metric(metric_target_type::value, 1), 1e300, 4, 2147483647},
        {"a hugely negative one asks for none", metric(metric_target_type::value, 1), -1e300, 4, 0},
    };
    for (const auto& r : rows) {
        const auto v = vote_of(r.m, r.forecast, r.current, t);
        EXPECT_EQ(v.replicas, r.replicas) << r.what;
        EXPECT_EQ(v.metric, "load (forecast)") << r.what;
    }
}

TEST(PredictionVote, ForecastsTheTotalOfAPerPodMetricAndTheValueOfAValueTarget) {
    metric_status s;
    s.current.average_utilization = 80;
    EXPECT_EQ(forecast_quantity(metric(metric_target_type::utilization, 50), s, 3), 240);
    s.current.average_value = core::quantity::from_milli(1500, core::quantity_format::decimal_si);
    EXPECT_EQ(forecast_quantity(metric(metric_target_type::average_value, 1), s, 4), 6);
    EXPECT_EQ(forecast_quantity(metric(metric_target_type::value, 1), s, 4), std::nullopt)
        << "a Value target's status has no value here";
    s.current.value = core::quantity::from_milli(7000, core::quantity_format::decimal_si);
    EXPECT_EQ(forecast_quantity(metric(metric_target_type::value, 1), s, 4), 7);
}

TEST(PredictionVote, FindsTheNamedMetric) {
    autoscaler_spec spec;
    spec.metrics = {metric(metric_target_type::utilization, 50, ""),
                    metric(metric_target_type::value, 5, "qps")};
    EXPECT_EQ(named_metric(spec, "qps"), &spec.metrics[1]);
    EXPECT_EQ(named_metric(spec, ""), nullptr) << "an unnamed metric cannot be named";
    EXPECT_EQ(named_metric(spec, "cpu"), nullptr);
}

} // namespace
} // namespace hpaplus::policy
