// The evaluate command as a careless user meets it: bad files, bad JSON, bad fields. Every case
// must exit 2 with one line on stderr naming what is wrong, and never crash.
#include "../../support/build_paths.hpp"
#include "../../support/process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

using run_result = hpaplus::test::command_result;

run_result run_evaluate(const std::string& args) {
    return hpaplus::test::run_command(std::string(HPAPLUS_BINARY) + " " + args);
}

// One directory for the whole test binary, removed when it exits.
fs::path write_temp(const std::string& name, const std::string& content) {
    static const hpaplus::test::temp_dir dir;
    const fs::path p = fs::path(dir.path()) / name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
}

const std::string valid_hpa =
    R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},)"
    R"("spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":5}})";

std::string with_hpa_spec(const std::string& spec_fields) {
    return R"({"hpa":{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},)"
           R"("spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},)" +
           spec_fields + "}}}";
}

// Fields of an HPA spec with one metric named "cpu" (what spec.prediction names).
const std::string named_cpu =
    R"("maxReplicas":5,"metrics":[{"type":"Resource","name":"cpu","resource":{"name":"cpu",)"
    R"("target":{"type":"Utilization","averageUtilization":50}}}],)";

struct bad_case {
    const char* name;
    std::string input;
    const char* expect_in_message;
};
void PrintTo(const bad_case& c, std::ostream* os) {
    *os << c.name;
}

class EvaluateRejects : public ::testing::TestWithParam<bad_case> {};

TEST_P(EvaluateRejects, ExitsTwoNamingTheProblem) {
    const auto file = write_temp(std::string(GetParam().name) + ".json", GetParam().input);
    const run_result r = run_evaluate("evaluate " + file.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(GetParam().expect_in_message), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one line expected:\n"
                                                                     << r.output;
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, EvaluateRejects,
    ::testing::Values(
        bad_case{"Empty", "", "malformed JSON"},
        bad_case{"Truncated", R"({"hpa": {)", "malformed JSON"},
        bad_case{"TrailingGarbage", R"({"hpa": {}} x)", "malformed JSON"},
        bad_case{"NotAnObject", "[1, 2, 3]", "the input must be a JSON object"},
        bad_case{"DeeplyNested", std::string(100000, '[') + std::string(100000, ']'), "nesting deeper than 512 levels"},
        bad_case{"MissingHpa", "{}", "hpa: required field is missing"},
        bad_case{"UnknownTopLevelField", R"({"podmetrics": [], "hpa": )" + valid_hpa + "}", "podmetrics: unknown field"},
        bad_case{"UnknownMetricType", with_hpa_spec(R"("maxReplicas":5,"metrics":[{"type":"Foo"}])"),
                 "hpa.spec.metrics[0].type: unknown metric source type \"Foo\""},
        bad_case{"StringForInteger", with_hpa_spec(R"("maxReplicas":"5")"), "hpa.spec.maxReplicas: expected an integer, got a string"},
        bad_case{"FractionForInteger", with_hpa_spec(R"("maxReplicas":2.5)"), "hpa.spec.maxReplicas: expected an integer"},
        bad_case{"AbsurdInteger", with_hpa_spec(R"("maxReplicas":1e12)"), "hpa.spec.maxReplicas: must be between"},
        bad_case{"NegativeMax", with_hpa_spec(R"("maxReplicas":-1)"), "hpa.spec.maxReplicas: must be greater than or equal to 1"},
        bad_case{"MinAboveMax", with_hpa_spec(R"("minReplicas":9,"maxReplicas":3)"), "hpa.spec.maxReplicas"},
        bad_case{"MissingMax", with_hpa_spec(R"("minReplicas":1)"), "hpa.spec.maxReplicas: required field is missing"},
        bad_case{"TypoInSpec", with_hpa_spec(R"("maxReplicas":5,"minReplica":1)"), "hpa.spec.minReplica: unknown field"},
        bad_case{"BadQuantity", with_hpa_spec(R"("maxReplicas":5,"metrics":[{"type":"Pods","pods":{"metric":{"name":"q"},"target":{"type":"AverageValue","averageValue":"1KB"}}}])"),
                 "hpa.spec.metrics[0].pods.target.averageValue: invalid quantity \"1KB\""},
        bad_case{"ZeroUtilization", with_hpa_spec(R"("maxReplicas":5,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":0}}}])"),
                 "hpa.spec.metrics[0].resource.target.averageUtilization: must be greater than 0"},
        bad_case{"MissingSource", with_hpa_spec(R"("maxReplicas":5,"metrics":[{"type":"External"}])"),
                 "hpa.spec.metrics[0].external: required when type is External"},
        bad_case{"BadSelectPolicy", with_hpa_spec(R"("maxReplicas":5,"behavior":{"scaleUp":{"selectPolicy":"Fastest"}})"),
                 "hpa.spec.behavior.scaleUp.selectPolicy: must be one of Max, Min, Disabled"},
        bad_case{"BadRolloutPolicy", with_hpa_spec(R"("maxReplicas":5,"rolloutPolicy":"Pause")"), "hpa.spec.rolloutPolicy"},
        bad_case{"BadPodSelection", with_hpa_spec(R"("maxReplicas":5,"podSelection":"Owners")"), "hpa.spec.podSelection"},
        bad_case{"PredictionOfAnUnknownMetric", with_hpa_spec(named_cpu + R"("prediction":{"metric":"qps"})"),
                 "hpa.spec.prediction.metric: no metric of spec.metrics is named \"qps\""},
        bad_case{"PredictionPeriodUnderTwoSteps", with_hpa_spec(named_cpu + R"("prediction":{"metric":"cpu","periods":["24h","90s"]})"),
                 "hpa.spec.prediction.periods[1]: is shorter than two samples of the history (step 1m0s)"},
        bad_case{"NegativePredictionMargin", with_hpa_spec(named_cpu + R"("prediction":{"metric":"cpu","margin":-0.5})"),
                 "hpa.spec.prediction.margin: must be between 0 and 10"},
        bad_case{"BadPredictionMode", with_hpa_spec(named_cpu + R"("prediction":{"metric":"cpu","mode":"Maybe"})"),
                 "hpa.spec.prediction.mode: must be Auto or Preview"},
        bad_case{"BackendPredictionWithoutQuery", with_hpa_spec(named_cpu + R"("prediction":{"metric":"cpu","history":{"source":"Backend","backend":"prom"}})"),
                 "hpa.spec.prediction.history.query: required field is missing"},
        bad_case{"TooManyPredictionPeriods", with_hpa_spec(named_cpu + R"("prediction":{"metric":"cpu","periods":["1h","2h","3h","4h","5h","6h","7h","8h","9h","10h","11h","12h","13h","14h","15h","16h","17h"]})"),
                 "hpa.spec.prediction.periods: at most 16 periods"},
        bad_case{"BadForecast", R"({"forecast":{"value":"lots"},"hpa":)" + valid_hpa + "}", "forecast.value"},
        bad_case{"AutoscalingV1", R"({"hpa":{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","spec":{}}})",
                 "hpa.apiVersion: autoscaling/v1 is not supported"},
        bad_case{"NegativeConfig", R"({"config":{"tolerance":-0.1},"hpa":)" + valid_hpa + "}", "config.tolerance: must be between 0"},
        bad_case{"UnknownFailure", R"({"failures":["network"],"hpa":)" + valid_hpa + "}", "failures[0]: must be resource, custom"},
        bad_case{"FailureIndexOutOfRange", R"({"failures":["7"],"hpa":)" + valid_hpa + "}", "failures[0]"},
        bad_case{"BadNow", R"({"now":"yesterday","hpa":)" + valid_hpa + "}", "now: invalid RFC 3339 time"},
        bad_case{"BadHistoryTime", R"({"history":{"recommendations":[{"time":"soon","replicas":2}]},"hpa":)" + valid_hpa + "}",
                 "history.recommendations[0].time: invalid RFC 3339 time"},
        bad_case{"BadPodRequest", R"({"pods":[{"metadata":{"name":"a"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"lots"}}}]}}],"hpa":)" + valid_hpa + "}",
                 "pods[0].spec.containers[0].resources.requests.cpu: invalid quantity"},
        bad_case{"BadPodPhase", R"({"pods":[{"metadata":{"name":"a"},"status":{"phase":"Sleeping"}}],"hpa":)" + valid_hpa + "}",
                 "pods[0].status.phase: unknown pod phase"},
        bad_case{"PodsNotAnArray", R"({"pods":{"a":1},"hpa":)" + valid_hpa + "}", "pods: expected an array"},
        bad_case{"NegativeScale", R"({"scale":{"spec":{"replicas":-3}},"hpa":)" + valid_hpa + "}", "scale.spec.replicas: must be between 0"},
        bad_case{"BackendValuesNotAnObject", R"({"backendValues":[1],"hpa":)" + valid_hpa + "}", "backendValues: expected an object"},
        bad_case{"BadWindow", R"({"podMetrics":[{"metadata":{"name":"a"},"window":"forever","containers":[]}],"hpa":)" + valid_hpa + "}",
                 "podMetrics[0].window: invalid duration"}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

