// Integration tests of VPAPlus's start-up boost (AEP-7862): through the webhook or in place, its
// end in place, and how the HPAPlus on the same workload counts boosted pods.
#include "integration/vertical_fixture.hpp"

namespace hpaplus::test {
namespace {

TEST_F(VerticalWebhookTest, AStartupBoostKeepsTheHpaPlusReplicasAndEndsInPlaceWithoutARestart) {
    controller_runner controller(sim, webhook_options());
    ASSERT_TRUE(eventually([&] { return controller.acting(); }));
    register_webhook(controller);
    apply_manifest(
        sim, vpaplus("boot", "\"Off\"", "  startupBoost:\n    cpu: {factor: 3, duration: 6s}\n"));
    apply_manifest(sim, hpaplus("boot", boost_hpaplus_extra, 1, 6));
    apply_manifest(sim, workload("boot", 2, "100m", "100Mi"));
    int fewest = 2;
    const auto watch_replicas = [&] {
        const int r = replicas("boot");
        if (r >= 0) fewest = std::min(fewest, r);
    };
    // Created boosted by the admission webhook: 3 × 100m, the limit-less container keeps none.
    ASSERT_TRUE(eventually([&] {
        watch_replicas();
        return every_pod("boot", 2, [](const pod_view& p) {
            return p.cpu_request == "300m" &&
                   p.boost.find("\"boosted\":\"300m\"") != std::string::npos;
        });
    })) << vstatus("boot", "/status");
    const auto boosted = uids("boot");
    // While boosted, the HPAPlus measures the pods against their unboosted 100m: 50 %, not 17 %.
    ASSERT_TRUE(eventually([&] {
        watch_replicas();
        const auto ps = pods("boot");
        const bool still_boosted =
            ps.size() == 2 && ps[0].applied_cpu == "300m" && ps[1].applied_cpu == "300m";
        return still_boosted &&
               status("boot", "/status/currentMetrics/0/resource/current/averageUtilization") ==
                   "50";
    })) << status("boot", "/status");
    EXPECT_EQ(vstatus("boot", "/status/boostedPods"), "2");
    EXPECT_NE(message_at(hpapluses + "boot", "CoordinatedWithVPAPlus").find("start-up cpu boost"),
              std::string::npos)
        << message_at(hpapluses + "boot", "CoordinatedWithVPAPlus");
    EXPECT_NE(vmessage("boot", "CoordinatedWithHPAPlus").find("start-up cpu boost"),
              std::string::npos)
        << vmessage("boot", "CoordinatedWithHPAPlus");
    // Six seconds after Ready, back down in place: the same pods, never restarted.
    ASSERT_TRUE(eventually([&] {
        watch_replicas();
        return every_pod("boot", 2, [](const pod_view& p) {
            return p.cpu_request == "100m" && p.applied_cpu == "100m" &&
                   p.boost.find("\"ended\":true") != std::string::npos;
        });
    })) << vstatus("boot", "/status");
    for (const auto& p : pods("boot"))
        EXPECT_EQ(p.restarts, 0) << p.name;
    EXPECT_EQ(uids("boot"), boosted) << "resized in place, none replaced";
    EXPECT_TRUE(has_event("boot", "StartupBoostEnded"));
    EXPECT_FALSE(has_event("boot", "EvictedByVPAPlus"));
    ASSERT_TRUE(eventually([&] { return vstatus("boot", "/status/boostedPods") == "0"; }));
    // A few HPAPlus passes on the unboosted pods, then: it never scaled the workload down.
    for (int i = 0; i < 30; ++i) {
        watch_replicas();
        std::this_thread::sleep_for(100ms);
    }
    EXPECT_EQ(fewest, 2) << "the boost made the HPAPlus scale down";
    EXPECT_EQ(replicas("boot"), 2);
}

// The same workload and HPAPlus, boosted by a booster that does not say what it did (the test
// raises the requests through pods/resize itself, as a boost without the coordination would):
// the pods look idle at 17 % and the HPAPlus scales the workload down.
TEST_F(VerticalTest, AStartupBoostWithoutTheCoordinationLooksIdleAndTheHpaPlusScalesDown) {
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, hpaplus("boot", boost_hpaplus_extra, 1, 6));
    apply_manifest(sim, workload("boot", 2, "100m", "100Mi"));
    ASSERT_TRUE(eventually([&] {
        return running("boot", 2) &&
               status("boot", "/status/currentMetrics/0/resource/current/averageUtilization") ==
                   "50";
    })) << status("boot", "/status");
    EXPECT_EQ(replicas("boot"), 2);
    for (const auto& p : pods("boot")) {
        const auto r = sim.request(
            "PATCH", pods_path + "/" + p.name + "/resize",
            R"([{"op":"replace","path":"/spec/containers/0/resources/requests/cpu","value":"300m"}])",
            "application/json-patch+json");
        ASSERT_EQ(r.status, 200) << r.body;
    }
    ASSERT_TRUE(eventually([&] { return replicas("boot") == 1; })) << status("boot", "/status");
}

// Without the admission webhook, a starting pod is boosted in place right after it starts.
TEST_F(VerticalTest, WithoutTheWebhookStartingPodsAreBoostedInPlaceAndComeBackDown) {
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("warm", "\"Off\"",
                                "  startupBoost:\n    cpu: {type: Quantity, quantity: 150m, "
                                "durationSeconds: 3}\n"));
    ASSERT_TRUE(eventually([&] { return vstatus("warm", "/status/observedGeneration") == "1"; }));
    apply_manifest(sim, workload("warm", 2, "100m", "100Mi"));
    ASSERT_TRUE(eventually([&] {
        return every_pod("warm", 2, [](const pod_view& p) {
            return p.applied_cpu == "250m" &&
                   p.boost.find("\"request\":\"100m\"") != std::string::npos;
        });
    })) << vstatus("warm", "/status");
    const auto boosted = uids("warm");
    EXPECT_TRUE(has_event("warm", "StartupBoost"));
    ASSERT_TRUE(eventually([&] {
        return every_pod("warm", 2, [](const pod_view& p) {
            return p.applied_cpu == "100m" && p.boost.find("\"ended\":true") != std::string::npos;
        });
    })) << vstatus("warm", "/status");
    EXPECT_EQ(uids("warm"), boosted);
    for (const auto& p : pods("warm"))
        EXPECT_EQ(p.restarts, 0) << p.name;
    // An ended boost is never given again.
    std::this_thread::sleep_for(1s);
    for (const auto& p : pods("warm"))
        EXPECT_EQ(p.cpu_request, "100m") << p.name;
}

// A boost whose spec is taken away ends at once instead of lasting for good.
TEST_F(VerticalTest, RemovingTheStartupBoostEndsTheBoostsInForce) {
    controller_runner controller(sim, vertical_options());
    apply_manifest(
        sim, vpaplus("long", "\"Off\"", "  startupBoost:\n    cpu: {factor: 2, duration: 1h}\n"));
    apply_manifest(sim, workload("long", 2, "100m", "100Mi"));
    ASSERT_TRUE(eventually([&] {
        return every_pod("long", 2, [](const pod_view& p) { return p.applied_cpu == "200m"; });
    })) << vstatus("long", "/status");
    ASSERT_TRUE(eventually([&] { return vstatus("long", "/status/boostedPods") == "2"; }));
    const auto r = sim.request("PATCH", vpapluses + "long", R"({"spec":{"startupBoost":null}})",
                               "application/merge-patch+json");
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_TRUE(eventually([&] {
        return every_pod("long", 2, [](const pod_view& p) {
            return p.applied_cpu == "100m" && p.boost.find("\"ended\":true") != std::string::npos;
        });
    })) << vstatus("long", "/status");
    EXPECT_EQ(vstatus("long", "/status/boostedPods"), "0");
}

} // namespace
} // namespace hpaplus::test
