// End-to-end: the controller scaling on a real Prometheus and a real InfluxDB (and the metrics
// APIs), a formula over both, replay from Prometheus, the fallback, and prediction.
#include "metric_backends_fixture.hpp"

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

TEST_F(MetricBackendsE2E, ScalesOnPrometheusOnInfluxDbAndOnBothWithTheMetricsApi) {
    // Prometheus: 2.5 cores over pods requesting 0.5 at 50 % → 10 pods (capped at 8).
    ASSERT_EQ(apply(deployment("web", 2, "2500m", "0")).exit_code, 0);
    ASSERT_EQ(apply(hpaplus("web", 8, prometheus_cpu)).exit_code, 0);
    // InfluxDB as the monitor: a queue of 120 at 20 per pod → 6 pods.
    ASSERT_EQ(apply(deployment("worker", 1, "100m", "0")).exit_code, 0);
    ASSERT_EQ(influx_write("queue_depth,queue=orders value=120").exit_code, 0);
    ASSERT_EQ(apply(hpaplus("worker", 10,
                            "    - type: External\n"
                            "      external:\n"
                            "        metric: {name: queue_depth}\n"
                            "        target: {type: AverageValue, averageValue: '20'}\n"
                            "      backend:\n"
                            "        name: influx\n"
                            "        query: SELECT last(\"value\") FROM \"queue_depth\" WHERE "
                            "\"queue\" = 'orders'\n"))
                  .exit_code,
              0);
    // One object on all three: metrics.k8s.io CPU (low), Prometheus per-pod rps (the largest),
    // InfluxDB per-pod latency.
    ASSERT_EQ(apply(deployment("shop", 2, "200m", "60")).exit_code, 0);
    ASSERT_EQ(influx_write("latency_ms,pod=shop-a value=5").exit_code, 0);
    ASSERT_EQ(apply(hpaplus("shop", 10,
                            "    - type: Resource\n"
                            "      resource: {name: cpu, target: {type: Utilization, "
                            "averageUtilization: 80}}\n"
                            "    - type: Pods\n"
                            "      pods:\n"
                            "        metric: {name: rps}\n"
                            "        target: {type: AverageValue, averageValue: '10'}\n"
                            "      backend:\n"
                            "        name: prom\n"
                            "        query: sum by (pod) (sim_pod_metric{metric=\"{{metric}}\","
                            "namespace=\"{{namespace}}\",pod=~\"{{pods}}\"})\n"
                            "    - type: External\n"
                            "      external:\n"
                            "        metric: {name: latency_ms}\n"
                            "        target: {type: Value, value: '100'}\n"
                            "      backend:\n"
                            "        name: influx\n"
                            "        query: SELECT last(\"value\") FROM \"latency_ms\"\n"))
                  .exit_code,
              0);
    // Prometheus has scraped the simulated pods before the controller starts.
    ASSERT_TRUE(eventually([&] {
        return prometheus_query("sim_pod_metric{pod=~\"shop-.*\"}").output.find("\"value\"") !=
               std::string::npos;
    })) << prometheus_query("sim_pod_metric").output;
    start_controller();

    EXPECT_TRUE(eventually([&] { return jsonpath("deployment web", "{.spec.replicas}") == "8"; }))
        << kubectl("get hpap web -o yaml").output;
    EXPECT_TRUE(eventually([&] {
        return jsonpath("deployment worker", "{.spec.replicas}") == "6";
    })) << kubectl("get hpap worker -o yaml").output;
    // shop: rps 60 over 2 pods at 10 per pod → 6; CPU and latency propose less.
    EXPECT_TRUE(eventually([&] { return jsonpath("deployment shop", "{.spec.replicas}") == "6"; }))
        << kubectl("get hpap shop -o yaml").output;
    EXPECT_TRUE(eventually([&] {
        return jsonpath("hpap shop", "{.status.currentMetrics[*].type}") ==
               "Resource Pods External";
    })) << kubectl("get hpap shop -o yaml").output;
    EXPECT_EQ(jsonpath("hpap shop", "{.status.currentMetrics[2].external.current.value}"), "5");
    EXPECT_EQ(condition("hpap shop", "ScalingActive", "status"), "True");
}

