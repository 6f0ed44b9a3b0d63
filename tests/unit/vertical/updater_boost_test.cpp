// The CPU start-up boost's pure steps (vertical/updater/boost) against AEP-7862's rules: the
// boost from the unboosted request, limits per controlledValues, what the annotation records,
// the way back, and where a pod stands over time.
#include "vertical/updater/boost.hpp"

#include <gtest/gtest.h>

// Its own namespace: the unity build puts it beside the plan's tests and their helpers.
namespace hpaplus::vertical::boost_tests {
namespace {

using namespace std::chrono_literals;
using kind = cpu_startup_boost::kind;

const core::time_point now{std::chrono::hours(24 * 20000)};

cpu_startup_boost boost(kind type, double factor, std::int64_t milli = 0,
                        std::chrono::nanoseconds duration = 0s) {
    return {type, factor, milli, duration};
}

container_resources res(std::optional<std::int64_t> cpu, std::optional<std::int64_t> cpu_limit,
                        std::string name = "app") {
    return {std::move(name), cpu, std::int64_t{128} << 20, cpu_limit, std::nullopt};
}

container_policy requests_only(std::string name) {
    container_policy p;
    p.container_name = std::move(name);
    p.values = controlled_values::requests_only;
    return p;
}

TEST(StartupBoost, RaisesTheCpuRequestAndKeepsTheLimitsRatio) {
    struct row {
        const char* what;
        cpu_startup_boost b;
        container_resources before;
        std::vector<container_policy> policies;
        std::optional<std::int64_t> request, limit; ///< after; request nullopt: not boosted
    } rows[] = {
        {"factor 3, no limit stays none", boost(kind::factor, 3), res(100, {}), {}, 300, {}},
        {"factor 3, limit kept at 2 × the request",
         boost(kind::factor, 3),
         res(100, 200),
         {},
         300,
         600},
        {"limit == request stays equal (Guaranteed stays Guaranteed)",
         boost(kind::factor, 2),
         res(250, 250),
         {},
         500,
         500},
        {"a fractional factor rounds up to the millicore",
         boost(kind::factor, 1.5),
         res(101, {}),
         {},
         152,
         {}},
        {"Quantity adds (AEP-7862)", boost(kind::quantity, 1, 150), res(100, 400), {}, 250, 1000},
        {"Value is the boosted request", boost(kind::value, 1, 500), res(100, {}), {}, 500, {}},
        {"Value below the request boosts nothing",
         boost(kind::value, 1, 50),
         res(100, {}),
         {},
         {},
         {}},
        {"factor 1 boosts nothing", boost(kind::factor, 1), res(100, {}), {}, {}, {}},
        {"no cpu request: nothing to boost from", boost(kind::factor, 3), res({}, 500), {}, {}, {}},
        {"RequestsOnly: just below the kept limit",
         boost(kind::factor, 3),
         res(100, 200),
         {requests_only("*")},
         199,
         200},
        {"RequestsOnly at the limit already: nothing",
         boost(kind::factor, 3),
         res(200, 200),
         {requests_only("app")},
         {},
         {}},
        {"RequestsOnly for another container: limits scale here",
         boost(kind::factor, 3),
         res(100, 200),
         {requests_only("side")},
         300,
         600},
    };
    for (const auto& r : rows) {
        boost_record record{"v", {}, false};
        const auto after = boosted({r.before}, r.b, r.policies, record);
        ASSERT_EQ(after.size(), 1u) << r.what;
        if (!r.request) {
            EXPECT_EQ(after[0], r.before) << r.what;
            EXPECT_TRUE(record.containers.empty()) << r.what;
            continue;
        }
        EXPECT_EQ(after[0].cpu_request_milli, r.request) << r.what;
        EXPECT_EQ(after[0].cpu_limit_milli, r.limit) << r.what;
        EXPECT_EQ(after[0].memory_request_bytes, r.before.memory_request_bytes) << r.what;
        ASSERT_EQ(record.containers.size(), 1u) << r.what;
        EXPECT_EQ(record.containers[0], (boosted_cpu{"app", *r.request, r.before.cpu_request_milli,
                                                     r.before.cpu_limit_milli}))
            << r.what;
        // And back.
        EXPECT_EQ(unboosted(after, record), std::vector{r.before}) << r.what;
    }
}

TEST(StartupBoost, HugeFactorsAndQuantitiesSaturateInsteadOfOverflowing) {
    boost_record record;
    // Past 2^50 millicores the boost stops: the request is left as it is, never lowered.
    const auto a = boosted({res(INT64_MAX / 2, {})}, boost(kind::factor, 1000), {}, record);
    EXPECT_EQ(*a[0].cpu_request_milli, INT64_MAX / 2);
    const auto c = boosted({res(1000, {})}, boost(kind::factor, 1000), {}, record);
    EXPECT_EQ(*c[0].cpu_request_milli, 1000000);
    const auto b = boosted({res(100, INT64_MAX)}, boost(kind::quantity, 1, INT64_MAX), {}, record);
    EXPECT_EQ(*b[0].cpu_request_milli, std::int64_t{1} << 50);
    EXPECT_EQ(*b[0].cpu_limit_milli, INT64_MAX) << "saturated";
}

TEST(StartupBoost, UnboostsOnlyContainersThatStillHaveTheBoostedRequest) {
    const boost_record record{
        "v", {{"app", 300, 100, 200}, {"side", 200, 100, std::nullopt}}, false};
    const std::vector<container_resources> now_ = {res(300, 600), res(150, {}, "side"),
                                                   res(50, {}, "other")};
    const auto back = unboosted(now_, record);
    EXPECT_EQ(back[0], res(100, 200));
    EXPECT_EQ(back[1], res(150, {}, "side")) << "resized by someone else: left as it is";
    EXPECT_EQ(back[2], res(50, {}, "other"));
}

TEST(StartupBoost, StepsOverAPodsLife) {
    const auto b = boost(kind::factor, 3, 0, 2min);
    const boost_record on{"v", {{"app", 300, 100, std::nullopt}}, false};
    boost_record ended = on;
    ended.ended = true;
    const std::vector<container_resources> boosted_pod = {res(300, {})};
    const std::vector<container_resources> plain_pod = {res(100, {})};
    struct row {
        const char* what;
        const std::vector<container_resources>* pod;
        std::optional<boost_record> record;
        std::optional<core::time_point> ready_since;
        boost_step step;
    } rows[] = {
        {"not boosted, not Ready yet", &plain_pod, std::nullopt, std::nullopt, boost_step::boost},
        {"not boosted, Ready 1 min ago", &plain_pod, std::nullopt, now - 1min, boost_step::boost},
        {"not boosted, Ready for the whole duration", &plain_pod, std::nullopt, now - 2min,
         boost_step::none},
        {"boosted, not Ready: stays boosted however long", &boosted_pod, on, std::nullopt,
         boost_step::hold},
        {"boosted, Ready 119 s", &boosted_pod, on, now - 119s, boost_step::hold},
        {"boosted, Ready 120 s: comes back down", &boosted_pod, on, now - 120s,
         boost_step::unboost},
        {"the boost is gone from the pod: record its end", &plain_pod, on, now - 10s,
         boost_step::mark_ended},
        {"ended: never again, even not Ready", &plain_pod, ended, std::nullopt, boost_step::none},
        {"ended, the resize back not applied yet", &boosted_pod, ended, now - 3min,
         boost_step::none},
    };
    for (const auto& r : rows)
        EXPECT_EQ(to_string(step_of(*r.pod, r.record, r.ready_since, b, now)), to_string(r.step))
            << r.what;
    // Duration 0 (AEP-7862's default): down as soon as Ready.
    EXPECT_EQ(step_of(boosted_pod, on, now, boost(kind::factor, 3), now), boost_step::unboost);
}

} // namespace
} // namespace hpaplus::vertical::boost_tests
