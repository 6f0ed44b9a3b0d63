// Table tests for spec validation: each invalid spec names its field.
#include "policy/validation.hpp"

#include "policy/defaults.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <functional>

namespace hpaplus::policy {
namespace {

struct validation_case {
    const char* name;
    std::function<void(autoscaler_spec&)> edit;
    const char* expect_field; ///< nullptr = valid
};
void PrintTo(const validation_case& c, std::ostream* os) {
    *os << c.name;
}

class Validation : public ::testing::TestWithParam<validation_case> {};

TEST_P(Validation, NamesTheField) {
    autoscaler a = test::make_hpa(1, 10);
    GetParam().edit(a.spec);
    apply_defaults(a.spec);
    const auto errors = validate(a.spec);
    if (!GetParam().expect_field) {
        EXPECT_TRUE(errors.empty()) << errors.front().field << ": " << errors.front().message;
        return;
    }
    ASSERT_FALSE(errors.empty());
    EXPECT_EQ(errors.front().field, GetParam().expect_field) << errors.front().message;
}

metric_spec external_value(const char* value) {
    metric_spec m;
    m.type = metric_source_type::external;
    m.metric.name = "qps";
    m.target.type = metric_target_type::value;
    m.target.value = core::quantity::parse(value).value();
    return m;
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, Validation,
    ::testing::Values(
        validation_case{"Valid", [](autoscaler_spec&) {}, nullptr},
        validation_case{"MissingTargetName", [](autoscaler_spec& s) { s.scale_target_ref.name.clear(); }, "spec.scaleTargetRef.name"},
        validation_case{"MaxZero", [](autoscaler_spec& s) { s.max_replicas = 0; }, "spec.maxReplicas"},
        validation_case{"MaxBelowMin", [](autoscaler_spec& s) { s.min_replicas = 5; s.max_replicas = 3; }, "spec.maxReplicas"},
        validation_case{"NegativeMin", [](autoscaler_spec& s) { s.min_replicas = -1; }, "spec.minReplicas"},
        validation_case{"ZeroMinNeedsObjectOrExternal", [](autoscaler_spec& s) { s.min_replicas = 0; }, "spec.minReplicas"},
        validation_case{"ZeroMinWithExternal", [](autoscaler_spec& s) { s.min_replicas = 0; s.metrics.push_back(external_value("10")); }, nullptr},
        validation_case{"ZeroUtilization", [](autoscaler_spec& s) { s.metrics[0].target.average_utilization = 0; }, "spec.metrics[0].resource.target.averageUtilization"},
        validation_case{"ResourceValueTarget", [](autoscaler_spec& s) { s.metrics[0].target.type = metric_target_type::value; }, "spec.metrics[0].resource.target.type"},
        validation_case{"NegativeExternalValue", [](autoscaler_spec& s) { s.metrics.push_back(external_value("-5")); }, "spec.metrics[1].external.target.value"},
        validation_case{"ExternalWithoutName", [](autoscaler_spec& s) { auto m = external_value("5"); m.metric.name.clear(); s.metrics.push_back(m); }, "spec.metrics[1].external.metric.name"},
        validation_case{"ExternalBadSelector", [](autoscaler_spec& s) {
            auto m = external_value("5");
            m.metric.selector = core::label_selector_spec{{}, {{"q", "Like", {"x"}}}};
            s.metrics.push_back(m);
        }, "spec.metrics[1].external.metric.selector"},
        validation_case{"PodsNeedsAverageValue", [](autoscaler_spec& s) {
            metric_spec m;
            m.type = metric_source_type::pods;
            m.metric.name = "qps";
            m.target.type = metric_target_type::value;
            m.target.value = core::quantity::from_value(1);
            s.metrics.push_back(m);
        }, "spec.metrics[1].pods.target.type"},
        validation_case{"ContainerResourceNeedsContainer", [](autoscaler_spec& s) { s.metrics[0].type = metric_source_type::container_resource; }, "spec.metrics[0].containerResource.container"},
        validation_case{"WindowTooLong", [](autoscaler_spec& s) { s.behavior.emplace(); s.behavior->scale_down.emplace(); s.behavior->scale_down->stabilization_window_seconds = 3601; }, "spec.behavior.scaleDown.stabilizationWindowSeconds"},
        validation_case{"EmptyPolicies", [](autoscaler_spec& s) { s.behavior.emplace(); s.behavior->scale_up.emplace(); s.behavior->scale_up->policies.emplace(); }, "spec.behavior.scaleUp.policies"},
        validation_case{"PeriodTooLong", [](autoscaler_spec& s) {
            s.behavior.emplace();
            s.behavior->scale_up.emplace();
            s.behavior->scale_up->policies = std::vector<scaling_policy>{{scaling_policy_type::pods, 1, 1801}};
        }, "spec.behavior.scaleUp.policies[0].periodSeconds"},
        validation_case{"ZeroPolicyValue", [](autoscaler_spec& s) {
            s.behavior.emplace();
            s.behavior->scale_down.emplace();
            s.behavior->scale_down->policies = std::vector<scaling_policy>{{scaling_policy_type::percent, 0, 15}};
        }, "spec.behavior.scaleDown.policies[0].value"},
        validation_case{"NegativeTolerance", [](autoscaler_spec& s) {
            s.behavior.emplace();
            s.behavior->scale_up.emplace();
            s.behavior->scale_up->tolerance = core::quantity::parse("-0.1").value();
        }, "spec.behavior.scaleUp.tolerance"},
        validation_case{"LargeToleranceAccepted", [](autoscaler_spec& s) {
            s.behavior.emplace();
            s.behavior->scale_up.emplace();
            s.behavior->scale_up->tolerance = core::quantity::from_value(10);
        }, nullptr},
        validation_case{"LimitsOnPodsMetric", [](autoscaler_spec& s) { s.metrics[0].target.type = metric_target_type::average_value; s.metrics[0].target.average_value = core::quantity::from_value(1); s.metrics[0].basis = usage_basis::limits; }, "spec.metrics[0].basis"},
        validation_case{"SyncPeriodZero", [](autoscaler_spec& s) { s.sync_period_seconds = 0; }, "spec.syncPeriodSeconds"},
        validation_case{"NegativeFallbackReplicas", [](autoscaler_spec& s) { s.metrics[0].fallback = fallback_spec{std::chrono::seconds(10), on_failure::replicas, -2}; }, "spec.metrics[0].fallback.replicas"}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

TEST(Defaults, FillWhatTheApiServerFills) {
    autoscaler_spec s;
    s.scale_target_ref = {"Deployment", "web", "apps/v1"};
    s.max_replicas = 5;
    s.behavior.emplace();
    apply_defaults(s);
    EXPECT_EQ(s.min_replicas, 1);
    ASSERT_EQ(s.metrics.size(), 1u);
    EXPECT_EQ(s.metrics[0].resource_name, "cpu");
    EXPECT_EQ(s.metrics[0].target.average_utilization, 80);
    EXPECT_EQ(s.behavior->scale_up->stabilization_window_seconds, 0);
    EXPECT_EQ(s.behavior->scale_up->policies->size(), 2u);
    EXPECT_FALSE(
        s.behavior->scale_down->stabilization_window_seconds); // the controller flag fills it
    EXPECT_EQ(s.behavior->scale_down->policies->size(), 1u);
    EXPECT_FALSE(uses_hpaplus_fields(s));
    s.rollout = rollout_policy::freeze;
    EXPECT_TRUE(uses_hpaplus_fields(s));
}

} // namespace
} // namespace hpaplus::policy
