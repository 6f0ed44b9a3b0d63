// End-to-end: `hpaplus sim`, `hpaplus controller` and `hpaplus demo` as their own processes, with
// the real kubectl applying the CRD and the examples from crds/ — what a user does by hand.
#include "../support/build_paths.hpp"
#include "../support/process.hpp"
#include "../support/shipped_identity.hpp"
#include "kube/yaml_json.hpp"
#include "net/tls.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

const std::string source = HPAPLUS_SOURCE_DIR;

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

const rapidjson::Value* at_path(const rapidjson::Value& object, const rapidjson::Value& path) {
    const rapidjson::Value* v = &object;
    for (const auto& step : path.GetArray()) {
        if (!v->IsObject() || !v->HasMember(step.GetString())) return nullptr;
        v = &(*v)[step.GetString()];
    }
    return v;
}

// Each series deploy/monitoring/kube-state-metrics.yaml makes of `kind` is found in `object_json`
// as kube-state-metrics reads it: a Gauge's path holds a number (or nothing, where nilIsZero), a
// StateSet's path a list whose entries carry its label and one of its values; every label path
// resolves to a string.
void expect_kube_state_metrics_read(const std::string& kind, const std::string& object_json) {
    rapidjson::Document object;
    object.Parse(object_json.c_str());
    ASSERT_TRUE(object.IsObject()) << object_json;
    const auto documents = kube::yaml_documents_to_json(
        read_file(source + "/deploy/monitoring/kube-state-metrics.yaml"));
    ASSERT_TRUE(documents && documents->size() == 1u);
    rapidjson::Document map;
    map.Parse(documents->front().c_str());
    const auto config = kube::yaml_documents_to_json(map["data"]["hpaplus.yaml"].GetString());
    ASSERT_TRUE(config && config->size() == 1u);
    rapidjson::Document crs;
    crs.Parse(config->front().c_str());
    std::size_t read = 0;
    for (const auto& r : crs["spec"]["resources"].GetArray()) {
        if (r["groupVersionKind"]["kind"].GetString() != kind) continue;
        for (const auto& label : r["labelsFromPath"].GetObject()) {
            const auto* v = at_path(object, label.value);
            EXPECT_TRUE(v && v->IsString()) << kind << " label " << label.name.GetString();
        }
        for (const auto& m : r["metrics"].GetArray()) {
            const std::string name = m["name"].GetString();
            const auto& each = m["each"];
            if (std::string(each["type"].GetString()) == "Gauge") {
                const auto& gauge = each["gauge"];
                const auto* v = at_path(object, gauge["path"]);
                const bool nil_is_zero =
                    gauge.HasMember("nilIsZero") && gauge["nilIsZero"].GetBool();
                EXPECT_TRUE(v ? v->IsNumber() : nil_is_zero) << kind << " " << name << "\n"
                                                             << object_json;
                ++read;
                continue;
            }
            const auto& set = each["stateSet"];
            const auto* list = at_path(object, set["path"]);
            ASSERT_TRUE(list && list->IsArray() && !list->Empty()) << kind << " " << name << "\n"
                                                                   << object_json;
            for (const auto& entry : list->GetArray()) {
                for (const auto& label : set["labelsFromPath"].GetObject()) {
                    const auto* v = at_path(entry, label.value);
                    EXPECT_TRUE(v && v->IsString()) << kind << " " << name;
                }
                const auto* value = at_path(entry, set["valueFrom"]);
                ASSERT_TRUE(value && value->IsString()) << kind << " " << name;
                bool listed = false;
                for (const auto& state : set["list"].GetArray())
                    listed |= std::string(state.GetString()) == value->GetString();
                EXPECT_TRUE(listed) << kind << " " << name << ": " << value->GetString();
            }
            ++read;
        }
    }
    EXPECT_GT(read, 0u) << kind;
}

