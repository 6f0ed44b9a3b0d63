// Issue 69 (1): a pod's start-up boost record counts only when the cluster agrees with it — a
// VPAPlus with startupBoost on the target names it, and its unboosted CPU is the pod template's
// (policy/boost_trust.hpp). Rows: the forgeries the issue found, and the records VPAPlus writes.
#include "policy/boost_trust.hpp"

#include <gtest/gtest.h>

namespace hpaplus::policy {
namespace {

core::quantity milli(std::int64_t m) {
    return core::quantity::from_milli(m, core::quantity_format::decimal_si);
}

struct trust_case {
    const char* name;
    std::vector<boosted_container> boosted;
    bool authority = true; ///< a VPAPlus "web" with startupBoost; template app: 500m, limit 1
    bool believed;
};

class BoostTrust : public ::testing::TestWithParam<trust_case> {};

TEST_P(BoostTrust, BelievesOnlyWhatTheClusterAgreesWith) {
    const trust_case& c = GetParam();
    const boost_authority authority{"web", {{"app", 500, 1000}, {"sidecar", 100, std::nullopt}}};
    pod_info pod;
    pod.name = "web-1";
    pod.boosted = c.boosted;
    EXPECT_EQ(boost_believed(pod, c.authority ? &authority : nullptr), c.believed);

    std::vector<const pod_info*> pods{&pod};
    std::forward_list<pod_info> vetted;
    const auto ignored = vet_boosts(pods, c.authority ? &authority : nullptr, vetted);
    EXPECT_EQ(ignored.size(), c.believed ? 0u : 1u);
    EXPECT_EQ(pods[0]->boosted.empty(), !c.believed) << "an ignored record is dropped";
    EXPECT_EQ(pod.boosted, c.boosted) << "the cached pod is never changed";
}

INSTANTIATE_TEST_SUITE_P(
    Rows, BoostTrust,
    ::testing::Values(
        trust_case{"WrittenByTheVpaPlus", {{"app", milli(500), std::nullopt, "web"}}, true, true},
        trust_case{"WithTheTemplatesLimit", {{"app", milli(500), milli(1000), "web"}}, true, true},
        trust_case{"TwoContainers",
                   {{"app", milli(500), std::nullopt, "web"},
                    {"sidecar", milli(100), std::nullopt, "web"}},
                   true,
                   true},
        trust_case{"NoVpaPlusAnywhere", {{"app", milli(500), std::nullopt, "web"}}, false, false},
        trust_case{"NamesAnotherVpaPlus", {{"app", milli(500), std::nullopt, "x"}}, true, false},
        trust_case{"OneMillicore", {{"app", milli(1), std::nullopt, "web"}}, true, false},
        trust_case{
            "AHundredThousandCores", {{"app", milli(100000000), std::nullopt, "web"}}, true, false},
        trust_case{"AnotherLimit", {{"app", milli(500), milli(4000), "web"}}, true, false},
        trust_case{"ALimitTheTemplateDoesNotHave",
                   {{"sidecar", milli(100), milli(200), "web"}},
                   true,
                   false},
        trust_case{"NoRequestClaimed", {{"app", std::nullopt, std::nullopt, "web"}}, true, false},
        trust_case{"AContainerNotInTheTemplate",
                   {{"stray", milli(500), std::nullopt, "web"}},
                   true,
                   false},
        trust_case{
            "OneGoodOneForged",
            {{"app", milli(500), std::nullopt, "web"}, {"sidecar", milli(1), std::nullopt, "web"}},
            true,
            false}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(BoostTrust, TheMessageNamesTenPodsAndCountsTheRest) {
    std::vector<std::string> pods;
    for (int i = 0; i < 12; ++i)
        pods.push_back("p" + std::to_string(i));
    const std::string m = ignored_boosts_message(pods);
    EXPECT_NE(m.find("p0, p1"), std::string::npos) << m;
    EXPECT_NE(m.find("p9 and 2 more"), std::string::npos) << m;
    EXPECT_EQ(m.find("p10"), std::string::npos) << m;
}

} // namespace
} // namespace hpaplus::policy