TEST_F(MetricBackendsE2E, AFormulaCombinesAPrometheusAndAnInfluxDbInput) {
    // rps per pod from Prometheus (40 over 2 pods = 20) plus the queue from InfluxDB (30), at 5 per
    // pod: 50 / 5 = 10 → 4 (the scale-up limit), then (10 + 30) / 5 = 8 → 6 (maxReplicas).
    ASSERT_EQ(apply(deployment("mix", 2, "100m", "40")).exit_code, 0);
    ASSERT_EQ(influx_write("queue_depth,queue=mix value=30").exit_code, 0);
    ASSERT_EQ(apply(hpaplus("mix", 6,
                            "    - name: rps\n"
                            "      type: Pods\n"
                            "      pods:\n"
                            "        metric: {name: rps}\n"
                            "      backend:\n"
                            "        name: prom\n"
                            "        query: sum by (pod) (sim_pod_metric{metric=\"{{metric}}\","
                            "namespace=\"{{namespace}}\",pod=~\"{{pods}}\"})\n"
                            "    - name: queue\n"
                            "      type: External\n"
                            "      external:\n"
                            "        metric: {name: queue_depth}\n"
                            "      backend:\n"
                            "        name: influx\n"
                            "        query: SELECT last(\"value\") FROM \"queue_depth\" WHERE "
                            "\"queue\" = 'mix'\n"
                            "    - name: load\n"
                            "      type: Formula\n"
                            "      formula:\n"
                            "        expression: rps + queue\n"
                            "        target: {type: AverageValue, averageValue: '5'}\n"))
                  .exit_code,
              0);
    ASSERT_TRUE(eventually([&] {
        return prometheus_query("sim_pod_metric{pod=~\"mix-.*\"}").output.find("\"value\"") !=
               std::string::npos;
    }));
    start_controller();

    EXPECT_TRUE(eventually([&] { return jsonpath("deployment mix", "{.spec.replicas}") == "6"; }))
        << kubectl("get hpap mix -o yaml").output;
    EXPECT_TRUE(eventually([&] {
        return jsonpath("hpap mix", "{.status.currentMetrics[*].type}") == "Pods External Formula";
    })) << kubectl("get hpap mix -o yaml").output;
    EXPECT_EQ(jsonpath("hpap mix", "{.status.currentMetrics[1].external.current.value}"), "30");
    EXPECT_EQ(jsonpath("hpap mix", "{.status.currentMetrics[2].formula.name}"), "load");
    EXPECT_EQ(condition("hpap mix", "ScalingActive", "message"),
              "the HPA was able to successfully calculate a replica count from formula metric "
              "load");
}

// An RFC 3339 UTC time `ago` before now, to the second.
std::string rfc3339_ago(std::chrono::seconds ago) {
    const std::time_t t =
        std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() - ago);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buffer;
}

