// The updater's per-pod decisions against the upstream rules (reference §B.1, §B.2, §A.7).
#include "vertical/updater/plan.hpp"

#include <gtest/gtest.h>

namespace hpaplus::vertical {
namespace {

using namespace std::chrono_literals;

const core::time_point now{std::chrono::hours(24 * 20000)};

container_recommendation rec(std::string name, amounts target, amounts lower, amounts upper) {
    container_recommendation r;
    r.container = std::move(name);
    r.target = r.uncapped_target = target;
    r.lower_bound = lower;
    r.upper_bound = upper;
    return r;
}

container_resources res(std::string name, std::optional<std::int64_t> cpu,
                        std::optional<std::int64_t> mem,
                        std::optional<std::int64_t> cpu_limit = std::nullopt,
                        std::optional<std::int64_t> mem_limit = std::nullopt) {
    return {std::move(name), cpu, mem, cpu_limit, mem_limit};
}

TEST(Priority, OutsideRangeScaleUpAndResourceDiff) {
    const auto r = rec("app", {500, 400}, {300, 200}, {800, 1000});
    struct row {
        container_resources pod;
        bool outside, up;
        double diff;
    } rows[] = {
        {res("app", 400, 400), false, true, 0.25},        // inside; cpu 400→500
        {res("app", 200, 400), true, true, 1.5},          // cpu below the lower bound
        {res("app", 900, 400), true, false, 400.0 / 900}, // cpu above the upper bound
        // no cpu request: Σrequests is floored at 1 milli
        {res("app", std::nullopt, 400), true, true, 499.0},
        {res("other", 1, 1), false, false, 0.0}, // no recommendation for it
    };
    for (std::size_t i = 0; i < std::size(rows); ++i) {
        const auto p = priority_of({rows[i].pod}, {r});
        EXPECT_EQ(p.outside_range, rows[i].outside) << i;
        EXPECT_EQ(p.scale_up, rows[i].up) << i;
        EXPECT_NEAR(p.resource_diff, rows[i].diff, 1e-9) << i;
    }
}

TEST(Priority, SumsOverContainersPerResource) {
    const auto a = rec("a", {300, 100}, {0, 0}, {1000, 1000});
    const auto b = rec("b", {300, 100}, {0, 0}, {1000, 1000});
    // Σrequests cpu 400, Σtargets 600 → 0.5; memory 200 vs 200 → 0.
    const auto p = priority_of({res("a", 100, 100), res("b", 300, 100)}, {a, b});
    EXPECT_NEAR(p.resource_diff, 0.5, 1e-12);
    EXPECT_FALSE(p.outside_range);
}

TEST(Priority, UncontrolledResourcesAreNotCompared) {
    auto r = rec("app", {500, 400}, {300, 200}, {800, 1000});
    r.memory = false;
    const auto p = priority_of({res("app", 500, 5000)}, {r});
    EXPECT_FALSE(p.outside_range);
    EXPECT_EQ(p.resource_diff, 0.0);
}

TEST(WantsUpdate, OutsideRangeQuickOomOrTwelveHoursAndTenPercent) {
    updater_config cfg;
    pod_priority inside{false, true, 0.2};
    pod_priority small{false, true, 0.05};
    pod_priority outside{true, false, 0.0};
    EXPECT_TRUE(wants_update(outside, std::nullopt, false, now, cfg));
    EXPECT_FALSE(wants_update(inside, std::nullopt, false, now, cfg)); // no startTime
    EXPECT_FALSE(wants_update(inside, now - 11h, false, now, cfg));
    EXPECT_TRUE(wants_update(inside, now - 12h, false, now, cfg));
    EXPECT_FALSE(wants_update(small, now - 48h, false, now, cfg));
    EXPECT_TRUE(wants_update(small, now - 1h, true, now, cfg));
    EXPECT_FALSE(wants_update(pod_priority{}, now - 1h, true, now, cfg));
}

TEST(Resized, LimitsScaleWithRequestsPerControlledValues) {
    auto r = rec("app", {600, 300LL << 20}, {0, 0}, {0, 0});
    struct row {
        container_resources before, after;
    } rows[] = {
        // limit 2× request stays 2× (exact integer math)
        {res("app", 300, 100LL << 20, 600, 200LL << 20),
         res("app", 600, 300LL << 20, 1200, 600LL << 20)},
        // no limit: none set
        {res("app", 300, 100LL << 20), res("app", 600, 300LL << 20)},
        // limit == request: limit follows the request (Guaranteed stays Guaranteed)
        {res("app", 300, 100LL << 20, 300, 100LL << 20),
         res("app", 600, 300LL << 20, 600, 300LL << 20)},
        // limit without request: limit = new request
        {res("app", std::nullopt, std::nullopt, 500, 100LL << 20),
         res("app", 600, 300LL << 20, 600, 300LL << 20)},
        // 333m × 600/300 → 666m; 1000m limit × 600 / 333 = 1801.8 → 1801 (truncated)
        {res("app", 333, 100LL << 20, 1000, 150LL << 20),
         res("app", 600, 300LL << 20, 1801, 450LL << 20)},
    };
    for (std::size_t i = 0; i < std::size(rows); ++i)
        EXPECT_EQ(resized({rows[i].before}, {r})[0], rows[i].after) << i;
    r.values = controlled_values::requests_only;
    EXPECT_EQ(resized({res("app", 300, 100LL << 20, 600, 400LL << 20)}, {r})[0],
              res("app", 600, 300LL << 20, 600, 400LL << 20));
    // Containers without a recommendation are untouched.
    EXPECT_EQ(resized({res("side", 1, 2, 3, 4)}, {r})[0], res("side", 1, 2, 3, 4));
}

TEST(ForPod, RequestsOnlyCapsAtTheContainerLimit) {
    auto r = rec("app", {900, 900}, {700, 700}, {1500, 1500});
    r.values = controlled_values::requests_only;
    const auto out = for_pod({res("app", 100, 100, 800, 2000)}, {r});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].target, (amounts{800, 900}));
    EXPECT_EQ(out[0].lower_bound, (amounts{700, 700}));
    EXPECT_EQ(out[0].upper_bound, (amounts{800, 1500}));
    r.values = controlled_values::requests_and_limits;
    EXPECT_EQ(for_pod({res("app", 100, 100, 800, 2000)}, {r})[0].target, (amounts{900, 900}));
    EXPECT_TRUE(for_pod({res("other", 1, 1)}, {r}).empty());
}

