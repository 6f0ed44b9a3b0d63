// deploy/monitoring: the alert rules pass `promtool test rules` over series shaped as the
// controller exports them, and every series a rule or the dashboard reads is one the controller
// exports (docs/metrics.md) or kube-state-metrics makes from the shipped configuration.
#include "../../support/build_paths.hpp"
#include "../../support/process.hpp"
#include "kube/yaml_json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace hpaplus {
namespace {

const std::string source = HPAPLUS_SOURCE_DIR;

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Every document of a rendered or written YAML stream, keyed by "Kind/name".
std::map<std::string, rapidjson::Document> documents(const std::string& yaml) {
    std::map<std::string, rapidjson::Document> out;
    auto docs = kube::yaml_documents_to_json(yaml);
    EXPECT_TRUE(docs) << docs.error().text;
    for (const auto& json : docs ? *docs : std::vector<std::string>{}) {
        rapidjson::Document d;
        d.Parse(json.c_str());
        if (!d.IsObject() || !d.HasMember("kind") || !d.HasMember("metadata")) continue;
        out[std::string(d["kind"].GetString()) + "/" + d["metadata"]["name"].GetString()] =
            std::move(d);
    }
    return out;
}

std::string json_text(const rapidjson::Value& v) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    v.Accept(writer);
    return {buffer.GetString(), buffer.GetSize()};
}

