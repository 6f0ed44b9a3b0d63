// `hpaplus replay`: the issue's two-hour scenario through the binary, every replayed decision
// against `evaluate` on that decision's snapshot (in-process, over every metric type and a
// Formula), and bad input.
#include "../../support/build_paths.hpp"
#include "../../support/golden_files.hpp"
#include "../../support/process.hpp"

#include "cli/evaluate/decision_json.hpp"
#include "cli/evaluate_command.hpp"
#include "cli/replay/recording.hpp"
#include "kinds/evaluate_input.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace hpaplus::cli {
namespace {

namespace fs = std::filesystem;
using test::run_command;

const std::string source = HPAPLUS_SOURCE_DIR;
const std::string binary = HPAPLUS_BINARY;

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

struct ReplayCli : ::testing::Test {
    test::temp_dir dir;
    std::string path(const std::string& name) const { return dir.path() + "/" + name; }
    void write(const std::string& name, const std::string& text) const {
        std::ofstream(path(name), std::ios::binary) << text;
    }
};

TEST_F(ReplayCli, TheTwoHourSpikeWithASlowerVariant) {
    // 1 core, then 4 cores for an hour, then 1 core; 500m requested, 60 %, 2–20 replicas. The
    // variant scales up one pod a minute and down after ten calm minutes.
    const std::string args = " replay --autoscaler " + source + "/examples/replay/web-hpa.yaml" +
                             " --variant " + source + "/examples/replay/web-slow.yaml" +
                             " --metrics " + source + "/examples/replay/spike-2h.json";
    const auto first = run_command(binary + args + " --summary-json " + path("a.json") +
                                   " --report " + path("report.html"));
    ASSERT_EQ(first.exit_code, 0) << first.output;
    const auto second = run_command(binary + args + " --summary-json " + path("b.json") +
                                    " --report " + path("report.svg"));
    ASSERT_EQ(second.exit_code, 0) << second.output;
    EXPECT_EQ(first.output, second.output);
    const std::string summary = slurp(path("a.json"));
    EXPECT_EQ(summary, slurp(path("b.json"))); // byte-identical
    EXPECT_NE(first.output.find("web-slow"), std::string::npos) << first.output;

    rapidjson::Document doc;
    doc.Parse(summary.c_str());
    ASSERT_TRUE(doc.IsObject() && doc["variants"].IsArray()) << summary;
    ASSERT_EQ(doc["variants"].Size(), 2u);
    const auto& base = doc["variants"][0];
    const auto& slow = doc["variants"][1];
    EXPECT_STREQ(base["name"].GetString(), "web");
    EXPECT_STREQ(slow["name"].GetString(), "web-slow");
    EXPECT_GE(base["scaleUps"].GetInt(), 1);
    EXPECT_GE(base["scaleDowns"].GetInt(), 1);
    EXPECT_GE(base["maxReplicas"].GetInt(), 7);
    EXPECT_EQ(base["rescales"].GetInt(), base["scaleUps"].GetInt() + base["scaleDowns"].GetInt());
    EXPECT_GE(slow["secondsAboveTarget"].GetInt64(), base["secondsAboveTarget"].GetInt64());
    // 2 hours at no fewer than 2 replicas.
    EXPECT_GE(base["replicaSeconds"].GetInt64(), 2 * 7200);

    const std::string html = slurp(path("report.html"));
    EXPECT_NE(html.find("<svg"), std::string::npos);
    EXPECT_NE(html.find("web-slow"), std::string::npos);
    const std::string svg = slurp(path("report.svg"));
    EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST_F(ReplayCli, AWeekWithPredictionIsLessAboveTargetAndSaysWhatThatCost) {
    // examples/replay/week.json: weekdays with a morning ramp, a lunch peak and an evening bump,
    // a quiet weekend, a noisy Wednesday with a ten-minute burst.
    const auto r = run_command(binary + " replay --autoscaler " + source +
                               "/examples/replay/web-week.yaml --variant " + source +
                               "/examples/replay/web-week-predictive.yaml --metrics " + source +
                               "/examples/replay/week.json --summary-json " + path("s.json") +
                               " --report " + path("week.html"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    rapidjson::Document doc;
    doc.Parse(slurp(path("s.json")).c_str());
    ASSERT_TRUE(doc.IsObject() && doc["variants"].IsArray() && doc["variants"].Size() == 2)
        << r.output;
    const auto& base = doc["variants"][0];
    const auto& predictive = doc["variants"][1];
    EXPECT_FALSE(base.HasMember("forecastUps"));
    EXPECT_GE(predictive["forecastUps"].GetInt(), 1);
    EXPECT_LT(predictive["secondsAboveTarget"].GetInt64(), base["secondsAboveTarget"].GetInt64());
    const std::int64_t fewer =
        base["secondsAboveTarget"].GetInt64() - predictive["secondsAboveTarget"].GetInt64();
    const std::int64_t paid =
        predictive["replicaSeconds"].GetInt64() - base["replicaSeconds"].GetInt64();
    EXPECT_NE(r.output.find("web-predictive: " + std::to_string(fewer) +
                            " seconds fewer above target than web, for " +
                            std::to_string(paid < 0 ? -paid : paid) + " replica-seconds " +
                            (paid < 0 ? "less" : "more")),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("FORECASTUPS"), std::string::npos);
    const std::string html = slurp(path("week.html"));
    EXPECT_NE(html.find("the forecast raised the replicas to"), std::string::npos);
    EXPECT_NE(html.find("scale-ups by the forecast"), std::string::npos);
}

TEST_F(ReplayCli, SnapshotsAreWrittenForEveryDecision) {
    const auto r = run_command(binary + " replay --autoscaler " + source +
                               "/examples/replay/web-hpa.yaml --metrics " + source +
                               "/examples/replay/spike-2h.json --snapshots " + path("snaps"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // 7200 s at a decision every 15 s.
    EXPECT_TRUE(fs::exists(path("snaps/v0-00479.input.json")));
    EXPECT_TRUE(fs::exists(path("snaps/v0-00479.decision.json")));
    EXPECT_FALSE(fs::exists(path("snaps/v0-00480.input.json")));
    const auto again = run_command(binary + " evaluate " + path("snaps/v0-00100.input.json"));
    ASSERT_EQ(again.exit_code, 0) << again.output;
    EXPECT_EQ(again.output, slurp(path("snaps/v0-00100.decision.json")));
}

// Every decision replay takes is the decision `evaluate` takes on that decision's snapshot.
void expect_every_decision_matches_evaluate(const std::string& autoscaler,
                                            const std::string& recording) {
    auto a = decode_replay_autoscaler(autoscaler);
    ASSERT_TRUE(a) << a.error().text;
    auto load = decode_recording(recording);
    ASSERT_TRUE(load) << load.error().text;
    std::size_t compared = 0;
    policy::replay(
        a->hpa, *load, a->config,
        [&](std::size_t step, const policy::reconcile_input& in, const policy::decision& d) {
            const auto evaluated =
                evaluate_document(kinds::encode_evaluate_input(in, a->json), core::time_point{});
            ASSERT_EQ(evaluated.exit_code, 0) << evaluated.error;
            ASSERT_EQ(evaluated.output, encode_decision(d)) << "step " << step;
            ++compared;
        });
    EXPECT_GT(compared, 20u);
}

TEST(ReplayMatchesEvaluate, OnTheRecordedDay) {
    // The example day, without its two missing samples (evaluate injects a failure with its own
    // text for those).
    std::string day = slurp(source + "/examples/replay/day.json");
    for (std::size_t at; (at = day.find("null")) != std::string::npos;)
        day.replace(at, 4, "1.5");
    expect_every_decision_matches_evaluate(slurp(source + "/examples/replay/web-slow.yaml"), day);
}

TEST(ReplayMatchesEvaluate, WithAForecastFromTheRecording) {
    // Six hours of a two-hour rhythm (a 40-minute peak of 6 cores over 1 core): from the third
    // cycle on, the forecast (given to evaluate as the snapshot's "forecast") votes.
    const std::string hpa =
        R"json({"apiVersion": "autoscaling.hpaplus.io/v1alpha1", "kind": "HPAPlus",
      "metadata": {"name": "rhythm", "namespace": "shop"},
      "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "rhythm"},
        "minReplicas": 1, "maxReplicas": 30,
        "metrics": [{"name": "cpu", "type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}],
        "prediction": {"metric": "cpu", "history": {"step": "5m"}, "periods": ["2h"], "lookAhead": "10m"}}})json";
    std::string values;
    for (int minute = 0; minute < 360; ++minute)
        values += std::string(minute ? ", " : "") +
                  (minute % 120 >= 60 && minute % 120 < 100 ? "6" : "1");
    const std::string recording =
        R"({"start": "2026-11-02T00:00:00Z", "stepSeconds": 60, "initialReplicas": 2,
      "podResources": {"requests": {"cpu": "500m"}}, "series": {"0": [)" +
        values + "]}}";
    auto a = decode_replay_autoscaler(hpa);
    ASSERT_TRUE(a) << a.error().text;
    auto load = decode_recording(recording);
    ASSERT_TRUE(load) << load.error().text;
    const auto result = policy::replay(a->hpa, *load, policy::controller_config{});
    EXPECT_GE(result.summary.forecast_ups, 1) << "the third cycle's rise is met ahead of time";
    for (const auto& d : result.decisions)
        if (d.forecast) {
            const auto minute = (d.time - load->start) / std::chrono::minutes(1);
            EXPECT_GE(minute, 240) << "no forecast before two cycles of history";
            EXPECT_LT(minute % 120, 60) << "the forecast scales up before the peak, not in it";
        }
    expect_every_decision_matches_evaluate(hpa, recording);
}

TEST(ReplayMatchesEvaluate, OnEveryMetricTypeAndAFormula) {
    const std::string hpa =
        R"json({"apiVersion": "autoscaling.hpaplus.io/v1alpha1", "kind": "HPAPlus",
      "metadata": {"name": "mix", "namespace": "shop"},
      "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "mix"},
        "minReplicas": 1, "maxReplicas": 30,
        "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}},
        "metrics": [
          {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "200Mi"}}},
          {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "main", "target": {"type": "Utilization", "averageUtilization": 70}}},
          {"type": "Pods", "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "50"}}},
          {"type": "Object", "object": {"describedObject": {"kind": "Ingress", "name": "front"}, "metric": {"name": "hits"}, "target": {"type": "Value", "value": "300"}}},
          {"name": "ready", "type": "External", "external": {"metric": {"name": "queue", "selector": {"matchLabels": {"q": "jobs"}}}}},
          {"name": "retry", "type": "External", "external": {"metric": {"name": "retry"}}},
          {"type": "Formula", "formula": {"expression": "ready + 2 * max(retry, 1)", "target": {"type": "AverageValue", "averageValue": "10"}}}
        ]}})json";
    std::string series;
    const std::vector<std::vector<double>> values = {
        {500e6, 2e9, 4e9, 1e9, 300e6, 3e9}, // memory total (bytes)
        {1.0, 3.0, 6.0, 2.0, 0.5, 4.0},     // cpu of container "main" (cores)
        {100, 400, 900, 300, 50, 600},      // rps total
        {100, 500, 800, 200, 100, 700},     // hits on the Ingress
        {10, 80, 150, 40, 5, 120},          // queue
        {0, 5, 20, 3, 0, 10},               // retry
    };
    for (std::size_t i = 0; i < values.size(); ++i) {
        series += (i ? "," : "") + std::string("\"") + std::to_string(i) + "\": [";
        for (std::size_t k = 0; k < values[i].size(); ++k)
            series += (k ? "," : "") + std::to_string(values[i][k]);
        series += "]";
    }
    const std::string recording =
        R"({"start": "2026-11-02T09:00:00Z", "stepSeconds": 120, "initialReplicas": 3,
            "podResources": {"requests": {"cpu": "500m", "memory": "256Mi"}}, "series": {)" +
        series + "}}";
    expect_every_decision_matches_evaluate(hpa, recording);
}

// `n` samples of 1, comma-separated.
std::string ones(int n) {
    std::string v;
    for (int i = 0; i < n; ++i)
        v += i ? ",1" : "1";
    return v;
}

struct bad_case {
    const char* name;
    std::string args;
    std::string metrics; ///< written to m.json when not empty
    const char* expect;
};

TEST_F(ReplayCli, VerticalAloneOrBesideTheVariantsShowsTheRequests) {
    const std::string usage = source + "/examples/recommend/checkout.yaml";
    const auto alone = run_command(binary + " replay --vertical " + usage + " --summary-json " +
                                   path("v.json") + " --report " + path("v.html"));
    ASSERT_EQ(alone.exit_code, 0) << alone.output;
    EXPECT_NE(alone.output.find("CPU-VPAPLUS"), std::string::npos) << alone.output;
    rapidjson::Document summary;
    summary.Parse(test::read_file(path("v.json")).c_str());
    ASSERT_FALSE(summary.HasParseError());
    EXPECT_TRUE(summary["variants"].Empty());
    EXPECT_EQ(summary["requests"]["containers"].Size(), 2u);
    EXPECT_NE(test::read_file(path("v.html")).find("Requests with VPAPlus"), std::string::npos);
    // Beside a horizontal replay: both in one report.
    const auto both = run_command(
        binary + " replay --autoscaler " + source + "/examples/replay/web-hpa.yaml --metrics " +
        source + "/examples/replay/day.json --vertical " + usage + " --report " + path("b.html"));
    ASSERT_EQ(both.exit_code, 0) << both.output;
    const std::string html = test::read_file(path("b.html"));
    EXPECT_NE(html.find("<th>variant</th>"), std::string::npos);
    EXPECT_NE(html.find("Requests with VPAPlus"), std::string::npos);
}

TEST_F(ReplayCli, BadUsageAndBadInputExitTwoSayingWhat) {
    const std::string hpa = source + "/examples/replay/web-hpa.yaml";
    const bad_case cases[] = {
        {"no autoscaler", "--metrics m.json", "", "--autoscaler is required"},
        {"no load", "--autoscaler " + hpa, "",
         "give the load with --metrics FILE or with --prometheus URL"},
        {"both loads", "--autoscaler " + hpa + " --metrics m.json --prometheus http://127.0.0.1:1",
         "", "give the load with --metrics FILE or with --prometheus URL"},
        {"prometheus without times", "--autoscaler " + hpa + " --prometheus http://127.0.0.1:1", "",
         "--prometheus needs --from and --to"},
        {"bad report", "--autoscaler " + hpa + " --metrics M --report r.png", "{}",
         "--report must end in .html or .svg"},
        {"vertical svg", "--vertical M --report r.svg",
         R"({"vpa": {"spec": {"targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "w"}}}})",
         "--vertical alone: the report is HTML only"},
        {"vertical input", "--vertical M",
         R"({"vpa": {"spec": {"targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "w"}}}, "samples": [{}]})",
         "samples[0].time: required field is missing"},
        {"series key", "--autoscaler " + hpa + " --metrics M",
         R"({"start": "2026-01-01T00:00:00Z", "series": {"cpu": [1]}})",
         "series.cpu: series are keyed by spec.metrics index"},
        {"series value", "--autoscaler " + hpa + " --metrics M",
         R"({"start": "2026-01-01T00:00:00Z", "series": {"0": [1, "x"]}})", "series.0[1]"},
        {"series index", "--autoscaler " + hpa + " --metrics M",
         R"({"start": "2026-01-01T00:00:00Z", "series": {"0": [1], "3": [1]}})",
         "series \"3\": no autoscaler has spec.metrics[3]"},
        {"no start", "--autoscaler " + hpa + " --metrics M", R"({"series": {"0": [1]}})",
         "start: required field is missing"},
        {"unknown field", "--autoscaler " + hpa + " --metrics M",
         R"({"start": "2026-01-01T00:00:00Z", "stepseconds": 5, "series": {"0": [1]}})",
         "stepseconds"},
        {"too long", "--autoscaler " + hpa + " --metrics M",
         R"({"start": "2026-01-01T00:00:00Z", "stepSeconds": 86400, "series": {"0": [)" + ones(40) +
             "]}}",
         "longer than 35 days"},
        {"empty", "--autoscaler " + hpa + " --metrics M",
         R"({"start": "2026-01-01T00:00:00Z", "series": {"0": []}})", "no values"},
        {"deep", "--autoscaler " + hpa + " --metrics M", std::string(100000, '['), "bad JSON"},
        // Issue 69 (9): 120 one-minute steps from 2262-04-11T23:00Z pass the end of time_point.
        {"past 2262", "--autoscaler " + hpa + " --metrics M",
         R"({"start": "2262-04-11T23:00:00Z", "stepSeconds": 60, "series": {"0": [)" + ones(120) +
             "]}}",
         "ends outside the times a decision can be taken at"},
        {"prometheus past 2262",
         "--autoscaler " + hpa +
             " --prometheus http://127.0.0.1:1 --from 2262-04-01T00:00:00Z --to "
             "2262-04-02T00:00:00Z",
         "", "--from and --to must lie within the times a decision can be taken at"},
    };
    for (const auto& c : cases) {
        std::string args = c.args;
        if (!c.metrics.empty()) {
            write("m.json", c.metrics);
            for (std::size_t at; (at = args.find(" M")) != std::string::npos &&
                                 (at + 2 == args.size() || args[at + 2] == ' ');)
                args.replace(at + 1, 1, path("m.json"));
        }
        const auto r = run_command(binary + " replay " + args);
        EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.output;
        EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.name << ": " << r.output;
    }
}