class ControllerProcess : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_EQ(test::run_command(test::kubectl_program() + " version --client").exit_code, 0)
            << "kubectl is not installed: run scripts/setup.sh (it installs kubectl)";
        sim = std::make_unique<test::child_process>(std::vector<std::string>{
            HPAPLUS_BINARY, "sim", "--kubeconfig-out", dir.path() + "/kubeconfig"});
        ASSERT_FALSE(sim->wait_for_line("listening on", 20s).empty())
            << "hpaplus sim did not start";
    }
    void TearDown() override {
        if (controller) {
            EXPECT_EQ(controller->terminate(10000ms), 0)
                << "the controller did not stop on SIGTERM";
        }
        if (sim) {
            // Under deploy/'s RBAC, nothing the components did was refused.
            test::record_rbac_usage_of(dir.path());
            for (const auto* account : {&test::controller_account, &test::adapter_account})
                EXPECT_EQ(test::shipped_refusals(dir.path(), *account), "") << *account;
            EXPECT_EQ(sim->terminate(), 0);
        }
    }
    test::command_result kubectl(const std::string& args) {
        return test::run_kubectl(dir.path(), args);
    }
    bool eventually(const std::function<bool()>& f, std::chrono::seconds limit = 30s) {
        return test::eventually(f, limit, 200ms);
    }

    test::temp_dir dir;
    std::unique_ptr<test::child_process> sim;
    std::unique_ptr<test::child_process> controller;
};

TEST_F(ControllerProcess, KubectlAppliesTheCrdAndExamplesAndTheControllerScales) {
    auto r = kubectl("apply -f " + source + "/crds/");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_EQ(kubectl("create namespace shop").exit_code, 0);
    r = kubectl("apply -f " + source + "/crds/examples/");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = kubectl("apply -f " + source + "/tests/e2e/fixtures/web-deployment.yaml");
    ASSERT_EQ(r.exit_code, 0) << r.output;

    controller = std::make_unique<test::child_process>(std::vector<std::string>{
        HPAPLUS_BINARY, "controller", "--kubeconfig",
        test::shipped_kubeconfig(dir.path(), test::controller_account), "--leader-elect=false",
        "--ops-listen=127.0.0.1:0", "--horizontal-pod-autoscaler-cpu-initialization-period=1s"});
    const std::string ops = test::url_in(controller->wait_for_line("serving /healthz", 20s));
    ASSERT_FALSE(controller->wait_for_line("caches synced", 20s).empty());

    EXPECT_TRUE(eventually([&] {
        const auto replicas = kubectl("get deployment web -o jsonpath={.spec.replicas}");
        return replicas.exit_code == 0 && replicas.output != "2" && !replicas.output.empty();
    })) << kubectl("get hpap web -o yaml").output;
    // Under deploy/'s RBAC (its ServiceAccount's token): it scaled without one refusal.
    const auto metrics = test::run_command("curl -s " + ops + "/metrics").output;
    EXPECT_NE(metrics.find("hpaplus_api_requests_total{code=\"200\""), std::string::npos)
        << metrics.substr(0, 2000);
    EXPECT_EQ(metrics.find("code=\"403\""), std::string::npos) << metrics;
    const auto table = kubectl("get hpap web");
    ASSERT_EQ(table.exit_code, 0) << table.output;
    // The target from the spec, replicas as `get hpa` shows them and what it decided, whether it
    // can scale and why (the CRD's printer columns; filters on conditions as kube-apiserver
    // evaluates them).
    for (const char* column : {"REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "DESIRED",
                               "ACTIVE", "REASON", " web ", "cpu: ", "True", "ValidMetricFound"})
        EXPECT_NE(table.output.find(column), std::string::npos) << column << "\n" << table.output;
    const auto wide = kubectl("get hpap web -o wide");
    for (const char* column : {"KIND", "ABLE", "Deployment"})
        EXPECT_NE(wide.output.find(column), std::string::npos) << column << "\n" << wide.output;
    // The examples whose Deployments do not exist say so in a condition.
    EXPECT_TRUE(eventually([&] {
        const auto c =
            kubectl("get hpap worker -o "
                    "'jsonpath={.status.conditions[?(@.type==\"AbleToScale\")].reason}'");
        return c.output == "FailedGetScale";
    })) << kubectl("get hpap worker -o yaml").output;
    const auto events = kubectl("get events");
    EXPECT_NE(events.output.find("SuccessfulRescale"), std::string::npos) << events.output;
    // The CronHPA examples are scheduled, and kubectl shows their columns.
    EXPECT_TRUE(eventually([&] {
        return kubectl("get chpa web-office-hours -o jsonpath={.status.conditions[0].reason}")
                   .output == "Scheduled";
    })) << kubectl("get chpa web-office-hours -o yaml").output;
    const auto crons = kubectl("get chpa");
    for (const char* column : {"TARGET", "ZONE", "NEXT", "HPAPlus/web", "Europe/Berlin",
                               "report-worker-nightly", "America/New_York"})
        EXPECT_NE(crons.output.find(column), std::string::npos) << column << "\n" << crons.output;

    // kube-state-metrics' configuration (deploy/monitoring) reads what these objects hold.
    expect_kube_state_metrics_read("HPAPlus", kubectl("get hpap web -o json").output);
    expect_kube_state_metrics_read("CronHPA", kubectl("get chpa web-office-hours -o json").output);
}