TEST_F(MetricBackendsE2E, ReplayReadsTheLoadFromPrometheusWithRangeQueries) {
    // 2 cores over 2 pods requesting 500m: 200 % of request, so a 50 % target wants 8 pods.
    ASSERT_EQ(apply(deployment("web", 2, "2000m", "0")).exit_code, 0);
    ASSERT_TRUE(eventually([&] {
        return prometheus_query("container_cpu_usage_seconds_total{pod=~\"web-.*\"}")
                   .output.find("\"value\"") != std::string::npos;
    }));
    const std::string from = rfc3339_ago(std::chrono::seconds(0));
    std::this_thread::sleep_for(std::chrono::seconds(12)); // 12 s of history at 1 s scrapes
    const std::string to = rfc3339_ago(std::chrono::seconds(1));
    // A decision every second, so that 12 s of history hold several.
    const std::string hpa =
        "apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: HPAPlus\nmetadata: {name: web, "
        "namespace: default}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, "
        "name: web}\n  minReplicas: 1\n  maxReplicas: 10\n  syncPeriodSeconds: 1\n  metrics:\n";
    // cAdvisor's CPU counter (the default query), and a backend's own query template.
    write_file(dir.path() + "/cadvisor.yaml",
               hpa + "    - type: Resource\n      resource: {name: cpu, target: {type: "
                     "Utilization, averageUtilization: 50}}\n");
    write_file(dir.path() + "/template.yaml", hpa + prometheus_cpu);
    for (const char* name : {"cadvisor", "template"}) {
        const std::string summary = dir.path() + "/" + name + ".json";
        const auto r = test::run_command(
            std::string(HPAPLUS_BINARY) + " replay --autoscaler " + dir.path() + "/" + name +
            ".yaml --prometheus http://127.0.0.1:" + std::to_string(prometheus_port) + " --from " +
            from + " --to " + to +
            " --step 1s --rate-window 5s --initial-replicas 2 --pod-requests cpu=500m "
            "--summary-json " +
            summary);
        ASSERT_EQ(r.exit_code, 0) << name << ": " << r.output;
        std::ifstream in(summary);
        const std::string text((std::istreambuf_iterator<char>(in)), {});
        // Scaled up from 2 (to 4 at once, the legacy limit, then on towards 8).
        EXPECT_NE(text.find("\"scaleUps\": "), std::string::npos) << text;
        EXPECT_EQ(text.find("\"scaleUps\": 0,"), std::string::npos) << name << ": " << text;
        EXPECT_EQ(text.find("\"maxReplicas\": 2,"), std::string::npos) << name << ": " << text;
    }
    // A Prometheus that is not there: exit 1 naming the metric and the query.
    const auto down = test::run_command(
        std::string(HPAPLUS_BINARY) + " replay --autoscaler " + dir.path() +
        "/cadvisor.yaml --prometheus http://127.0.0.1:" + std::to_string(test::free_port()) +
        " --from " + from + " --to " + to + " --step 1s --pod-requests cpu=500m");
    EXPECT_EQ(down.exit_code, 1) << down.output;
    EXPECT_NE(down.output.find("spec.metrics[0]: backend prometheus: "), std::string::npos)
        << down.output;
    EXPECT_NE(
        down.output.find("container_cpu_usage_seconds_total{namespace=\"default\",pod=~\"web-.*\""),
        std::string::npos)
        << down.output;
}