// Issue 69 (9): a recording is taken only where its every decision, and every window measured back
// from it, is representable: the edges of core::decidable, a step either side.
struct recording_edge {
    const char* start;
    int steps; // one-minute steps
    bool accepted;
};

TEST(ReplayRecordingEdges, ARecordingMustEndWithinTheDecidableSpan) {
    const recording_edge cases[] = {
        {"2026-01-01T00:00:00Z", 120, true},  {"2261-04-11T00:00:00Z", 1, true},
        {"2261-04-11T23:40:00Z", 1, true},    // ends 23:41, before the last decidable instant
        {"2261-04-11T23:46:00Z", 2, false},   // its end, 23:48, is past it
        {"2262-04-11T23:00:00Z", 120, false}, // the issue's recording: dates wrapped to 1677
        {"1678-09-21T00:13:00Z", 1, true},    // from the first decidable instant on
        {"1678-09-21T00:12:00Z", 1, false},   // a minute before it
        {"1677-09-21T00:13:00Z", 1, false},   // parses, but every window from it wraps
    };
    for (const auto& c : cases) {
        const auto load =
            decode_recording(std::string(R"({"start": ")") + c.start +
                             R"(", "stepSeconds": 60, "series": {"0": [)" + ones(c.steps) + "]}}");
        EXPECT_EQ(bool(load), c.accepted) << c.start << " + " << c.steps << " min";
        if (!load && !c.accepted) {
            EXPECT_NE(load.error().text.find("start:"), std::string::npos) << load.error().text;
        }
    }
}

TEST_F(ReplayCli, AnInvalidAutoscalerNamesFileAndField) {
    write("bad.yaml",
          "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: "
          "x}\nspec:\n  scaleTargetRef: {kind: Deployment, name: x}\n  maxReplicas: 0\n");
    const auto r = run_command(binary + " replay --autoscaler " + path("bad.yaml") + " --metrics " +
                               source + "/examples/replay/spike-2h.json");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("bad.yaml: spec.maxReplicas: must be greater than or equal to 1"),
              std::string::npos)
        << r.output;
}

} // namespace
} // namespace hpaplus::cli