TEST_F(ControllerProcess, TwoProcessesElectOneLeaderAndTheOtherTakesOverWhenItIsKilled) {
    ASSERT_EQ(kubectl("apply -f " + source + "/crds/").exit_code, 0);
    ASSERT_EQ(kubectl("apply -f " + source + "/tests/e2e/fixtures/web-deployment.yaml").exit_code,
              0);
    ASSERT_EQ(kubectl("apply -f " + source + "/crds/examples/hpaplus-cpu.yaml").exit_code, 0);
    auto start = [&](const std::string& identity) {
        return std::make_unique<test::child_process>(std::vector<std::string>{
            HPAPLUS_BINARY, "controller", "--kubeconfig",
            test::shipped_kubeconfig(dir.path(), test::controller_account), "--ops-listen=",
            "--leader-elect-identity=" + identity, "--leader-elect-lease-duration=2s",
            "--leader-elect-renew-deadline=1500ms", "--leader-elect-retry-period=200ms",
            "--horizontal-pod-autoscaler-cpu-initialization-period=1s"});
    };
    auto holder = [&] {
        return kubectl("-n hpaplus-system get lease hpaplus-controller -o "
                       "jsonpath={.spec.holderIdentity}")
            .output;
    };
    auto first = start("first");
    ASSERT_TRUE(eventually([&] { return holder() == "first"; })) << holder();
    controller = start("second");
    ASSERT_FALSE(controller->wait_for_line("caches synced", 20s).empty());
    std::this_thread::sleep_for(1s);
    EXPECT_EQ(holder(), "first");

    first->kill_now(); // SIGKILL: the Lease is not released and must expire
    ASSERT_TRUE(eventually([&] { return holder() == "second"; })) << holder();
    EXPECT_FALSE(controller->wait_for_line("became the leader", 10s).empty());
    // The new leader acts: much more load takes the Deployment to the HPAPlus's maximum.
    ASSERT_EQ(kubectl("annotate deployment web sim.hpaplus.io/cpu-load=20 --overwrite").exit_code,
              0);
    EXPECT_TRUE(eventually(
        [&] { return kubectl("get deployment web -o jsonpath={.spec.replicas}").output == "10"; },
        60s))
        << kubectl("get hpap web -o yaml").output;
    EXPECT_EQ(
        kubectl(
            "-n hpaplus-system get lease hpaplus-controller -o jsonpath={.spec.leaseTransitions}")
            .output,
        "1");
}

