// podSelection (policy/pod_selection.hpp): which pods count when labels overlap. HPAPlus-only (no
// upstream test to name): the rule is KEP-5325's OwnerReferences strategy — the pods the label
// selector matches, filtered to those whose chain of controllers leads to the target.
#include "policy/decision.hpp"
#include "policy/pod_selection.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace hpaplus::policy {
namespace {

using test::now;

const core::object_reference web{"Deployment", "web", "apps/v1"};

pod_info pod_owned_by(core::object_reference controller) {
    pod_info p;
    p.name = "p";
    p.own_template().controller = std::move(controller);
    return p;
}

struct ownership_row {
    const char* what;
    core::object_reference controller; ///< the pod's
    std::vector<controller_link> links;
    core::object_reference target;
    bool owned;
};

TEST(PodSelection, FollowsThePodsControllersToTheTarget) {
    const core::object_reference rs1{"ReplicaSet", "web-5d9f", "apps/v1"};
    const core::object_reference rs2{"ReplicaSet", "web-7c4b", "apps/v1"};
    const core::object_reference canary_rs{"ReplicaSet", "web-canary-6f8d", "apps/v1"};
    const core::object_reference canary{"Deployment", "web-canary", "apps/v1"};
    const std::vector<controller_link> links{{rs1, web}, {rs2, web}, {canary_rs, canary}};
    const ownership_row rows[] = {
        {"a pod of the target's ReplicaSet", rs1, links, web, true},
        {"a rollout: the new ReplicaSet's pod counts too", rs2, links, web, true},
        {"an overlapping canary's pod", canary_rs, links, web, false},
        {"a bare pod with the same labels", {}, links, web, false},
        {"a ReplicaSet we know nothing of", {"ReplicaSet", "other", "apps/v1"}, links, web, false},
        {"a StatefulSet's pod (it owns its pods)",
         {"StatefulSet", "db", "apps/v1"},
         {},
         {"StatefulSet", "db", "apps/v1"},
         true},
        {"another StatefulSet of the same name's kind",
         {"StatefulSet", "db2", "apps/v1"},
         {},
         {"StatefulSet", "db", "apps/v1"},
         false},
        {"a target without apiVersion", rs1, links, {"Deployment", "web", ""}, true},
        {"another group with the same kind and name",
         rs1,
         links,
         {"Deployment", "web", "example.com/v1"},
         false},
        {"another version of the same group",
         rs1,
         links,
         {"Deployment", "web", "apps/v1beta2"},
         true},
        {"a target that is the ReplicaSet itself", rs1, links, rs1, true},
        {"a cycle in the controllers ends",
         {"Thing", "a", "x/v1"},
         {{{"Thing", "a", "x/v1"}, {"Thing", "b", "x/v1"}},
          {{"Thing", "b", "x/v1"}, {"Thing", "a", "x/v1"}}},
         web,
         false},
    };
    for (const auto& r : rows)
        EXPECT_EQ(owned_by(pod_owned_by(r.controller), r.target, r.links), r.owned) << r.what;
}

TEST(PodSelection, TheExcludedAreNamedAFewAtATime) {
    EXPECT_EQ(excluded_pods_message({"canary-1"}, web),
              "1 pod matches the target's selector but is not owned by Deployment/web "
              "(podSelection OwnerReferences): canary-1");
    EXPECT_EQ(excluded_pods_message({"a", "b", "c", "d", "e", "f", "g"}, web),
              "7 pods match the target's selector but are not owned by Deployment/web "
              "(podSelection OwnerReferences): a, b, c, d, e, and 2 more");
}

// The target web has three pods at 50 % of their request; a canary sharing its labels runs two
// pods at 150 %. Upstream (LabelSelector) averages them in and scales web up; OwnerReferences
// keeps web where it is and says once which pods it left out.
struct OverlappingCanary : ::testing::Test {
    test::pod_set pods =
        test::make_pods({{"web-a"}, {"web-b"}, {"web-c"}, {"canary-x"}, {"canary-y"}});
    reconcile_input in;

    OverlappingCanary() {
        const core::object_reference rs{"ReplicaSet", "web-5d9f", "apps/v1"};
        const core::object_reference canary_rs{"ReplicaSet", "web-canary-6f8d", "apps/v1"};
        for (auto& p : pods.owned)
            p->own_template().controller = p->name.starts_with("web") ? rs : canary_rs;
        in.controllers = {{rs, web}, {canary_rs, {"Deployment", "web-canary", "apps/v1"}}};
        in.hpa = test::make_hpa(1, 10, 50);
        in.scale = scale_snapshot{3, 3, "app=web"};
        in.pods = pods.view;
        in.now = now();
        metric_reading r;
        r.samples = test::make_samples({{"web-a", 250},
                                        {"web-b", 250},
                                        {"web-c", 250},
                                        {"canary-x", 1500},
                                        {"canary-y", 1500}});
        in.readings = {r};
    }
};

TEST_F(OverlappingCanary, LabelSelectorCountsTheCanaryAsUpstreamDoes) {
    const decision d = decide(in);
    EXPECT_TRUE(d.rescale);
    EXPECT_GT(d.target_replicas, 3);
    EXPECT_TRUE(d.stages.excluded_pods.empty());
}

TEST_F(OverlappingCanary, OwnerReferencesLeavesTheCanaryOutAndSaysSoOnce) {
    in.hpa.spec.pods = pod_selection::owner_references;
    const decision first = decide(in);
    EXPECT_FALSE(first.rescale);
    EXPECT_EQ(first.desired_replicas, 3);
    EXPECT_EQ(first.stages.excluded_pods, (std::vector<std::string>{"canary-x", "canary-y"}));
    ASSERT_EQ(first.events.size(), 1u);
    EXPECT_EQ(first.events[0].reason, "PodsExcluded");
    EXPECT_EQ(first.events[0].type, "Normal");

    in.hist = first.hist; // the next pass remembers what was said
    const decision second = decide(in);
    EXPECT_FALSE(second.rescale);
    EXPECT_TRUE(second.events.empty());

    in.hist = second.hist; // the canary goes: nothing to say, and its return is news again
    in.pods.resize(3);
    const decision third = decide(in);
    EXPECT_TRUE(third.stages.excluded_pods.empty());
    EXPECT_TRUE(third.events.empty());
    in.hist = third.hist;
    in.pods = pods.view;
    EXPECT_EQ(decide(in).events.size(), 1u);
}

TEST_F(OverlappingCanary, OwnerReferencesStillScalesOnTheTargetsOwnLoad) {
    in.hpa.spec.pods = pod_selection::owner_references;
    for (auto& s : in.readings[0].samples)
        if (s.pod.starts_with("web")) s.milli = 900; // 90 % against a 50 % target
    const decision d = decide(in);
    EXPECT_TRUE(d.rescale);
    EXPECT_EQ(d.target_replicas, 6); // ceil(3 × 90 / 50)
}

} // namespace
} // namespace hpaplus::policy
