// The evaluate input written back from a decoded one (kinds/evaluate_input, what the controller's
// /debug/objects and replay's --snapshots write) decides as the original: for every golden case,
// the same pods and the same decision record — to the byte where every metric was read, and the
// same replica counts and stages where one failed (a failure is written as "failed", and evaluate
// words its error its own way).
#include "../../support/build_paths.hpp"
#include "../../support/golden_files.hpp"
#include "cli/evaluate/decision_json.hpp"
#include "cli/evaluate/explain.hpp"
#include "cli/evaluate/snapshot.hpp"
#include "cli/evaluate_command.hpp"
#include "kinds/evaluate_input.hpp"
#include "kube/encode.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>

namespace hpaplus::cli {
namespace {

namespace fs = std::filesystem;

const fs::path golden_inputs = fs::path(HPAPLUS_SOURCE_DIR) / "tests/golden/evaluate";

struct decided_case {
    snapshot s;
    policy::decision d;
};

void decide_case(std::string_view text, decided_case& c) {
    const auto now = core::parse_rfc3339("2026-01-01T00:10:00Z").value();
    const auto error = decode_snapshot(text, now, c.s);
    ASSERT_FALSE(error) << *error;
    c.d = policy::decide(c.s.input);
    std::optional<std::string> write_error;
    if (c.d.rescale) write_error = c.s.scale_write_error;
    policy::finish(c.d, c.s.input, write_error);
}

// Every pod field the decoder reads comes back: deletion, phase, owner, sidecars, pod-level
// resources, a resize the runtime applied, a Ready condition of each status, a boost record.
TEST(EvaluateInput, EveryPodFieldComesBack) {
    const std::string text = R"({
      "now": "2026-01-01T00:10:00Z",
      "hpa": {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
              "metadata": {"name": "web", "namespace": "default"},
              "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                       "maxReplicas": 10}},
      "scale": {"spec": {"replicas": 4}, "status": {"replicas": 4, "selector": "app=web"}},
      "pods": [
        {"metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web"},
                      "deletionTimestamp": "2026-01-01T00:09:00Z",
                      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d", "controller": true}]},
         "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "500m"}}}]},
         "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z",
                    "conditions": [{"type": "Ready", "status": "Unknown"}]}},
        {"metadata": {"name": "web-2", "namespace": "default", "labels": {"app": "web", "x": "y"}},
         "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}}}],
                  "initContainers": [{"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m"}}},
                                     {"name": "setup", "resources": {"requests": {"cpu": "2"}}}],
                  "resources": {"requests": {"memory": "1Gi"}}},
         "status": {"phase": "Failed"}},
        {"metadata": {"name": "web-3", "namespace": "default", "labels": {"app": "web"},
                      "annotations": {"vpaplus.hpaplus.io/startup-boost": "{\"vpaplus\":\"web\",\"containers\":[{\"name\":\"app\",\"boosted\":\"1500m\",\"request\":\"500m\",\"limit\":\"1\"}]}"}},
         "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "1"}}}]},
         "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z",
                    "containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "1500m"}}}],
                    "conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": "2026-01-01T00:01:00Z"}]}},
        {"metadata": {"name": "web-4", "namespace": "default", "labels": {"app": "web"}},
         "spec": {"containers": [{"name": "app"}]}, "status": {"phase": "Pending"}}
      ]
    })";
    decided_case original;
    ASSERT_NO_FATAL_FAILURE(decide_case(text, original));
    ASSERT_EQ(original.s.pods.size(), 4u);
    ASSERT_TRUE(original.s.pods[0].deleting);
    ASSERT_FALSE(original.s.pods[2].boosted.empty());
    rapidjson::Document doc;
    doc.Parse(text.data(), text.size());
    const std::string written =
        kinds::encode_evaluate_input(original.s.input, kube::to_json_text(doc["hpa"]));
    decided_case again;
    ASSERT_NO_FATAL_FAILURE(decide_case(written, again));
    ASSERT_EQ(again.s.pods.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_TRUE(again.s.pods[i] == original.s.pods[i]) << original.s.pods[i].name << "\n"
                                                           << written;
        EXPECT_TRUE(*again.s.pods[i].shared == *original.s.pods[i].shared)
            << original.s.pods[i].name;
    }
}