// The drop-in path as a user takes it: no CRDs, the controller at its defaults, and kubectl's own
// autoscale command.
TEST_F(ControllerProcess, KubectlAutoscaleIsScaledWithoutTheCrdsAndReadsAsOnARealCluster) {
    controller = std::make_unique<test::child_process>(
        std::vector<std::string>{HPAPLUS_BINARY, "controller", "--kubeconfig",
                                 test::shipped_kubeconfig(dir.path(), test::controller_account),
                                 "--leader-elect=false", "--ops-listen=127.0.0.1:0"});
    ASSERT_FALSE(controller->wait_for_line("caches synced", 20s).empty());
    auto r = kubectl("create deployment web --image=nginx --replicas=1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = kubectl("autoscale deployment web --min=3 --max=5 --cpu-percent=50");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_TRUE(eventually([&] {
        return kubectl("get deployment web -o jsonpath={.spec.replicas}").output == "3";
    })) << kubectl("get hpa web -o yaml").output;
    ASSERT_TRUE(eventually([&] {
        return kubectl("get hpa web -o jsonpath={.status.currentReplicas}").output == "3";
    })) << kubectl("get hpa web -o yaml").output;

    const auto table = kubectl("get hpa web");
    ASSERT_EQ(table.exit_code, 0) << table.output;
    for (const char* column : {"REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS",
                               "Deployment/web", "cpu: ", "/50%", "   3   "})
        EXPECT_NE(table.output.find(column), std::string::npos) << column << "\n" << table.output;
    const auto described = kubectl("describe hpa web");
    ASSERT_EQ(described.exit_code, 0) << described.output;
    std::istringstream lines(described.output);
    bool able_to_scale = false;
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::string type, status;
        words >> type >> status;
        able_to_scale = able_to_scale || (type == "AbleToScale" && status == "True");
    }
    // kubectl before 1.23 describes autoscaling/v2beta2 or else v1, and a 1.26+ server (as the sim
    // claims to be) has no v2beta2: it prints the v1 form, whose conditions travel in an
    // annotation.
    able_to_scale =
        able_to_scale ||
        described.output.find(R"([{"type":"AbleToScale","status":"True")") != std::string::npos;
    EXPECT_TRUE(able_to_scale) << described.output;
    EXPECT_NE(described.output.find("Deployment/web"), std::string::npos) << described.output;

    // autoscaling/v1 carries the CPU target in its own field, converted by the server. kubectl
    // 1.30 and later drop the version of a short name (hpa.v1.autoscaling reads v2, on a real
    // cluster too); whichever version kubectl asks for must be answered as that version.
    const std::string jsonpath = " -o jsonpath='{.spec.targetCPUUtilizationPercentage}' -v=6";
    for (const char* resource : {"horizontalpodautoscalers.v1.autoscaling", "hpa.v1.autoscaling"}) {
        const auto v1 = kubectl(std::string("get ") + resource + " web" + jsonpath);
        ASSERT_EQ(v1.exit_code, 0) << v1.output;
        const bool asked_v1 = v1.output.find("/apis/autoscaling/v1/namespaces/default/"
                                             "horizontalpodautoscalers/web") != std::string::npos;
        if (std::string(resource).rfind("horizontalpodautoscalers", 0) == 0) {
            EXPECT_TRUE(asked_v1) << v1.output;
        }
        if (asked_v1) {
            EXPECT_EQ(v1.output.substr(v1.output.find_last_of('\n') + 1), "50")
                << resource << ": " << v1.output;
        }
    }

    // With CPU requests the target is measured: TARGETS shows a percentage.
    ASSERT_EQ(kubectl("set resources deployment web --requests=cpu=100m").exit_code, 0);
    EXPECT_TRUE(eventually(
        [&] {
            const auto t = kubectl("get hpa web --no-headers").output;
            return t.find("cpu: ") != std::string::npos && t.find("%/50%") != std::string::npos;
        },
        90s))
        << kubectl("get hpa web").output << kubectl("describe hpa web").output;
}

// `kubectl describe hpa` of an HPA HPAPlus reconciled, line by line against what
// kube-controller-manager (1.33, default feature gates) makes kubectl print for the same object:
// tests/golden/describe/hpa-kcm.txt. Two pods at 1 core over 500m requests are 100 % of a 50 %
// target: one rescale to 4 (the legacy limit max(2 × 2, 4) allows it), then 4 pods at 50 %:
// steady. The conditions KCM writes (no ScaledToZero without its gate), in its order and words;
// the Event from `horizontal-pod-autoscaler`. Whitespace runs are compared as one space (kubectl's
// tabwriter pads columns to their content), the creation time and the Events' age as
// placeholders. The start-up windows are 0 s, so that which pods count is not a race with the
// simulated kubelet (KCM would print the same for the same status). kubectl 1.20 describes
// autoscaling/v1 here (the server has no v2beta2), whose form has no conditions section: this runs
// with the newest kubectl only (SKEW_FILTER).
TEST_F(ControllerProcess, DescribeHpaPrintsWhatKubeControllerManagerWouldHaveItPrint) {
    controller = std::make_unique<test::child_process>(std::vector<std::string>{
        HPAPLUS_BINARY, "controller", "--kubeconfig",
        test::shipped_kubeconfig(dir.path(), test::controller_account), "--leader-elect=false",
        "--ops-listen=", "--horizontal-pod-autoscaler-sync-period=1s",
        "--horizontal-pod-autoscaler-cpu-initialization-period=0s",
        "--horizontal-pod-autoscaler-initial-readiness-delay=0s"});
    ASSERT_FALSE(controller->wait_for_line("caches synced", 20s).empty());
    // The workload first, with its pods measured, as an HPA usually finds it (created together,
    // KCM's first passes would report the missing metrics as Events too).
    std::ofstream(dir.path() + "/web.yaml") << R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, annotations: {sim.hpaplus.io/cpu-load: "1000m"}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: nginx, resources: {requests: {cpu: 500m}}}]}
)";
    std::ofstream(dir.path() + "/hpa.yaml") << R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
)";
    ASSERT_EQ(kubectl("apply -f " + dir.path() + "/web.yaml").exit_code, 0);
    ASSERT_TRUE(eventually([&] {
        const std::string usage =
            kubectl("get --raw /apis/metrics.k8s.io/v1beta1/namespaces/default/pods").output;
        std::size_t measured = 0;
        for (auto at = usage.find("\"name\":\"web-"); at != std::string::npos;
             at = usage.find("\"name\":\"web-", at + 1))
            ++measured;
        return measured == 2;
    }));
    ASSERT_EQ(kubectl("apply -f " + dir.path() + "/hpa.yaml").exit_code, 0);
    // Normalized as the golden file is.
    const auto normalized = [](const std::string& text) {
        std::vector<std::string> lines;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) {
            line = std::regex_replace(line, std::regex("\\s+"), " ");
            line = std::regex_replace(line, std::regex("^ | $"), "");
            line = std::regex_replace(line, std::regex("^CreationTimestamp: .*"),
                                      "CreationTimestamp: <TIME>");
            line = std::regex_replace(
                line, std::regex("^(Normal|Warning) (\\S+) \\S+( \\(x\\d+ over \\S+\\))? "),
                "$1 $2 <AGE> ");
            if (!line.empty()) lines.push_back(line);
        }
        return lines;
    };
    const auto golden = normalized(read_file(source + "/tests/golden/describe/hpa-kcm.txt"));
    ASSERT_GT(golden.size(), 15u);
    std::vector<std::string> described;
    EXPECT_TRUE(eventually(
        [&] {
            described = normalized(kubectl("describe hpa web").output);
            return described == golden;
        },
        60s));
    for (std::size_t i = 0; i < std::max(golden.size(), described.size()); ++i)
        EXPECT_EQ(i < described.size() ? described[i] : "<none>",
                  i < golden.size() ? golden[i] : "<none>")
            << "line " << i + 1;
}