TEST_F(MetricBackendsE2E, StoppingPrometheusTriggersTheFallbackAndItsReturnEndsIt) {
    ASSERT_EQ(apply(deployment("web", 2, "1000m", "0")).exit_code, 0);
    ASSERT_EQ(apply(hpaplus("web", 8,
                            prometheus_cpu +
                                "      fallback: {staleAfterSeconds: 2, onFailure: "
                                "Replicas, replicas: 5}\n"
                                "  behavior: {scaleDown: {stabilizationWindowSeconds: 0}}\n"))
                  .exit_code,
              0);
    ASSERT_TRUE(eventually([&] {
        return prometheus_query("sim_pod_cpu_usage_cores{pod=~\"web-.*\"}")
                   .output.find("\"value\"") != std::string::npos;
    }));
    start_controller({"--ops-listen=127.0.0.1:0", "--log-format=json"});
    ASSERT_FALSE(ops_url.empty());
    // 1 core over 2 × 0.5 at 50 % → 4 pods.
    ASSERT_TRUE(eventually([&] { return jsonpath("deployment web", "{.spec.replicas}") == "4"; }))
        << kubectl("get hpap web -o yaml").output;
    EXPECT_TRUE(
        eventually([&] { return condition("hpap web", "FallbackActive", "status") == "False"; }));

    prometheus->terminate();
    prometheus.reset();
    // Backend down: after staleAfterSeconds the fallback's 5 replicas apply, and it says why.
    // /metrics shows it under the backend's name: its errors, its breaker open.
    const auto scraped = [&](const std::string& series) {
        const std::string body = test::run_command("curl -s " + ops_url + "/metrics").output;
        const auto at = body.find("\n" + series + " "); // a sample's line, not its # HELP
        return at == std::string::npos ? -1.0 : std::stod(body.substr(at + series.size() + 2));
    };
    EXPECT_TRUE(eventually([&] {
        read_log();
        return scraped("hpaplus_backend_errors_total{backend=\"prom\",reason=\"unavailable\"}") >
                   0 &&
               scraped("hpaplus_backend_circuit_breaker_state{backend=\"prom\",state=\"open\"}") ==
                   1;
    })) << test::run_command("curl -s " + ops_url + "/metrics").output;
    EXPECT_GT(scraped("hpaplus_metric_fetch_duration_seconds_count{backend=\"prom\"}"), 0);
    EXPECT_TRUE(eventually([&] {
        return condition("hpap web", "FallbackActive", "status") == "True" &&
               jsonpath("deployment web", "{.spec.replicas}") == "5";
    })) << kubectl("get hpap web -o yaml").output;
    const std::string events = kubectl("get events --field-selector reason=FallbackActive").output;
    EXPECT_NE(events.find("FallbackActive"), std::string::npos) << events;
    // The condition says the backend is down (not "no data", not an unreadable answer).
    const std::string message = condition("hpap web", "FallbackActive", "message");
    EXPECT_NE(message.find("metric 0: fallback of 5 replicas (backend \"prom\" is unavailable"),
              std::string::npos)
        << message;

    // Prometheus returns (same port, same data): the metric is read again, the fallback ends.
    start_prometheus();
    EXPECT_TRUE(eventually(
        [&] { return condition("hpap web", "FallbackActive", "status") == "False"; }, 90s))
        << kubectl("get hpap web -o yaml").output;
    EXPECT_TRUE(eventually([&] { return jsonpath("deployment web", "{.spec.replicas}") != "5"; }))
        << kubectl("get hpap web -o yaml").output;

    // The log: JSON lines, the fallback engaged once and ended once, each about the object.
    EXPECT_TRUE(eventually([&] {
        read_log();
        return count_logged("fallback ended") == 1;
    }));
    EXPECT_EQ(count_logged("fallback engaged"), 1);
    for (const std::string& line : log) {
        rapidjson::Document doc;
        doc.Parse(line.c_str());
        ASSERT_TRUE(doc.IsObject() && doc.HasMember("ts") && doc.HasMember("level") &&
                    doc.HasMember("msg"))
            << line;
        const std::string msg = doc["msg"].GetString();
        if (msg.rfind("fallback", 0) != 0) continue;
        EXPECT_EQ(std::string(doc["kind"].GetString()), "HPAPlus") << line;
        EXPECT_EQ(std::string(doc["namespace"].GetString()), "default") << line;
        EXPECT_EQ(std::string(doc["name"].GetString()), "web") << line;
    }
}

