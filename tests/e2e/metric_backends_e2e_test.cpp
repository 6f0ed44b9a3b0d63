// End-to-end: the controller reading metrics from a real Prometheus (Debian `prometheus`, scraping
// the simulated pods) and a real InfluxDB 1.x (Debian `influxdb`, standing in for a company
// monitor), next to the Kubernetes metrics APIs — and falling back when Prometheus stops.
// Every server runs on 127.0.0.1 in a temporary directory and is stopped afterwards.
#include "../support/build_paths.hpp"
#include "../support/process.hpp"
#include "../support/shipped_identity.hpp"
#include "net/base64.hpp"
#include "net/tls.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <thread>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

const std::string source = HPAPLUS_SOURCE_DIR;

void write_file(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

bool installed(const std::string& program) {
    return test::run_command("which " + program).exit_code == 0;
}

class MetricBackendsE2E : public ::testing::Test {
  protected:
    void SetUp() override {
        for (const std::string& program :
             {test::kubectl_program(), std::string("prometheus"), std::string("influxd")})
            ASSERT_TRUE(installed(program))
                << program
                << " is not installed: run scripts/setup.sh (it installs kubectl and "
                   "Debian's prometheus and influxdb)";
        std::vector<std::string> sim_args{HPAPLUS_BINARY, "sim", "--kubeconfig-out",
                                          dir.path() + "/kubeconfig"};
        if (!scenario.empty()) sim_args.insert(sim_args.end(), {"--scenario", scenario});
        sim = std::make_unique<test::child_process>(sim_args);
        const std::string line = sim->wait_for_line("listening on", 20s);
        ASSERT_FALSE(line.empty()) << "hpaplus sim did not start";
        const auto at = line.find("://");
        ASSERT_NE(at, std::string::npos) << line;
        sim_scheme = line.substr(line.rfind(' ', at) + 1, at - line.rfind(' ', at) - 1);
        sim_address = line.substr(at + 3, line.find_first_of(" /\n", at + 3) - at - 3);
        start_prometheus();
        start_influxdb();
        ASSERT_EQ(kubectl("apply -f " + source + "/crds/").exit_code, 0);
    }
    void TearDown() override {
        if (controller) {
            EXPECT_EQ(controller->terminate(10000ms), 0);
        }
        if (prometheus) prometheus->terminate();
        if (influx) influx->terminate();
        if (sim) {
            // Under deploy/'s RBAC, nothing the components did was refused.
            test::record_rbac_usage_of(dir.path());
            for (const auto* account : {&test::controller_account, &test::adapter_account})
                EXPECT_EQ(test::shipped_refusals(dir.path(), *account), "") << *account;
            EXPECT_EQ(sim->terminate(), 0);
        }
    }

    void start_prometheus() {
        if (prometheus_port == 0) {
            prometheus_port = test::free_port();
            write_file(dir.path() + "/prometheus.yml",
                       "global: {scrape_interval: 1s, evaluation_interval: 1s, query_log_file: " +
                           dir.path() +
                           "/queries.log}\n"
                           "scrape_configs:\n"
                           "  - job_name: sim\n"
                           "    metrics_path: /sim/v1/prometheus\n"
                           "    scheme: " +
                           sim_scheme +
                           "\n"
                           "    tls_config: {insecure_skip_verify: true}\n"
                           "    static_configs: [{targets: ['" +
                           sim_address + "']}]\n");
        }
        prometheus = std::make_unique<test::child_process>(std::vector<std::string>{
            "prometheus", "--config.file=" + dir.path() + "/prometheus.yml",
            "--storage.tsdb.path=" + dir.path() + "/prometheus-data",
            "--web.listen-address=127.0.0.1:" + std::to_string(prometheus_port)});
        ASSERT_FALSE(
            prometheus->wait_for_line("Server is ready to receive web requests", 60s).empty())
            << "prometheus did not start";
    }

    void start_influxdb() {
        // free_port()'s ports are held for this process and below the kernel's ephemeral range:
        // no one else can take them before influxd binds them.
        influx_port = test::free_port();
        const std::string d = dir.path() + "/influxdb";
        write_file(dir.path() + "/influxdb.conf", "reporting-disabled = true\n"
                                                  "bind-address = \"127.0.0.1:" +
                                                      std::to_string(test::free_port()) +
                                                      "\"\n"
                                                      "[meta]\n  dir = \"" +
                                                      d +
                                                      "/meta\"\n"
                                                      "[data]\n  dir = \"" +
                                                      d + "/data\"\n  wal-dir = \"" + d +
                                                      "/wal\"\n"
                                                      "[http]\n  bind-address = \"127.0.0.1:" +
                                                      std::to_string(influx_port) +
                                                      "\"\n  log-enabled = false\n"
                                                      "[monitor]\n  store-enabled = false\n");
        influx = std::make_unique<test::child_process>(
            std::vector<std::string>{"influxd", "-config", dir.path() + "/influxdb.conf"});
        // As long as Prometheus is given: a loaded machine under ASan starts it slowly.
        ASSERT_TRUE(
            eventually([&] { return influx_query("CREATE DATABASE mon").exit_code == 0; }, 60s))
            << "influxd did not start";
    }

    test::command_result influx_query(const std::string& q) {
        return test::run_command(
            "curl -sf -XPOST 'http://127.0.0.1:" + std::to_string(influx_port) +
            "/query' --data-urlencode 'q=" + q + "'");
    }
    test::command_result influx_write(const std::string& lines) {
        return test::run_command(
            "curl -sf -XPOST 'http://127.0.0.1:" + std::to_string(influx_port) +
            "/write?db=mon' --data-binary '" + lines + "'");
    }
    test::command_result prometheus_query(const std::string& q) {
        return test::run_command("curl -sf 'http://127.0.0.1:" + std::to_string(prometheus_port) +
                                 "/api/v1/query' --data-urlencode 'query=" + q + "'");
    }

    // The backends file the controller is started with.
    std::string backends_file() {
        const std::string path = dir.path() + "/backends.yaml";
        write_file(path, "backends:\n"
                         "  - name: prom\n"
                         "    type: prometheus\n"
                         "    url: http://127.0.0.1:" +
                             std::to_string(prometheus_port) +
                             "\n"
                             "    timeoutSeconds: 2\n"
                             "    coalesceSeconds: 1\n"
                             "    circuitBreaker: {failureThreshold: 3, openSeconds: 2}\n"
                             "  - name: influx\n"
                             "    type: monitor\n"
                             "    url: \"http://127.0.0.1:" +
                             std::to_string(influx_port) +
                             "/query?db=mon&q={{query}}\"\n"
                             "    queryLanguage: InfluxQL\n"
                             "    timeoutSeconds: 2\n"
                             "    response:\n"
                             "      items: /results/0/series\n"
                             "      value: /values/0/1\n"
                             "      pod: /tags/pod\n"
                             "      error: /results/0/error\n"
                             "adapter:\n"
                             "  external:\n"
                             "    - name: queue_depth\n"
                             "      backend: influx\n"
                             "      query: SELECT last(\"value\") FROM \"queue_depth\" WHERE "
                             "\"namespace\" = '{{namespace}}'\n"
                             "  custom:\n"
                             "    - name: rps\n"
                             "      resource: pods\n"
                             "      backend: prom\n"
                             "      query: sum by (pod) (sim_pod_metric{metric=\"{{metric}}\","
                             "namespace=\"{{namespace}}\"})\n");
        return path;
    }

    void start_controller(const std::vector<std::string>& extra = {}) {
        std::vector<std::string> args{
            HPAPLUS_BINARY,
            "controller",
            "--kubeconfig",
            test::shipped_kubeconfig(dir.path(), test::controller_account),
            "--leader-elect=false",
            "--ops-listen=",
            "--metric-backends=" + backends_file(),
            "--horizontal-pod-autoscaler-cpu-initialization-period=1s"};
        args.insert(args.end(), extra.begin(), extra.end());
        controller = std::make_unique<test::child_process>(args);
        log.clear();
        ops_url.clear();
        // Read as it comes: what it logs is checked, and a full pipe would stop it.
        ASSERT_TRUE(eventually(
            [&] {
                read_log();
                return std::any_of(log.begin(), log.end(), [](const std::string& l) {
                    return l.find("caches synced") != std::string::npos;
                });
            },
            20s));
        for (const std::string& line : log)
            if (line.find("serving /healthz") != std::string::npos) {
                ops_url = test::url_in(line);
                if (const auto q = ops_url.find('"'); q != std::string::npos) ops_url.resize(q);
            }
    }
    void read_log() {
        if (!controller) return;
        for (auto& line : controller->read_lines(0ms))
            log.push_back(std::move(line));
    }
    std::size_t count_logged(const std::string& text) const {
        return static_cast<std::size_t>(std::count_if(log.begin(), log.end(), [&](const auto& l) {
            return l.find(text) != std::string::npos;
        }));
    }

    test::command_result kubectl(const std::string& args) {
        return test::run_kubectl(dir.path(), args);
    }
    test::command_result apply(const std::string& yaml) {
        write_file(dir.path() + "/object.yaml", yaml);
        return kubectl("apply -f " + dir.path() + "/object.yaml");
    }
    std::string jsonpath(const std::string& object, const std::string& path) {
        return kubectl("get " + object + " -o 'jsonpath=" + path + "'").output;
    }
    bool eventually(const std::function<bool()>& f, std::chrono::seconds limit = 60s) {
        return test::eventually(f, limit, 200ms);
    }
    std::string condition(const std::string& object, const std::string& type,
                          const std::string& field) {
        return jsonpath(object, "{.status.conditions[?(@.type==\"" + type + "\")]." + field + "}");
    }

    test::temp_dir dir;
    std::string scenario; ///< what the sim plays (set before SetUp); "" = nothing
    std::string sim_scheme;
    std::string sim_address;
    int prometheus_port = 0;
    int influx_port = 0;
    std::unique_ptr<test::child_process> sim;
    std::unique_ptr<test::child_process> prometheus;
    std::unique_ptr<test::child_process> influx;
    std::unique_ptr<test::child_process> controller;
    std::vector<std::string> log; ///< the controller's lines so far (read_log)
    std::string ops_url;          ///< with --ops-listen: where /metrics is
};

// A Deployment with `requests.cpu: 500m`, a total CPU load, and a per-pod custom metric.
std::string deployment(const std::string& name, int replicas, const std::string& cpu_load,
                       const std::string& rps_total) {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
           "\n  namespace: default\n  annotations: {sim.hpaplus.io/cpu-load: " + cpu_load +
           ", sim.hpaplus.io/pods-metric.rps: '" + rps_total +
           "'}\nspec:\n  replicas: " + std::to_string(replicas) +
           "\n  selector: {matchLabels: {app: " + name +
           "}}\n  template:\n    metadata: {labels: {app: " + name +
           "}}\n    spec:\n      containers:\n        - name: app\n          image: nginx\n"
           "          resources: {requests: {cpu: 500m}}\n";
}

std::string hpaplus(const std::string& name, int max, const std::string& metrics) {
    return "apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: HPAPlus\nmetadata:\n  name: " +
           name +
           "\n  namespace: default\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: "
           "Deployment, name: " +
           name + "}\n  minReplicas: 1\n  maxReplicas: " + std::to_string(max) +
           "\n  syncPeriodSeconds: 1\n  metrics:\n" + metrics;
}

const std::string prometheus_cpu =
    "    - type: Resource\n"
    "      resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}\n"
    "      backend:\n"
    "        name: prom\n"
    "        query: sum by (pod) "
    "(sim_pod_cpu_usage_cores{namespace=\"{{namespace}}\",pod=~\"{{pods}}\"})\n";

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
TEST_F(MetricBackendsE2E, ANegativeValueScalesToMinAndAnOutOfRangeOneEngagesTheFallback) {
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
}

TEST_F(MetricBackendsE2E, TheAdapterServesTheMonitorAndPrometheusAsMetricsApis) {
    ASSERT_EQ(influx_write("queue_depth,namespace=shop value=42").exit_code, 0);
    ASSERT_EQ(apply(deployment("web", 2, "100m", "30")).exit_code, 0);
    ASSERT_TRUE(eventually([&] {
        return prometheus_query("sim_pod_metric{pod=~\"web-.*\"}").output.find("\"value\"") !=
               std::string::npos;
    }));
    test::child_process adapter({HPAPLUS_BINARY, "adapter", "--metric-backends=" + backends_file(),
                                 "--listen=127.0.0.1:0"});
    const std::string line = adapter.wait_for_line("listening on", 20s);
    ASSERT_NE(line.find("https://"), std::string::npos) << line;
    const std::string url = line.substr(line.find("https://"));
    auto raw = [&](const std::string& path) {
        return test::run_command(test::kubectl_program() + " --kubeconfig /dev/null --server " +
                                 url + " --insecure-skip-tls-verify --token test get --raw '" +
                                 path + "'");
    };
    // Discovery lists the configured metrics.
    auto r = raw("/apis/external.metrics.k8s.io/v1beta1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(R"("name":"queue_depth")"), std::string::npos) << r.output;
    r = raw("/apis/custom.metrics.k8s.io/v1beta2");
    EXPECT_NE(r.output.find(R"("name":"pods/rps")"), std::string::npos) << r.output;
    // The company monitor through the external metrics API.
    r = raw("/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/queue_depth");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(R"("kind":"ExternalMetricValueList")"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(R"("metricName":"queue_depth")"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(R"("value":"42")"), std::string::npos) << r.output;
    // Prometheus per pod through the custom metrics API: 30 spread over two pods.
    r = raw("/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/rps");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(R"("kind":"Pod")"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(R"("value":"15")"), std::string::npos) << r.output;
    // Unknown metrics are a NotFound Status; a namespace without data is an empty list.
    r = raw("/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/nope");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("NotFound"), std::string::npos) << r.output;
    r = raw("/apis/external.metrics.k8s.io/v1beta1/namespaces/empty/queue_depth");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(R"("items":[])"), std::string::npos) << r.output;
    // The monitor down: once the coalesced answer is older than coalesceSeconds (5 s), a 503
    // ServiceUnavailable naming the backend, and the adapter lives on.
    influx->terminate();
    influx.reset();
    EXPECT_TRUE(eventually([&] {
        r = raw("/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/queue_depth");
        return r.exit_code != 0 && r.output.find("ServiceUnavailable") != std::string::npos &&
               r.output.find("backend \"influx\" is unavailable") != std::string::npos;
    })) << r.output;
    EXPECT_EQ(raw("/healthz").output, "ok");
    EXPECT_EQ(adapter.terminate(), 0);
}

// Who may call the adapter, with an API server to ask (--kubeconfig): the API server's front-proxy
// certificate — signed by the request-header CA, with an allowed common name — carrying a user the
// cluster authorizes (SubjectAccessReview); nobody else, except on the health paths. Hostile
// names are refused before any query is made (Prometheus' own query log shows none).
TEST_F(MetricBackendsE2E, TheAdapterAnswersOnlyTheFrontProxyForUsersTheClusterAuthorizes) {
    ASSERT_EQ(influx_write("queue_depth,namespace=default value=42").exit_code, 0);
    ASSERT_EQ(apply(deployment("web", 2, "100m", "30")).exit_code, 0);
    ASSERT_TRUE(eventually([&] {
        return prometheus_query("sim_pod_metric{pod=~\"web-.*\"}").output.find("\"value\"") !=
               std::string::npos;
    }));
    const auto front_proxy_ca = net::make_self_signed({"127.0.0.1"});
    const auto other_ca = net::make_self_signed({"127.0.0.1"});
    const auto proxy = net::issue_client_certificate(front_proxy_ca, "front-proxy-client");
    const auto stranger = net::issue_client_certificate(other_ca, "front-proxy-client");
    const auto wrong_name = net::issue_client_certificate(front_proxy_ca, "someone-else");
    write_file(dir.path() + "/front-proxy-ca.crt", front_proxy_ca.ca_cert_pem);
    for (const auto& [name, pair] : {std::pair{"proxy", &proxy}, std::pair{"stranger", &stranger},
                                     std::pair{"wrong-name", &wrong_name}}) {
        write_file(dir.path() + "/" + name + ".crt", pair->cert_pem);
        write_file(dir.path() + "/" + name + ".key", pair->key_pem);
    }
    test::child_process adapter(
        {HPAPLUS_BINARY, "adapter", "--metric-backends=" + backends_file(), "--listen=127.0.0.1:0",
         "--requestheader-client-ca-file=" + dir.path() + "/front-proxy-ca.crt",
         "--requestheader-allowed-names=front-proxy-client",
         "--kubeconfig=" + test::shipped_kubeconfig(dir.path(), test::adapter_account)});
    const std::string line = adapter.wait_for_line("listening on", 20s);
    ASSERT_NE(line.find("https://"), std::string::npos) << line;
    const std::string url = line.substr(line.find("https://"));
    // The HTTP status and body of a GET with `who`'s certificate ("" = none) on behalf of `user`.
    auto get = [&](const std::string& who, const std::string& path,
                   const std::string& user = "system:serviceaccount:kube-system:"
                                             "horizontal-pod-autoscaler") {
        const std::string cert = who.empty() ? ""
                                             : " --cert " + dir.path() + "/" + who + ".crt --key " +
                                                   dir.path() + "/" + who + ".key";
        return test::run_command("curl -sk --max-time 5 -w ' HTTP%{http_code}'" + cert +
                                 " -H 'X-Remote-User: " + user +
                                 "' -H 'X-Remote-Group: system:serviceaccounts' '" + url + path +
                                 "'")
            .output;
    };
    const std::string external = "/apis/external.metrics.k8s.io/v1beta1/namespaces/";
    const std::string custom = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/";
    for (const char* who : {"", "stranger", "wrong-name"}) {
        const auto answer = get(who, external + "default/queue_depth");
        EXPECT_NE(answer.find("HTTP401"), std::string::npos) << who << ": " << answer;
        EXPECT_NE(answer.find(R"("kind":"Status")"), std::string::npos) << answer;
        EXPECT_NE(answer.find(R"("reason":"Unauthorized")"), std::string::npos) << answer;
    }
    auto answer = get("proxy", external + "default/queue_depth");
    EXPECT_NE(answer.find("HTTP200"), std::string::npos) << answer;
    EXPECT_NE(answer.find(R"("value":"42")"), std::string::npos) << answer;
    answer = get("proxy", custom + "default/pods/*/rps");
    EXPECT_NE(answer.find("HTTP200"), std::string::npos) << answer;
    EXPECT_NE(answer.find(R"("value":"15")"), std::string::npos) << answer;
    // A user the cluster does not authorize: 403 with upstream's message.
    ASSERT_EQ(test::run_command("curl -sf -X PUT " + sim_scheme + "://" + sim_address +
                                "/sim/v1/authorization -d '{\"deny\":[{\"user\":\"mallory\"}]}'")
                  .exit_code,
              0);
    answer = get("proxy", external + "default/queue_depth", "mallory");
    EXPECT_NE(answer.find("HTTP403"), std::string::npos) << answer;
    EXPECT_NE(answer.find("queue_depth.external.metrics.k8s.io is forbidden: User \\\"mallory\\\" "
                          "cannot list resource \\\"queue_depth\\\""),
              std::string::npos)
        << answer;
    // Hostile and invalid namespaces: 400, after authentication, and no query is made.
    for (const std::string ns : {"a%22%7D)%20or%20vector(1)%23", "UPPER_case"}) {
        answer = get("proxy", custom + ns + "/pods/*/rps");
        EXPECT_NE(answer.find("HTTP400"), std::string::npos) << ns << ": " << answer;
        answer = get("proxy", external + ns + "/queue_depth");
        EXPECT_NE(answer.find("HTTP400"), std::string::npos) << ns << ": " << answer;
    }
    answer = get("", "/healthz");
    EXPECT_NE(answer.find("HTTP200"), std::string::npos) << answer;
    // The front-proxy CA is rotated (its file replaced): within the 10 s reload the new CA's
    // certificate is trusted and the old one's no longer, without a restart.
    write_file(dir.path() + "/front-proxy-ca.new", other_ca.ca_cert_pem);
    std::rename((dir.path() + "/front-proxy-ca.new").c_str(),
                (dir.path() + "/front-proxy-ca.crt").c_str());
    EXPECT_TRUE(eventually(
        [&] {
            return get("stranger", external + "default/queue_depth").find("HTTP200") !=
                   std::string::npos;
        },
        30s));
    EXPECT_NE(get("proxy", external + "default/queue_depth").find("HTTP401"), std::string::npos);
    EXPECT_FALSE(adapter.wait_for_line("trusting the renewed client CAs", 5s).empty());
    EXPECT_EQ(adapter.terminate(), 0);
    std::ifstream log_file(dir.path() + "/queries.log");
    const std::string queries((std::istreambuf_iterator<char>(log_file)),
                              std::istreambuf_iterator<char>());
    EXPECT_NE(queries.find("sim_pod_metric"), std::string::npos) << "the query log is written";
    EXPECT_EQ(queries.find("vector(1)"), std::string::npos) << queries;
    EXPECT_EQ(queries.find("UPPER_case"), std::string::npos) << queries;
}

// The way a cluster reaches the adapter: an APIService for external.metrics.k8s.io, its Service
// and EndpointSlice pointing at the adapter on 127.0.0.1; the simulated API server proxies with
// its front-proxy certificate. The adapter trusts that certificate because it reads the CA from
// kube-system/extension-apiserver-authentication (no CA flag), reviews bearer tokens and
// authorizes every request with SubjectAccessReview against the same cluster.
TEST_F(MetricBackendsE2E, KubectlAndAnHpaPlusReachTheAdapterThroughTheAggregationLayer) {
    ASSERT_EQ(influx_write("queue_depth,namespace=default value=42").exit_code, 0);
    ASSERT_EQ(apply(deployment("worker", 1, "100m", "30")).exit_code, 0);
    ASSERT_TRUE(eventually([&] {
        return prometheus_query("sim_pod_metric{pod=~\"worker-.*\"}").output.find("\"value\"") !=
               std::string::npos;
    }));
    // The serving certificate names the Service, as kube-apiserver verifies it.
    const auto serving = net::make_self_signed({"127.0.0.1", "hpaplus-adapter.hpaplus.svc"});
    write_file(dir.path() + "/tls.crt", serving.cert_pem);
    write_file(dir.path() + "/tls.key", serving.key_pem);
    test::child_process adapter(
        {HPAPLUS_BINARY, "adapter", "--metric-backends=" + backends_file(), "--listen=127.0.0.1:0",
         "--tls-cert-file=" + dir.path() + "/tls.crt",
         "--tls-private-key-file=" + dir.path() + "/tls.key",
         "--kubeconfig=" + test::shipped_kubeconfig(dir.path(), test::adapter_account)});
    const std::string line = adapter.wait_for_line("listening on", 20s);
    ASSERT_NE(line.find("https://127.0.0.1:"), std::string::npos) << line;
    const std::string url = line.substr(line.find("https://"));
    const std::string port = url.substr(url.rfind(':') + 1);
    ASSERT_EQ(apply("apiVersion: v1\nkind: Namespace\nmetadata: {name: hpaplus}\n---\n"
                    "apiVersion: v1\nkind: Service\nmetadata: {name: hpaplus-adapter, namespace: "
                    "hpaplus}\nspec:\n  ports: [{name: https, port: 443, targetPort: " +
                    port +
                    "}]\n---\n"
                    "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: "
                    "hpaplus-adapter-1\n  namespace: hpaplus\n  labels: "
                    "{kubernetes.io/service-name: hpaplus-adapter}\naddressType: IPv4\n"
                    "endpoints: [{addresses: [127.0.0.1], conditions: {ready: true}}]\n"
                    "ports: [{name: https, port: " +
                    port +
                    "}]\n---\n"
                    "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: "
                    "v1beta1.external.metrics.k8s.io}\nspec:\n  group: external.metrics.k8s.io\n"
                    "  version: v1beta1\n  groupPriorityMinimum: 100\n  versionPriority: 100\n"
                    "  service: {name: hpaplus-adapter, namespace: hpaplus, port: 443}\n"
                    "  caBundle: " +
                    net::base64_encode(serving.ca_cert_pem) +
                    "\n---\n"
                    "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: "
                    "v1beta2.custom.metrics.k8s.io}\nspec:\n  group: custom.metrics.k8s.io\n"
                    "  version: v1beta2\n  groupPriorityMinimum: 100\n  versionPriority: 200\n"
                    "  service: {name: hpaplus-adapter, namespace: hpaplus, port: 443}\n"
                    "  caBundle: " +
                    net::base64_encode(serving.ca_cert_pem) + "\n")
                  .exit_code,
              0);
    // Prometheus per pod through the custom metrics API: the one worker pod has all 30.
    auto custom =
        kubectl("get --raw '/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/rps'");
    ASSERT_EQ(custom.exit_code, 0) << custom.output;
    EXPECT_NE(custom.output.find(R"("value":"30")"), std::string::npos) << custom.output;
    const std::string metric =
        "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth";
    auto r = kubectl("get --raw " + metric);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(R"("metricName":"queue_depth")"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(R"("value":"42")"), std::string::npos) << r.output;
    // kube-controller-manager's HPA controller reads them too, by deploy/adapter's
    // hpaplus-adapter-metrics-reader (the cluster authorizes the proxied request, the adapter
    // asks again by SubjectAccessReview); a ServiceAccount without that binding may not.
    r = kubectl("get --raw " + metric +
                " --as=system:serviceaccount:kube-system:horizontal-pod-autoscaler");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(R"("value":"42")"), std::string::npos) << r.output;
    r = kubectl("get --raw " + metric + " --as=system:serviceaccount:kube-system:other");
    EXPECT_NE(r.output.find("is forbidden: User \"system:serviceaccount:kube-system:other\" "
                            "cannot list resource \"queue_depth\""),
              std::string::npos)
        << r.output;
    r = kubectl("get --raw /apis/external.metrics.k8s.io/v1beta1");
    EXPECT_NE(r.output.find(R"("name":"queue_depth")"), std::string::npos) << r.output;

    // Straight to the adapter: no credentials, an unknown token → 401; a token the cluster knows
    // (TokenReview) → 200.
    auto direct = [&](const std::string& token) {
        return test::run_command(
                   "curl -sk --max-time 5 -w ' HTTP%{http_code}' " +
                   (token.empty() ? "" : "-H 'Authorization: Bearer " + token + "' ") + "'" + url +
                   metric + "'")
            .output;
    };
    auto sim_control = [&](const std::string& method, const std::string& path,
                           const std::string& body) {
        return test::run_command("curl -sf -X " + method + " " + sim_scheme + "://" + sim_address +
                                 path + " -d '" + body + "'");
    };
    EXPECT_NE(direct("").find("HTTP401"), std::string::npos);
    EXPECT_NE(direct("secret-nobody-knows").find("HTTP401"), std::string::npos);
    ASSERT_EQ(sim_control("POST", "/sim/v1/tokens",
                          R"({"token":"secret-alice","user":"alice","groups":["team-a"]})")
                  .exit_code,
              0);
    // Authenticated is not authorized: the cluster's RBAC grants alice nothing yet (403), then
    // her group the external metrics.
    auto answer = direct("secret-alice");
    EXPECT_NE(answer.find("HTTP403"), std::string::npos) << answer;
    ASSERT_EQ(apply("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: "
                    "team-a-metrics}\nrules:\n- {apiGroups: [external.metrics.k8s.io], resources: "
                    "['*'], verbs: [get, list]}\n---\napiVersion: rbac.authorization.k8s.io/v1\n"
                    "kind: ClusterRoleBinding\nmetadata: {name: team-a-metrics}\nroleRef: "
                    "{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "
                    "team-a-metrics}\nsubjects:\n- {kind: Group, name: team-a}\n")
                  .exit_code,
              0);
    EXPECT_TRUE(eventually(
        [&] { // the adapter's cached refusal lasts its TTL
            answer = direct("secret-alice");
            return answer.find("HTTP200") != std::string::npos;
        },
        30s))
        << answer;
    EXPECT_NE(answer.find(R"("value":"42")"), std::string::npos) << answer;
    // The refusals are logged, the tokens never.
    EXPECT_FALSE(adapter.wait_for_line("401 for GET", 5s).empty());
    EXPECT_EQ(adapter.wait_for_line("secret-", 2s), "");

    // The cluster's authorization says no (SubjectAccessReview): 403 once the cached allow
    // (10 s) runs out, through the aggregation layer and for the token alike.
    ASSERT_EQ(sim_control("PUT", "/sim/v1/authorization",
                          R"({"deny":[{"resource":"queue_depth","namespace":"default"}]})")
                  .exit_code,
              0);
    EXPECT_TRUE(eventually(
        [&] {
            r = kubectl("get --raw " + metric);
            return r.exit_code != 0 &&
                   r.output.find("queue_depth.external.metrics.k8s.io is forbidden: User "
                                 "\"hpaplus-sim\" cannot list resource \"queue_depth\"") !=
                       std::string::npos;
        },
        30s))
        << r.output;
    EXPECT_TRUE(eventually(
        [&] { return direct("secret-alice").find("HTTP403") != std::string::npos; }, 30s));
    ASSERT_EQ(sim_control("DELETE", "/sim/v1/authorization", "").exit_code, 0);

    // An HPAPlus on the External metric reads it through the sim's aggregation layer:
    // 42 / averageValue 10 → 5 replicas.
    start_controller();
    ASSERT_EQ(apply(hpaplus("worker", 8,
                            "    - type: External\n"
                            "      external:\n"
                            "        metric: {name: queue_depth}\n"
                            "        target: {type: AverageValue, averageValue: '10'}\n"))
                  .exit_code,
              0);
    EXPECT_TRUE(
        eventually([&] { return jsonpath("deployment/worker", "{.spec.replicas}") == "5"; }, 90s))
        << kubectl("get hpaplus worker -o yaml").output;
    EXPECT_EQ(adapter.terminate(), 0);
}

