// The updater's reading of a pod and what it writes back (vertical/updater/pod.hpp), on pods built
// by hand: the pods/resize and admission patches, whether a resize is under way or should give way
// to eviction, and how a change reads in an Event.
#include "vertical/updater/pod.hpp"

#include <gtest/gtest.h>

namespace hpaplus::vertical {
namespace {

using namespace std::chrono_literals;

const core::time_point asked_at{std::chrono::hours(24 * 365 * 56)};

pod_view two_containers() {
    pod_view p;
    p.name = "web-1";
    p.desired = {{"app", 500, 256LL << 20, 1000, std::nullopt},
                 {"sidecar", std::nullopt, std::nullopt, std::nullopt, std::nullopt}};
    p.maps = {{true, true, true}, {false, false, false}};
    p.applied = p.desired;
    return p;
}

TEST(Quantities, CpuInMillicoresMemoryWithBinarySuffixes) {
    EXPECT_EQ(cpu_text(250), "250m");
    EXPECT_EQ(cpu_text(2000), "2");
    EXPECT_EQ(memory_text(256LL << 20), "256Mi");
    EXPECT_EQ(memory_text(380258472), "380258472");
}

TEST(ResizePatch, ChangesOnlyWhatDiffersAndAddsMissingMaps) {
    const pod_view p = two_containers();
    auto to = p.desired;
    to[0].cpu_request_milli = 750;
    to[1].memory_limit_bytes = 64LL << 20;
    EXPECT_EQ(
        resize_patch(p, to),
        R"([{"op":"add","path":"/spec/containers/0/resources/requests/cpu","value":"750m"},)"
        R"({"op":"add","path":"/spec/containers/0/resources/requests/memory","value":"256Mi"},)"
        R"({"op":"add","path":"/spec/containers/0/resources/limits/cpu","value":"1"},)"
        R"({"op":"add","path":"/spec/containers/1/resources","value":{}},)"
        R"({"op":"add","path":"/spec/containers/1/resources/limits","value":{}},)"
        R"({"op":"add","path":"/spec/containers/1/resources/limits/memory","value":"64Mi"}])");
    EXPECT_EQ(resize_patch(p, p.desired), "[]");
    EXPECT_EQ(resize_patch(p, {}), "[]") << "containers without a recommendation stay";
}

TEST(AdmissionPatch, AnnotatesWhatWasSetAndEscapesIt) {
    pod_view p = two_containers();
    p.has_annotations = true;
    auto to = p.desired;
    to[0].memory_request_bytes = 128LL << 20;
    // Names come from the API server; whatever they hold, the patch stays one JSON string.
    EXPECT_EQ(
        admission_patch(p, to, "we\"b\\\n"),
        R"([{"op":"add","path":"/spec/containers/0/resources/requests/cpu","value":"500m"},)"
        R"({"op":"add","path":"/spec/containers/0/resources/requests/memory","value":"128Mi"},)"
        R"({"op":"add","path":"/spec/containers/0/resources/limits/cpu","value":"1"},)"
        R"({"op":"add","path":"/metadata/annotations/vpaplus.hpaplus.io~1updates","value":)"
        R"("Pod resources set by VPAPlus we\"b\\\u000a at creation: app: cpu request 500m, )"
        R"(memory request 128Mi, cpu limit 1"}])");
}

TEST(Resizing, IsAPendingConditionOrAppliedDifferingFromDesired) {
    pod_view p = two_containers();
    EXPECT_FALSE(resizing(p));
    p.applied[0].cpu_request_milli = 400;
    EXPECT_TRUE(resizing(p));
    p.applied = p.desired;
    p.resize_pending = "Deferred";
    EXPECT_TRUE(resizing(p));
    p.resize_pending.clear();
    p.resize_in_progress = true;
    EXPECT_TRUE(resizing(p));
}

TEST(UnderWay, WaitsForTheCacheToSeeTheResizeOnlyUntilTheTimeout) {
    const updater_config config;
    const pod_view p = two_containers();
    auto asked = p.desired;
    asked[0].cpu_request_milli = 900;
    EXPECT_TRUE(under_way(p, asked_at, asked, asked_at + 1min, config))
        << "not seen by the cache yet";
    EXPECT_FALSE(under_way(p, asked_at, asked, asked_at + 2h, config))
        << "past the in-progress timeout";
    EXPECT_FALSE(under_way(p, asked_at, p.desired, asked_at + 1min, config)) << "seen and applied";
}

struct fallback_case {
    const char* name;
    const char* pending;
    bool in_progress;
    const char* reason;
    std::chrono::minutes since;
    const char* expect;
};
void PrintTo(const fallback_case& c, std::ostream* os) {
    *os << c.name;
}

class Fallback : public ::testing::TestWithParam<fallback_case> {};
TEST_P(Fallback, SaysWhyAResizeGivesWayToEviction) {
    const auto& c = GetParam();
    pod_view p = two_containers();
    p.resize_pending = c.pending;
    p.resize_in_progress = c.in_progress;
    p.in_progress_reason = c.reason;
    EXPECT_EQ(fallback_reason(p, asked_at, asked_at + c.since, updater_config{}), c.expect);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Table, Fallback, ::testing::Values(
    fallback_case{"Infeasible", "Infeasible", false, "", 0min, "in-place resize is Infeasible"},
    fallback_case{"DeferredWaits", "Deferred", false, "", 5min, ""},
    fallback_case{"DeferredTooLong", "Deferred", false, "", 6min, "in-place resize Deferred for longer than 300s"},
    fallback_case{"InProgressWaits", "", true, "", 59min, ""},
    fallback_case{"InProgressError", "", true, "Error", 1min, "in-place resize failed (PodResizeInProgress reason Error)"},
    fallback_case{"InProgressTooLong", "", true, "", 61min, "in-place resize in progress for too long"}
));
// clang-format on

TEST(DescribeChange, NamesTheRequestsThatChangePerContainer) {
    const pod_view p = two_containers();
    auto to = p.desired;
    to[0].cpu_request_milli = 250;
    to[1].memory_request_bytes = 64LL << 20;
    EXPECT_EQ(describe_change(p, to), "app: cpu 500m→250m, sidecar: memory none→64Mi");
    EXPECT_EQ(describe_change(p, p.desired), "");
}

TEST(ResourcesKey, DiffersExactlyWhenTheResourcesDo) {
    const pod_view p = two_containers();
    auto to = p.desired;
    EXPECT_EQ(resources_key(to), resources_key(p.desired));
    to[1].cpu_limit_milli = 1;
    EXPECT_NE(resources_key(to), resources_key(p.desired));
}

} // namespace
} // namespace hpaplus::vertical