std::string explained(const std::string& name) {
    const auto now = core::parse_rfc3339("2026-01-01T00:10:00Z").value();
    const auto r = evaluate_document(test::read_file(golden_inputs / (name + ".input.json")), now,
                                     evaluate_output::explanation);
    EXPECT_EQ(r.exit_code, 0) << r.error;
    return r.output;
}

// The explanation names which pods counted and how, and the arithmetic that bound the count.
TEST(EvaluateExplain, NamesThePodsEachGroupHolds) {
    const std::string text = explained("unready-and-missing-pods");
    for (const char* part :
         {"Decision: 4 → 8 replicas, written to /scale",
          "ratio 3.6 to the target, outside the band", "ready, with a sample (2): web-1, web-2",
          "unready (1): web-3 — Pending", "missing (1): web-4 — no sample",
          "at most max(2 × 4, 4) going up", "→ 8 (DesiredWithinRange)"})
        EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
    EXPECT_NE(explained("upstream-container-missing-on-failed-pod")
                  .find("ignored (1): web-3 — being deleted, Failed or Succeeded"),
              std::string::npos);
}

TEST(EvaluateExplain, ShowsEachRatePolicysArithmetic) {
    const std::string text = explained("behavior-rate-limited");
    for (const char* part :
         {"Rate limits going up (selectPolicy Max)",
          "Pods 2 per 60s: 1 added and 0 removed since 2026-01-01T00:09:00Z → from 3, at most 5",
          "→ the policies allow up to 5 (Pods 2 per 60s)", "→ 5 (ScaleUpLimit)"})
        EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
}

TEST(EvaluateExplain, HoldsTheWindowsRecommendations) {
    const std::string text = explained("scale-down-held-by-window");
    EXPECT_NE(text.find("remembered, newest first: 4 at "), std::string::npos) << text;
}

class EvaluateInputRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(EvaluateInputRoundTrip, WrittenBackItDecidesTheSame) {
    const std::string text = test::read_file(golden_inputs / (GetParam() + ".input.json"));
    decided_case original;
    ASSERT_NO_FATAL_FAILURE(decide_case(text, original));
    rapidjson::Document doc;
    doc.Parse(text.data(), text.size());
    const std::string hpa = kube::to_json_text(doc["hpa"]);
    const kinds::decided_outcome outcome{original.d.current_replicas, original.d.desired_replicas,
                                         original.d.scale_updated, original.d.error};
    const std::string written = kinds::encode_evaluate_input(
        original.s.input, hpa, outcome, original.d.rescale && original.s.scale_write_error);

    decided_case again;
    ASSERT_NO_FATAL_FAILURE(decide_case(written, again)) << written;
    ASSERT_EQ(again.s.pods.size(), original.s.pods.size());
    for (std::size_t i = 0; i < original.s.pods.size(); ++i)
        EXPECT_TRUE(again.s.pods[i] == original.s.pods[i]) << original.s.pods[i].name;
    ASSERT_TRUE(again.s.decided);
    EXPECT_EQ(again.s.decided->desired_replicas, original.d.desired_replicas);

    const bool every_metric_read =
        std::none_of(original.s.input.readings.begin(), original.s.input.readings.end(),
                     [](const auto& r) { return r.error.has_value(); }) &&
        original.s.input.scale;
    if (every_metric_read) {
        EXPECT_EQ(encode_decision(again.d), encode_decision(original.d)) << written;
    } else {
        EXPECT_EQ(again.d.current_replicas, original.d.current_replicas);
        EXPECT_EQ(again.d.desired_replicas, original.d.desired_replicas);
        EXPECT_EQ(again.d.scale_updated, original.d.scale_updated);
        EXPECT_EQ(again.d.stages.recommended, original.d.stages.recommended);
        EXPECT_EQ(again.d.stages.limited, original.d.stages.limited);
        EXPECT_EQ(again.d.error.has_value(), original.d.error.has_value());
    }
    // The explanation of either says the controller's decision is its own.
    EXPECT_NE(explain_decision(again.s.input, again.d, again.s.decided)
                  .find("the controller decided the same"),
              std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Cases, EvaluateInputRoundTrip,
                         ::testing::ValuesIn(test::golden_cases(golden_inputs)),
                         [](const auto& info) {
                             std::string name;
                             for (char c : info.param)
                                 name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                             return name;
                         });

} // namespace
} // namespace hpaplus::cli