// `hpaplus why` on a live object: the controller (two lanes, so the object's worker answers from
// another thread than the ops server's) writes down the input its next pass decides from; the
// explanation names the pods, the band and the rate policy; and that input, fed to `evaluate`,
// gives the decision the controller took from it.
TEST_F(ControllerProcess, WhyExplainsALiveObjectAndItsInputDecidesAsTheControllerDid) {
    ASSERT_EQ(kubectl("apply -f " + source + "/crds/").exit_code, 0);
    controller = std::make_unique<test::child_process>(
        std::vector<std::string>{HPAPLUS_BINARY, "controller", "--kubeconfig",
                                 test::shipped_kubeconfig(dir.path(), test::controller_account),
                                 "--leader-elect=false", "--threads=2", "--ops-listen=127.0.0.1:0",
                                 "--horizontal-pod-autoscaler-cpu-initialization-period=0s",
                                 "--horizontal-pod-autoscaler-initial-readiness-delay=0s"});
    const std::string ops = test::url_in(controller->wait_for_line("serving /healthz", 20s));
    ASSERT_FALSE(controller->wait_for_line("caches synced", 20s).empty());
    // The example of examples/why: 200 % of a 50 % target, one more pod per ten minutes.
    ASSERT_EQ(kubectl("apply -f " + source + "/examples/why/web.yaml").exit_code, 0);
    ASSERT_TRUE(eventually([&] {
        return kubectl("get deployment web -o jsonpath={.spec.replicas}").output == "3";
    })) << kubectl("get hpap web -o yaml").output;

    const std::string snapshot = dir.path() + "/web.input.json";
    const auto why = test::run_command(std::string(HPAPLUS_BINARY) + " why default/web --ops-url " +
                                       ops + " --timeout 30 --snapshot " + snapshot);
    ASSERT_EQ(why.exit_code, 0) << why.output;
    for (const char* part :
         {"default/web scales Deployment/web", "Metrics (a ratio within [0.9, 1.1]",
          "#0 Resource cpu — target 50% utilization", "ready, with a sample (3): web-",
          "Rate limits going up (selectPolicy Max)", "Pods 1 per 600s: 1 added and 0 removed",
          "→ from 2, at most 3", "ScaleUpLimit", "the controller decided the same"})
        EXPECT_NE(why.output.find(part), std::string::npos) << part << "\n" << why.output;

    // The input as evaluate reads it, with what the controller decided from it beside it.
    const auto evaluated = test::run_command(std::string(HPAPLUS_BINARY) + " evaluate " + snapshot);
    ASSERT_EQ(evaluated.exit_code, 0) << evaluated.output;
    const std::regex desired("\"desiredReplicas\": (\\d+)");
    std::smatch controller_took, evaluate_took;
    const std::string input = read_file(snapshot);
    const auto decided_at = input.find("\"decided\"");
    ASSERT_NE(decided_at, std::string::npos) << input;
    const std::string decided = input.substr(decided_at);
    ASSERT_TRUE(std::regex_search(decided, controller_took, desired)) << decided;
    ASSERT_TRUE(std::regex_search(evaluated.output, evaluate_took, desired)) << evaluated.output;
    EXPECT_EQ(evaluate_took[1], controller_took[1]) << input << evaluated.output;
    EXPECT_EQ(controller_took[1], "3") << input; // held at 3 by the rate policy

    // Names that are not an object's, and an object no replica runs, are answered as such.
    EXPECT_NE(test::run_command("curl -s -o /dev/null -w '%{http_code}' '" + ops +
                                "/debug/objects/default/web?kind=Pod'")
                  .output.find("400"),
              std::string::npos);
    const auto absent = test::run_command(std::string(HPAPLUS_BINARY) +
                                          " why default/nothing --timeout 2 --ops-url " + ops);
    EXPECT_EQ(absent.exit_code, 1) << absent.output;
    EXPECT_NE(absent.output.find("HTTP 504"), std::string::npos) << absent.output;
}