TEST(EvaluateCli, MissingFile) {
    const run_result r = run_evaluate("evaluate /nonexistent/case.json");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("cannot open the file"), std::string::npos) << r.output;
}

TEST(EvaluateCli, Usage) {
    EXPECT_EQ(run_evaluate("evaluate").exit_code, 2);
    EXPECT_EQ(run_evaluate("evaluate --help").exit_code, 0);
    EXPECT_EQ(run_evaluate("--help").exit_code, 0);
    EXPECT_EQ(run_evaluate("no-such-command").exit_code, 2);
    EXPECT_EQ(run_evaluate("").exit_code, 2);
}

TEST(EvaluateCli, ReadsStdinAndDecides) {
    const auto file = write_temp(
        "stdin.json",
        R"({"now":"2026-01-01T00:00:00Z","hpa":)" + valid_hpa +
            R"(,"scale":{"spec":{"replicas":7},"status":{"replicas":7,"selector":"app=web"}}})");
    const run_result r = run_evaluate("evaluate - < " + file.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("\"desiredReplicas\": 5"), std::string::npos)
        << r.output; // above max → max
    EXPECT_NE(r.output.find("Current number of replicas above Spec.MaxReplicas"),
              std::string::npos);
}

TEST(EvaluateCli, BundledExampleRuns) {
    const run_result r = run_evaluate("evaluate " + std::string(HPAPLUS_SOURCE_DIR) +
                                      "/examples/evaluate/cpu-scale-up.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("\"desiredReplicas\": 5"), std::string::npos) << r.output;
}

} // namespace