// The metric names a PromQL expression reads: identifiers that are not functions, aggregations,
// keywords, label names (in braces or grouping clauses), durations or strings.
std::set<std::string> metric_names(std::string expr) {
    // Grafana's label_values(METRIC, label): the metric only.
    expr =
        std::regex_replace(expr, std::regex(R"(label_values\(\s*([A-Za-z_:][\w:]*)[^)]*\))"), "$1");
    expr = std::regex_replace(expr, std::regex(R"("[^"]*"|'[^']*')"), "\"\"");
    expr = std::regex_replace(expr, std::regex(R"(\{[^}]*\})"), " ");
    expr = std::regex_replace(expr, std::regex(R"(\[[^\]]*\])"), " ");
    expr = std::regex_replace(
        expr, std::regex(R"(\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\))"), " ");
    static const std::set<std::string> keywords = {
        "and",         "or",   "unless", "by",  "without", "on",  "ignoring", "group_left",
        "group_right", "bool", "offset", "inf", "nan",     "Inf", "NaN"};
    std::set<std::string> names;
    const std::regex token(R"(\$?[A-Za-z_:][\w:]*|[0-9][\w.]*)");
    for (auto it = std::sregex_iterator(expr.begin(), expr.end(), token);
         it != std::sregex_iterator(); ++it) {
        const std::string t = it->str();
        const auto after = expr.find_first_not_of(" \t\n", it->position() + t.size());
        if (t[0] == '$' || std::isdigit(static_cast<unsigned char>(t[0])) || keywords.count(t) ||
            (after != std::string::npos && expr[after] == '('))
            continue;
        names.insert(t);
    }
    return names;
}

// Every family docs/metrics.md lists (the backticked names in its tables' first column), with the
// series a histogram adds.
std::set<std::string> documented_families() {
    std::set<std::string> out;
    std::stringstream doc(read_text(source + "/docs/metrics.md"));
    const std::regex family("`([a-z_:][a-z0-9_:]*)`");
    for (std::string line; std::getline(doc, line);) {
        if (line.rfind("| `", 0) != 0) continue;
        const std::string first = line.substr(0, line.find('|', 1));
        const bool histogram = line.find("| histogram |") != std::string::npos;
        for (auto it = std::sregex_iterator(first.begin(), first.end(), family);
             it != std::sregex_iterator(); ++it) {
            const std::string name = (*it)[1];
            out.insert(name);
            if (histogram)
                for (const char* suffix : {"_bucket", "_count", "_sum"})
                    out.insert(name + suffix);
        }
    }
    return out;
}

TEST(Monitoring, RendersWithEveryKubectl) {
    std::vector<std::string> kubectls{"kubectl"};
    std::stringstream extra(HPAPLUS_EXTRA_KUBECTLS);
    for (std::string k; std::getline(extra, k, ':');)
        if (!k.empty()) kubectls.push_back(k);
    for (const auto& kubectl : kubectls) {
        const auto r =
            test::run_command(kubectl + " kustomize " + source + "/deploy/monitoring 2>/dev/null");
        ASSERT_EQ(r.exit_code, 0) << kubectl << ": " << r.output;
        std::set<std::string> keys;
        for (const auto& [key, doc] : documents(r.output)) {
            keys.insert(key);
            EXPECT_STREQ(doc["metadata"]["namespace"].GetString(), "hpaplus-system") << key;
        }
        EXPECT_EQ(keys, (std::set<std::string>{"ConfigMap/hpaplus-grafana-dashboard",
                                               "ConfigMap/hpaplus-kube-state-metrics",
                                               "PrometheusRule/hpaplus"}))
            << kubectl;
    }
}

// promtool, as Prometheus itself would load the rules, against tests/monitoring/rules_test.yaml.
TEST(Monitoring, TheAlertRulesPassPromtoolsTests) {
    auto docs = documents(read_text(source + "/deploy/monitoring/prometheus-rules.yaml"));
    ASSERT_EQ(docs.count("PrometheusRule/hpaplus"), 1u);
    const test::temp_dir dir;
    std::ofstream(dir.path() + "/rules.json") << json_text(docs["PrometheusRule/hpaplus"]["spec"]);
    std::ofstream(dir.path() + "/rules_test.yaml")
        << read_text(source + "/tests/monitoring/rules_test.yaml");
    const auto checked = test::run_command("promtool check rules " + dir.path() + "/rules.json");
    EXPECT_EQ(checked.exit_code, 0) << checked.output;
    const auto tested = test::run_command("promtool test rules " + dir.path() + "/rules_test.yaml");
    EXPECT_EQ(tested.exit_code, 0) << tested.output;
    EXPECT_NE(tested.output.find("SUCCESS"), std::string::npos) << tested.output;
}

// The same rules with an expectation broken: promtool says so (the test above can fail).
TEST(Monitoring, PromtoolFailsARuleTestThatDoesNotHold) {
    auto docs = documents(read_text(source + "/deploy/monitoring/prometheus-rules.yaml"));
    const test::temp_dir dir;
    std::ofstream(dir.path() + "/rules.json") << json_text(docs["PrometheusRule/hpaplus"]["spec"]);
    std::string tests = read_text(source + "/tests/monitoring/rules_test.yaml");
    const auto at = tests.find("name: stuck}");
    ASSERT_NE(at, std::string::npos);
    tests.replace(at, 12, "name: moving}");
    std::ofstream(dir.path() + "/rules_test.yaml") << tests;
    const auto tested = test::run_command("promtool test rules " + dir.path() + "/rules_test.yaml");
    EXPECT_NE(tested.exit_code, 0) << tested.output;
}

TEST(Monitoring, PromQlMetricNamesAreReadAsPrometheusReadsThem) {
    EXPECT_EQ(metric_names("sum by (kind, le) (rate(a_total{x=\"y\",z=~\"$ns\"}[5m])) * 60"),
              (std::set<std::string>{"a_total"}));
    EXPECT_EQ(metric_names("time() - max by (name) (b) > 3 * c + 60 and on(pod) d offset 5m"),
              (std::set<std::string>{"b", "c", "d"}));
    EXPECT_EQ(metric_names("label_values(e, namespace)"), (std::set<std::string>{"e"}));
    EXPECT_EQ(metric_names(
                  "histogram_quantile(0.99, sum without (pod) (rate(f_bucket[$__rate_interval])))"),
              (std::set<std::string>{"f_bucket"}));
}

// What a rule or the dashboard reads exists: a family the controller exports, or one
// kube-state-metrics makes from deploy/monitoring/kube-state-metrics.yaml.
TEST(Monitoring, RulesAndDashboardReadOnlySeriesThatExist) {
    std::set<std::string> exported = documented_families();
    ASSERT_GT(exported.size(), 40u);
    for (const char* f : {"hpaplus_reconciles_total", "process_resident_memory_bytes",
                          "horizontal_pod_autoscaler_controller_reconciliations_total",
                          "hpaplus_metric_fetch_duration_seconds_bucket"})
        EXPECT_EQ(exported.count(f), 1u) << f;
    // kube-state-metrics: PREFIX_NAME for each metric of each resource.
    auto ksm = documents(read_text(source + "/deploy/monitoring/kube-state-metrics.yaml"));
    ASSERT_EQ(ksm.count("ConfigMap/hpaplus-kube-state-metrics"), 1u);
    auto raw = kube::yaml_documents_to_json(
        ksm["ConfigMap/hpaplus-kube-state-metrics"]["data"]["hpaplus.yaml"].GetString());
    ASSERT_TRUE(raw && raw->size() == 1u);
    rapidjson::Document crs;
    crs.Parse(raw->front().c_str());
    ASSERT_STREQ(crs["kind"].GetString(), "CustomResourceStateMetrics");
    std::set<std::string> kinds;
    for (const auto& r : crs["spec"]["resources"].GetArray()) {
        EXPECT_STREQ(r["groupVersionKind"]["group"].GetString(), "autoscaling.hpaplus.io");
        EXPECT_STREQ(r["groupVersionKind"]["version"].GetString(), "v1alpha1");
        kinds.insert(r["groupVersionKind"]["kind"].GetString());
        for (const auto& m : r["metrics"].GetArray())
            exported.insert(std::string(r["metricNamePrefix"].GetString()) + "_" +
                            m["name"].GetString());
    }
    EXPECT_EQ(kinds, (std::set<std::string>{"HPAPlus", "CronHPA", "VPAPlus"}));

    std::vector<std::string> expressions;
    auto rules = documents(read_text(source + "/deploy/monitoring/prometheus-rules.yaml"));
    for (const auto& group : rules["PrometheusRule/hpaplus"]["spec"]["groups"].GetArray())
        for (const auto& rule : group["rules"].GetArray())
            expressions.emplace_back(rule["expr"].GetString());
    rapidjson::Document dashboard;
    dashboard.Parse(read_text(source + "/deploy/monitoring/grafana-dashboard.json").c_str());
    ASSERT_TRUE(dashboard.IsObject());
    for (const auto& panel : dashboard["panels"].GetArray())
        for (const auto& target : panel["targets"].GetArray())
            expressions.emplace_back(target["expr"].GetString());
    for (const auto& variable : dashboard["templating"]["list"].GetArray())
        if (variable.HasMember("query") && variable["query"].IsObject())
            expressions.emplace_back(variable["query"]["query"].GetString());
    ASSERT_GT(expressions.size(), 25u);
    std::size_t read = 0;
    for (const auto& expr : expressions)
        for (const auto& name : metric_names(expr)) {
            ++read;
            EXPECT_EQ(exported.count(name), 1u) << name << " in " << expr;
        }
    EXPECT_GT(read, 25u);
}

} // namespace
} // namespace hpaplus