// An invalid spec the CRD's schema lets through (a Formula's expression is parsed by the
// controller) is an Event and a condition every period, but a log line once: when it appears, and
// once more when the spec is valid again.
TEST_F(ControllerProcess, AnInvalidSpecIsLoggedOnceAndItsEndOnce) {
    ASSERT_EQ(kubectl("apply -f " + source + "/crds/").exit_code, 0);
    controller = std::make_unique<test::child_process>(
        std::vector<std::string>{HPAPLUS_BINARY, "controller", "--kubeconfig",
                                 test::shipped_kubeconfig(dir.path(), test::controller_account),
                                 "--leader-elect=false", "--ops-listen=", "--native-hpas=none"});
    ASSERT_FALSE(controller->wait_for_line("caches synced", 20s).empty());
    const auto autoscaler = [&](const std::string& expression) {
        std::ofstream(dir.path() + "/web.yaml") << R"(apiVersion: autoscaling.hpaplus.io/v1alpha1
kind: HPAPlus
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 10
  syncPeriodSeconds: 1
  metrics:
  - name: load
    type: External
    external: {metric: {name: queue_length}}
  - type: Formula
    formula: {expression: ")" + expression + R"(", target: {type: Value, value: "10"}}
)";
        return kubectl("apply -f " + dir.path() + "/web.yaml");
    };
    const auto applied = autoscaler("load * (2");
    ASSERT_EQ(applied.exit_code, 0) << applied.output;
    std::vector<std::string> logged;
    const auto count = [&](const std::string& needle) {
        for (auto& line : controller->read_lines(100ms))
            logged.push_back(line);
        return std::count_if(logged.begin(), logged.end(), [&](const std::string& line) {
            return line.find(needle) != std::string::npos && line.find("default/web") != line.npos;
        });
    };
    ASSERT_TRUE(eventually([&] {
        return kubectl("get hpap web -o "
                       "'jsonpath={.status.conditions[?(@.type==\"ScalingActive\")].reason}'")
                   .output == "InvalidSpec";
    })) << kubectl("get hpap web -o yaml").output;
    // Five periods more: the Event is recorded again (aggregated), the log says nothing new.
    std::this_thread::sleep_for(5s);
    EXPECT_EQ(count("invalid spec: "), 1) << testing::PrintToString(logged);
    ASSERT_EQ(autoscaler("load * 2").exit_code, 0);
    EXPECT_TRUE(eventually([&] { return count("its spec is valid again") == 1; }))
        << testing::PrintToString(logged);
    std::this_thread::sleep_for(3s);
    EXPECT_EQ(count("invalid spec: "), 1) << testing::PrintToString(logged);
    EXPECT_EQ(count("its spec is valid again"), 1) << testing::PrintToString(logged);
}