TEST(Qos, ClassesOfContainerResources) {
    EXPECT_EQ(qos_of({res("a", 100, 100, 100, 100)}), qos_class::guaranteed);
    EXPECT_EQ(qos_of({res("a", std::nullopt, std::nullopt, 100, 100)}), qos_class::guaranteed);
    EXPECT_EQ(qos_of({res("a", 100, 100, 100, 100), res("b", 1, std::nullopt)}),
              qos_class::burstable);
    EXPECT_EQ(qos_of({res("a", 100, 100, 200, 100)}), qos_class::burstable);
    EXPECT_EQ(qos_of({res("a", std::nullopt, std::nullopt)}), qos_class::best_effort);
    // RequestsOnly on a Guaranteed pod would make it Burstable: the caller must see the change.
    auto r = rec("app", {600, 300}, {0, 0}, {0, 0});
    r.values = controlled_values::requests_only;
    const auto before = std::vector{res("app", 100, 100, 100, 100)};
    EXPECT_NE(qos_of(resized(before, {r})), qos_of(before));
}

TEST(Disruption, ToleranceOfTheGroup) {
    struct row {
        group_state g;
        bool ok;
    } rows[] = {
        {{4, 4, 0}, true},  // tolerance 2: 4 > 2
        {{4, 4, 1}, true},  // 3 > 2
        {{4, 4, 2}, false}, // 2 > 2 fails
        {{4, 3, 0}, true},  // one not running: 3 > 2
        {{1, 1, 0}, true},  // tolerance 0, all running, nothing in flight: one may go
        {{1, 1, 1}, false}, {{2, 2, 0}, true},  // tolerance 1: 2 > 1
        {{2, 2, 1}, false}, {{3, 2, 0}, false}, // tolerance 1: 2 > 2 fails and not all run
    };
    for (std::size_t i = 0; i < std::size(rows); ++i)
        EXPECT_EQ(can_disrupt(rows[i].g, 0.5), rows[i].ok) << i;
}

} // namespace
} // namespace hpaplus::vertical
