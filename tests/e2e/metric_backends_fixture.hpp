// tests/e2e/metric_backends_fixture.hpp — the servers of the metric backends tests.
// End-to-end: the controller reading metrics from a real Prometheus (Debian `prometheus`, scraping
// the simulated pods) and a real InfluxDB 1.x (Debian `influxdb`, standing in for a company
// monitor), next to the Kubernetes metrics APIs — and falling back when Prometheus stops.
// Every server runs on 127.0.0.1 in a temporary directory and is stopped afterwards.
#pragma once

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

using namespace std::chrono_literals;

inline const std::string source = HPAPLUS_SOURCE_DIR;

inline void write_file(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

inline bool installed(const std::string& program) {
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
inline std::string deployment(const std::string& name, int replicas, const std::string& cpu_load,
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

inline std::string hpaplus(const std::string& name, int max, const std::string& metrics) {
    return "apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: HPAPlus\nmetadata:\n  name: " +
           name +
           "\n  namespace: default\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: "
           "Deployment, name: " +
           name + "}\n  minReplicas: 1\n  maxReplicas: " + std::to_string(max) +
           "\n  syncPeriodSeconds: 1\n  metrics:\n" + metrics;
}

inline const std::string prometheus_cpu =
    "    - type: Resource\n"
    "      resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}\n"
    "      backend:\n"
    "        name: prom\n"
    "        query: sum by (pod) "
    "(sim_pod_cpu_usage_cores{namespace=\"{{namespace}}\",pod=~\"{{pods}}\"})\n";

} // namespace hpaplus