TEST(Demo, RunsTheScenarioAndWritesTheReportAndSummary) {
    test::temp_dir dir;
    const auto r = test::run_command(std::string(HPAPLUS_BINARY) + " demo --duration 30 --report " +
                                         dir.path() + "/report.html --summary-json " + dir.path() +
                                         "/summary.json",
                                     120);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("kubectl --server http://127.0.0.1:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Report: "), std::string::npos) << r.output;
    // The CronHPA pre-warms the HPAPlus with a floor of 6, then releases it.
    EXPECT_NE(r.output.find("cron floor 6 (CronHPA job prewarm)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("cron floor 2 (CronHPA job release)"), std::string::npos) << r.output;
    const std::string report = read_file(dir.path() + "/report.html");
    EXPECT_NE(report.find("<svg"), std::string::npos);
    EXPECT_NE(report.find("Scaling events"), std::string::npos);
    // The chart: the metric against its target, desired and ready replicas, the cron floor band;
    // each rescale with its reason (the CronHPA's pre-warm always happens).
    for (const char* part :
         {"CPU utilization", "target 60 %", "desired (HPAPlus status)", "cron floor", "ready"})
        EXPECT_NE(report.find(part), std::string::npos) << part;
    EXPECT_NE(report.find("scaled up from 2 to 6 replicas: Current number of replicas below the "
                          "cron floor 6 set by CronHPA web-prewarm"),
              std::string::npos)
        << report;
    EXPECT_EQ(report.find("<text x=\"60.0\" y=\"28\""), std::string::npos)
        << "the page's heading is the title; the chart does not repeat it";
    const std::string summary = read_file(dir.path() + "/summary.json");
    for (const char* key : {"\"scaleUps\":", "\"scaleDowns\":", "\"maxReplicas\":",
                            "\"finalReplicas\":", "\"reconciles\":", "\"errors\":"})
        EXPECT_NE(summary.find(key), std::string::npos) << key << " in " << summary;
    EXPECT_EQ(summary.find("\"reconciles\":0,"), std::string::npos) << summary;
    // The workload is warm before the controller starts, so no reconcile misses its CPU.
    EXPECT_NE(r.output.find("warming up the workload"), std::string::npos) << r.output;
    EXPECT_NE(summary.find("\"errors\":0,"), std::string::npos) << summary << r.output;
}

// --vertical: VPAPlus resizes the api pods in place; the report adds their requests and usage.
TEST(Demo, VerticalResizesInPlaceAndChartsRequestsAndUsagePerPod) {
    test::temp_dir dir;
    const auto r =
        test::run_command(std::string(HPAPLUS_BINARY) + " demo --duration 30 --vertical --report " +
                              dir.path() + "/report.html",
                          120);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("VPAPlus resized pod api-"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("Vertical: 0 in-place"), std::string::npos) << r.output;
    const std::string report = read_file(dir.path() + "/report.html");
    for (const char* part : {"CPU (m)", "memory (Mi)", "request solid, usage dashed"})
        EXPECT_NE(report.find(part), std::string::npos) << part;
    // Every api pod has a request line and a usage line in both panels.
    std::size_t requests = 0, usages = 0;
    for (auto at = report.find("<title>api-"); at != std::string::npos;
         at = report.find("<title>api-", at + 1)) {
        const std::string title = report.substr(at, report.find("</title>", at) - at);
        requests += title.find(" request") != std::string::npos ? 1 : 0;
        usages += title.find(" usage") != std::string::npos ? 1 : 0;
    }
    EXPECT_GE(requests, 4u) << "two pods, two panels";
    EXPECT_EQ(requests, usages);
}

// --predictive: shop's HPAPlus records its rhythm and, after two cycles, scales ahead of it.
TEST(Demo, PredictiveScalesShopAheadOfItsLoadOnceItHasTwoCycles) {
    test::temp_dir dir;
    const auto r = test::run_command(
        std::string(HPAPLUS_BINARY) + " demo --duration 70 --predictive --report " + dir.path() +
            "/report.html --summary-json " + dir.path() + "/summary.json",
        180);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // Each scale-up of shop: when, and whether its load was still low.
    int ahead = 0, under_load = 0;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
        if (line.find("shop (predictive) scaled up") == std::string::npos) continue;
        const double at = std::stod(line.substr(1));
        if (line.find("ahead of the rise") != std::string::npos) {
            ++ahead;
            EXPECT_GE(at, 40) << "no forecast before two 20 s cycles are recorded: " << line;
        } else {
            ++under_load;
        }
    }
    EXPECT_GE(under_load, 1) << "the first rises are met after they come\n" << r.output;
    EXPECT_GE(ahead, 1) << "a later rise is met before it comes\n" << r.output;
    const std::string summary = read_file(dir.path() + "/summary.json");
    EXPECT_NE(summary.find("\"predictiveScaleUpsAhead\":" + std::to_string(ahead)),
              std::string::npos)
        << summary;
    const std::string report = read_file(dir.path() + "/report.html");
    EXPECT_NE(report.find("shop: a predictive HPAPlus on a 20 s rhythm"), std::string::npos);
    EXPECT_NE(report.find("ahead of the load (the forecast)"), std::string::npos);
}