// Issue 50: a query answering -1 used to saturate to INT64_MAX and scale to maxReplicas. A negative
// value is a value (the workload goes to minReplicas, the status reports it); one beyond int64
// milli-units fails the metric, and its fallback decides.
// Hostile or old answers from Prometheus: a negative value is a value; one out of range fails its
// metric; so does a sample older than maxSampleAgeSeconds — the controller asks timestamp(QUERY)
// for the samples' own time (an instant query answers its evaluation time): `up offset 5s` is a
// raw series read five seconds back, older than 2 s; `up` is fresh. (One test: each of these
// starts Prometheus, InfluxDB and a cluster.)
TEST_F(MetricBackendsE2E, ANegativeValueScalesToMinAndOutOfRangeOrStaleOnesEngageTheFallback) {
    const auto external = [](const std::string& query, const std::string& extra) {
        return "    - type: External\n"
               "      external:\n"
               "        metric: {name: lag}\n"
               "        target: {type: AverageValue, averageValue: '10'}\n"
               "      backend: {name: prom, query: '" +
               query + "'}\n" + extra +
               "  behavior: {scaleDown: {stabilizationWindowSeconds: 0}}\n";
    };
    ASSERT_EQ(apply(deployment("negative", 2, "100m", "0")).exit_code, 0);
    ASSERT_EQ(apply(hpaplus("negative", 20, external("vector(-1)", ""))).exit_code, 0);
    ASSERT_EQ(apply(deployment("huge", 2, "100m", "0")).exit_code, 0);
    ASSERT_EQ(
        apply(hpaplus("huge", 20,
                      external("vector(1e308)", "      fallback: {staleAfterSeconds: 0, onFailure: "
                                                "Replicas, replicas: 3}\n")))
            .exit_code,
        0);
    const auto up = [](const std::string& query, int max_age) {
        return "    - type: External\n"
               "      external:\n"
               "        metric: {name: up}\n"
               "        target: {type: Value, value: '1'}\n"
               "      backend: {name: prom, query: '" +
               query + "'}\n      maxSampleAgeSeconds: " + std::to_string(max_age) +
               "\n      fallback: {onFailure: Hold}\n";
    };
    ASSERT_EQ(apply(deployment("old", 2, "100m", "0")).exit_code, 0);
    ASSERT_EQ(apply(hpaplus("old", 5, up("up{job=\"sim\"} offset 5s", 2))).exit_code, 0);
    ASSERT_EQ(apply(deployment("recent", 2, "100m", "0")).exit_code, 0);
    ASSERT_EQ(apply(hpaplus("recent", 5, up("up{job=\"sim\"}", 5))).exit_code, 0);
    // Prometheus has five seconds of the sim's samples.
    ASSERT_TRUE(eventually([&] {
        return prometheus_query("up{job=\"sim\"} offset 6s").output.find("\"value\"") !=
               std::string::npos;
    }));
    start_controller();

    EXPECT_TRUE(eventually([&] {
        return jsonpath("deployment negative", "{.spec.replicas}") == "1" &&
               jsonpath("hpap negative",
                        "{.status.currentMetrics[0].external.current.averageValue}") == "-1";
    })) << kubectl("get hpap negative -o yaml").output;
    EXPECT_EQ(condition("hpap negative", "ScalingActive", "status"), "True");
    EXPECT_EQ(condition("hpap negative", "ScalingLimited", "reason"), "TooFewReplicas");

    EXPECT_TRUE(eventually([&] {
        return jsonpath("deployment huge", "{.spec.replicas}") == "3" &&
               condition("hpap huge", "FallbackActive", "status") == "True";
    })) << kubectl("get hpap huge -o yaml").output;
    const std::string message = condition("hpap huge", "FallbackActive", "message");
    EXPECT_NE(message.find("answered a value out of range: 1e+308"), std::string::npos) << message;
    // Never a number reported as valid: no current value for the failed metric.
    EXPECT_EQ(jsonpath("hpap huge", "{.status.targets}"), "lag: <unknown>/10");

    EXPECT_TRUE(eventually([&] {
        return condition("hpap old", "FallbackActive", "status") == "True" &&
               condition("hpap recent", "ScalingActive", "reason") == "ValidMetricFound";
    })) << kubectl("get hpap old recent -o yaml").output;
    const std::string stale = condition("hpap old", "FallbackActive", "message");
    // Five seconds back, give or take a scrape interval either way (CI saw 4 s once).
    bool about_five = false;
    for (const char* age : {"4s", "5s", "6s", "7s"})
        about_five |= stale.find(std::string("sample from ") + age +
                                 " ago, older than maxSampleAgeSeconds 2") != std::string::npos;
    EXPECT_TRUE(about_five) << stale;
    EXPECT_EQ(condition("hpap recent", "FallbackActive", "status"), "False");
    EXPECT_EQ(jsonpath("deployment old", "{.spec.replicas}"), "2"); // held
    // The sample-time query went to Prometheus as the controller's own query.
    std::ifstream queries(dir.path() + "/queries.log");
    const std::string logged((std::istreambuf_iterator<char>(queries)), {});
    EXPECT_NE(logged.find("timestamp(up{job=\\\"sim\\\"} offset 5s)"), std::string::npos);
}