// A new VPAPlus starts from the workload's history in Prometheus (cAdvisor's per-container
// series, scraped from the simulated pods), not from nothing.
TEST_F(MetricBackendsE2E, AVpaPlusStartsFromItsWorkloadsHistoryInPrometheus) {
    ASSERT_EQ(apply("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: hist\n  namespace: "
                    "default\n  annotations: {sim.hpaplus.io/cpu-load: 1200m, "
                    "sim.hpaplus.io/memory-per-pod: 300Mi}\nspec:\n  replicas: 2\n  selector: "
                    "{matchLabels: {app: hist}}\n  template:\n    metadata: {labels: {app: "
                    "hist}}\n    spec:\n      containers:\n        - name: app\n          image: "
                    "nginx\n          resources: {requests: {cpu: 100m, memory: 128Mi}}\n")
                  .exit_code,
              0);
    ASSERT_TRUE(eventually([&] {
        return prometheus_query("container_cpu_usage_seconds_total{pod=~\"hist-.*\"}")
                   .output.find("\"value\"") != std::string::npos;
    })) << prometheus_query("container_cpu_usage_seconds_total").output;
    std::this_thread::sleep_for(15s); // some history to read
    // One pass an hour: without the history the first recommendation rests on 2 samples.
    start_controller({"--enable-vertical", "--vertical-history-backend=prom",
                      "--vertical-history-length=1m", "--vertical-history-resolution=3s",
                      "--vertical-interval=1h", "--vertical-checkpoint-interval=1s"});
    ASSERT_EQ(apply("apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: VPAPlus\nmetadata:\n  "
                    "name: hist\n  namespace: default\nspec:\n  targetRef: {apiVersion: apps/v1, "
                    "kind: Deployment, name: hist}\n  updatePolicy: {updateMode: \"Off\"}\n")
                  .exit_code,
              0);
    EXPECT_TRUE(eventually([&] {
        return condition("vpap hist", "HistoryLoaded", "reason") == "PrometheusHistory";
    })) << kubectl("get vpap hist -o yaml").output;
    EXPECT_NE(condition("vpap hist", "HistoryLoaded", "message").find("of 1 containers"),
              std::string::npos)
        << kubectl("get vpap hist -o yaml").output;
    std::string samples;
    EXPECT_TRUE(eventually([&] {
        samples = jsonpath("vpapluscheckpoints hist-app", "{.status.totalSamplesCount}");
        return !samples.empty() && std::stoll(samples) >= 6;
    })) << samples
        << "\n"
        << kubectl("get vpapluscheckpoints -o yaml").output;
    EXPECT_EQ(condition("vpap hist", "RecommendationProvided", "status"), "True");
    // 600m a pod over 15 s of history: the target is well above the 100m request.
    const std::string target =
        jsonpath("vpap hist", "{.status.recommendation.containerRecommendations[0].target.cpu}");
    EXPECT_FALSE(target.empty());
    EXPECT_NE(target, "100m");
}

// Predictive HPAPlus on a rhythm: the sim plays examples/sim/rhythm.json (web's CPU load rises
// from 400m to 2400m at second 15 of every 30), Prometheus scrapes it, and the HPAPlus objects of
// examples/prediction/web-on-sim.yaml read their history from it.
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
