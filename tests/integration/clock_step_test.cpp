// Issue 69 (2): the controller's wall clock steps (test_clock, as NTP or a resumed VM steps a
// host's) while its steady clock and the server's go on. Stabilization windows, policy periods and
// the ages of scale events are measured on the steady clock, as Go's monotonic readings make them
// in kube-controller-manager; the Recorded prediction keeps recording. (CronHPA, which follows the
// wall clock as a schedule must: cronhpa_test.cpp.)
#include "integration/controller_fixture.hpp"

#include "core/time.hpp"

#include <gtest/gtest.h>
#include <rapidjson/pointer.h>

#include <thread>

namespace hpaplus::test {
namespace {

const std::string every_second = "autoscaling.hpaplus.io/sync-period-seconds: \"1\"";
constexpr auto quarter_hour = std::chrono::minutes(15);

class ClockStepTest : public ControllerTest {
  protected:
    void SetUp() override { reset_test_clock(); }
    void TearDown() override { reset_test_clock(); }
    controller::controller_options options() {
        auto o = test_controller_options();
        o.wall_clock = test_clock;
        return o;
    }
    std::string hpa_status(const std::string& name, const char* pointer) {
        const auto doc = get_json(sim, hpas + name);
        return doc.IsObject() ? str(doc, pointer) : "<missing>";
    }
    // The load falls under a 6 s scale-down window and the clock steps by `step` at once: the
    // replicas stay for the window's length (a step forward used to end it at once, a step back
    // to stretch it by the step).
    void expect_the_window_holds_across(std::chrono::nanoseconds step) {
        apply_manifest(sim, deployment("calm", 4, "1000m"));
        ASSERT_TRUE(eventually([&] { return available("calm") == 4; }));
        controller_runner controller(sim, options());
        ASSERT_TRUE(eventually([&] { return controller.acting(); }));
        apply_manifest(sim,
                       hpa("calm", every_second,
                           "  behavior:\n    scaleDown: {stabilizationWindowSeconds: 6}\n", 1, 10));
        ASSERT_TRUE(eventually([&] {
            return hpa_status("calm", "/status/desiredReplicas") == "4";
        })) << sim.get(hpas + "calm").body;
        set_load("calm", "200m");
        step_test_clock(step);
        const auto dropped = std::chrono::steady_clock::now();
        ASSERT_TRUE(eventually([&] { return replicas("calm") < 4; }, 30s))
            << "the window did not end within 30 s";
        EXPECT_GE(std::chrono::steady_clock::now() - dropped, 5s)
            << "scaled down before the 6 s window passed";
    }
};

TEST_F(ClockStepTest, AScaleDownWindowHoldsItsLengthAcrossAStepForward) {
    expect_the_window_holds_across(quarter_hour);
}

TEST_F(ClockStepTest, AScaleDownWindowHoldsItsLengthAcrossAStepBack) {
    expect_the_window_holds_across(-quarter_hour);
}

// One pod per 5 s under a load that wants more: a step forward does not let the next pod come
// early, and a step back does not freeze scaling (the events looked 30 minutes ahead).
TEST_F(ClockStepTest, APodsPolicySpacesItsChangesAcrossStepsEitherWay) {
    apply_manifest(sim, deployment("steady", 2, "4000m"));
    ASSERT_TRUE(eventually([&] { return available("steady") == 2; }));
    controller_runner controller(sim, options());
    ASSERT_TRUE(eventually([&] { return controller.acting(); }));
    apply_manifest(sim, hpa("steady", every_second,
                            "  behavior:\n    scaleUp:\n      stabilizationWindowSeconds: 0\n"
                            "      policies: [{type: Pods, value: 1, periodSeconds: 5}]\n",
                            1, 20));
    ASSERT_TRUE(eventually([&] { return replicas("steady") > 2; }, 30s));
    std::vector<std::pair<int, std::chrono::steady_clock::time_point>> seen{
        {2, std::chrono::steady_clock::now()}};
    // Four more pods at one per 5 s, each new one unready for a few passes: well within 70 s.
    const auto deadline = std::chrono::steady_clock::now() + 70s;
    while (std::chrono::steady_clock::now() < deadline && seen.back().first < 6) {
        const int r = replicas("steady");
        if (seen.back().first != r) {
            seen.emplace_back(r, std::chrono::steady_clock::now());
            if (r == 3) step_test_clock(quarter_hour);      // right after a change
            if (r == 4) step_test_clock(-2 * quarter_hour); // and back past where it was
        }
        std::this_thread::sleep_for(50ms);
    }
    std::string text;
    for (const auto& [n, t] : seen)
        text += std::to_string(n) + " ";
    ASSERT_GE(seen.size(), 5u) << "scaling stopped: " << text;
    EXPECT_EQ(seen.back().first, 6) << text;
    for (std::size_t i = 2; i < seen.size(); ++i) { // seen[0] is not a change the test saw
        EXPECT_EQ(seen[i].first, seen[i - 1].first + 1) << text;
        EXPECT_GE(seen[i].second - seen[i - 1].second, 4500ms) << text;
    }
}

std::string recorded_prediction_hpaplus(const std::string& name) {
    return "apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: HPAPlus\nmetadata:\n  name: " +
           name +
           "\n  namespace: default\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: "
           "Deployment, name: " +
           name +
           "}\n  maxReplicas: 10\n  syncPeriodSeconds: 1\n  metrics:\n"
           "  - type: Resource\n    name: cpu\n    resource: {name: cpu, target: {type: "
           "Utilization, averageUtilization: 50}}\n  prediction:\n    metric: cpu\n"
           "    history: {source: Recorded, step: 1s}\n    periods: [1h]\n";
}

// The Recorded history after a step back: what was recorded after the new "now" goes, and the
// recording goes on (it used to stop until the clock caught up with its newest sample).
TEST_F(ClockStepTest, ARecordedPredictionKeepsRecordingAfterAStepBack) {
    apply_manifest(sim, deployment("web", 2, "400m"));
    apply_manifest(sim, recorded_prediction_hpaplus("web"));
    const std::string path =
        "/apis/autoscaling.hpaplus.io/v1alpha1/namespaces/default/hpapluscheckpoints/web";
    const auto values = [&] {
        const auto doc = get_json(sim, path);
        const auto* v = rapidjson::Pointer("/status/values").Get(doc);
        return v && v->IsArray() ? v->Size() : 0u;
    };
    const auto start = [&] {
        return core::parse_rfc3339(str(get_json(sim, path), "/status/start"));
    };
    auto o = options();
    o.prediction_checkpoint_interval = 1s;
    controller_runner controller(sim, o);
    ASSERT_TRUE(eventually([&] { return values() >= 4; }, 30s)) << values();
    step_test_clock(-quarter_hour);
    const auto stepped = test_clock();
    // Rewritten from the stepped-back clock on, and growing again.
    EXPECT_TRUE(eventually(
        [&] {
            const auto s = start();
            return s && *s >= stepped - 2s && *s < stepped + 1min && values() >= 3;
        },
        30s))
        << sim.get(path).body.substr(0, 300);
}

} // namespace
} // namespace hpaplus::test