class PredictionE2E : public MetricBackendsE2E {
  protected:
    PredictionE2E() { scenario = source + "/examples/sim/rhythm.json"; }
};

TEST_F(PredictionE2E, ScalesUpBeforeTheLoadRisesOnceItKnowsTheRhythmAndPreviewNeverWritesScale) {
    start_controller();
    ASSERT_EQ(kubectl("apply -f " + source + "/examples/prediction/web-on-sim.yaml").exit_code, 0)
        << kubectl("apply -f " + source + "/examples/prediction/web-on-sim.yaml").output;
    // Each look: web's load (the scenario's annotation), web's replicas, shop's replicas and
    // generation (a /scale write that changes the replicas bumps it), and shop's forecast.
    const std::string look =
        "get deployment web shop -o 'jsonpath={range .items[*]}{.metadata.annotations.sim\\.hpaplus"
        "\\.io/cpu-load} {.spec.replicas} {.metadata.generation}{\"\\n\"}{end}'";
    struct moment {
        std::string load;
        int replicas = 0;
    };
    std::vector<moment> web;
    int raised_ahead = 0;               // web's replicas went up while its load was still low
    std::optional<bool> first_reactive; // the first raise came after the load rose
    bool shop_changed = false;
    std::string shop_forecast;
    const auto deadline = std::chrono::steady_clock::now() + 150s;
    while (raised_ahead < 2 && std::chrono::steady_clock::now() < deadline) {
        const auto r = kubectl(look);
        std::istringstream lines(r.output);
        std::string load, shop_load;
        int replicas = 0, generation = 0, shop_replicas = 0, shop_generation = 0;
        if (!(lines >> load >> replicas >> generation >> shop_load >> shop_replicas >>
              shop_generation))
            continue;
        if (!web.empty() && replicas > web.back().replicas) {
            const bool ahead = load == "400m";
            if (ahead) ++raised_ahead;
            if (!first_reactive) first_reactive = !ahead;
        }
        web.push_back({load, replicas});
        if (shop_replicas != 2 || shop_generation != 1) shop_changed = true;
        if (shop_forecast.empty() || shop_forecast.find("\"replicas\":2,") != std::string::npos)
            shop_forecast = jsonpath("hpaplus/shop", "{.status.prediction}");
    }
    std::string trace;
    for (const auto& m : web)
        trace += m.load + "/" + std::to_string(m.replicas) + " ";
    ASSERT_TRUE(first_reactive) << "web never scaled up: " << trace;
    EXPECT_TRUE(*first_reactive) << "before any history, a scale-up follows the load: " << trace;
    EXPECT_EQ(raised_ahead, 2) << "in two later cycles the scale-up starts before the load rises: "
                               << trace << "\n"
                               << kubectl("get hpaplus web -o yaml").output;
    EXPECT_EQ(jsonpath("hpaplus/web", "{.status.prediction.period}"), "30s");
    EXPECT_NE(kubectl("get events --field-selector involvedObject.name=web")
                  .output.find("PredictionStarted"),
              std::string::npos);
    // Preview: shown, never acted on.
    EXPECT_FALSE(shop_changed) << "Preview never writes /scale";
    EXPECT_NE(shop_forecast.find("\"voting\":false"), std::string::npos) << shop_forecast;
    EXPECT_EQ(shop_forecast.find("\"replicas\":2,"), std::string::npos)
        << "at some look the forecast asked for more than shop has: " << shop_forecast;
    EXPECT_NE(condition("hpaplus/shop", "PredictionReady", "message").find("mode Preview"),
              std::string::npos);
    EXPECT_EQ(kubectl("get events --field-selector involvedObject.name=shop")
                  .output.find("SuccessfulRescale"),
              std::string::npos);
}

} // namespace
} // namespace hpaplus