// A serving certificate in DIR/tls.crt and DIR/tls.key that cert-manager renews: the kubelet
// swaps the mounted files (a rename), and within the 10 s reload interval a client that trusts
// only the new CA connects, without a restart, while one that trusts only the old CA no longer
// does.
class RenewedCertificate {
  public:
    explicit RenewedCertificate(const std::string& dir) : dir_(dir) {
        install(first_);
        write("first-ca.crt", first_.ca_cert_pem);
        write("renewed-ca.crt", renewed_.ca_cert_pem);
    }
    std::string cert_file() const { return dir_ + "/tls.crt"; }
    std::string key_file() const { return dir_ + "/tls.key"; }

    // Whether a TLS client trusting only `ca` completes a request to `url`.
    bool trusted_by(const char* ca, const std::string& url) const {
        return test::run_command("curl -s -o /dev/null --max-time 5 --cacert " + dir_ + "/" + ca +
                                 " " + url)
                   .exit_code == 0;
    }
    void expect_renewal_served(const std::string& url, test::child_process& server,
                               const std::string& log_line) {
        EXPECT_TRUE(trusted_by("first-ca.crt", url));
        EXPECT_FALSE(trusted_by("renewed-ca.crt", url));
        install(renewed_);
        EXPECT_TRUE(
            test::eventually([&] { return trusted_by("renewed-ca.crt", url); }, 30s, 250ms));
        EXPECT_FALSE(trusted_by("first-ca.crt", url));
        EXPECT_FALSE(server.wait_for_line(log_line, 5s).empty());
    }

  private:
    void write(const std::string& name, const std::string& text) const {
        std::ofstream(dir_ + "/" + name + ".new") << text;
        std::rename((dir_ + "/" + name + ".new").c_str(), (dir_ + "/" + name).c_str());
    }
    void install(const net::tls_material& m) const {
        write("tls.crt", m.cert_pem);
        write("tls.key", m.key_pem);
    }
    std::string dir_;
    net::tls_material first_ = net::make_self_signed({"127.0.0.1"});
    net::tls_material renewed_ = net::make_self_signed({"127.0.0.1"});
};

TEST(Adapter, ServesARenewedCertificateWithoutARestart) {
    test::temp_dir dir;
    RenewedCertificate certificate(dir.path());
    std::ofstream(dir.path() + "/backends.yaml") << "backends: []\n";
    test::child_process adapter(
        {HPAPLUS_BINARY, "adapter", "--metric-backends=" + dir.path() + "/backends.yaml",
         "--listen=127.0.0.1:0", "--tls-cert-file=" + certificate.cert_file(),
         "--tls-private-key-file=" + certificate.key_file()});
    const std::string line = adapter.wait_for_line("listening on", 20s);
    ASSERT_NE(line.find("https://"), std::string::npos) << line;
    certificate.expect_renewal_served(line.substr(line.find("https://")) + "/healthz", adapter,
                                      "serving the renewed TLS certificate");
    EXPECT_EQ(adapter.terminate(), 0);
}

// The controller's pod admission webhook, as a process: same renewal, same outcome.
TEST_F(ControllerProcess, TheAdmissionWebhookServesARenewedCertificateWithoutARestart) {
    ASSERT_EQ(kubectl("apply -f " + source + "/crds/").exit_code, 0);
    RenewedCertificate certificate(dir.path());
    const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
    controller = std::make_unique<test::child_process>(std::vector<std::string>{
        HPAPLUS_BINARY, "controller", "--kubeconfig",
        test::shipped_kubeconfig(dir.path(), test::controller_account), "--leader-elect=false",
        "--ops-listen=", "--enable-vertical", "--vertical-webhook-listen=" + address,
        "--vertical-webhook-cert-file=" + certificate.cert_file(),
        "--vertical-webhook-key-file=" + certificate.key_file()});
    ASSERT_FALSE(controller->wait_for_line("caches synced", 20s).empty());
    const std::string url = "https://" + address + "/mutate-pods";
    ASSERT_TRUE(eventually([&] { return certificate.trusted_by("first-ca.crt", url); }));
    certificate.expect_renewal_served(url, *controller,
                                      "admission webhook: serving the renewed TLS certificate");
}

TEST(Demo, BadFlagsExitTwoWithOneLine) {
    for (const char* args : {"--duration 5", "--duration soon", "--bogus x", "--report"}) {
        const auto r = test::run_command(std::string(HPAPLUS_BINARY) + " demo " + args);
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
        EXPECT_NE(r.output.find("hpaplus demo: "), std::string::npos) << r.output;
    }
}

} // namespace
} // namespace hpaplus
