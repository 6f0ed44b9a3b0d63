// End-to-end: the real kubectl against `hpaplus sim` in its own process, started by the test on
// 127.0.0.1:0 with a kubeconfig in a temporary directory, and stopped afterwards. A missing
// kubectl fails the test with what to install (never a skip).
#include "../support/build_paths.hpp"
#include "../support/process.hpp"
#include "../support/shipped_identity.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

const std::string fixtures = std::string(HPAPLUS_SOURCE_DIR) + "/tests/e2e/fixtures";

class KubectlOnSim : public ::testing::TestWithParam<bool> {
  protected:
    void SetUp() override {
        ASSERT_EQ(test::run_command(test::kubectl_program() + " version --client").exit_code, 0)
            << "kubectl is not installed: run scripts/setup.sh (it installs kubectl)";
        std::vector<std::string> argv{HPAPLUS_BINARY, "sim", "--kubeconfig-out",
                                      dir.path() + "/kubeconfig"};
        if (GetParam()) argv.push_back("--tls");
        sim = std::make_unique<test::child_process>(argv);
        const std::string line = sim->wait_for_line("listening on", 20s);
        ASSERT_FALSE(line.empty()) << "hpaplus sim did not start";
        url = line.substr(line.find("http"));
    }

    void TearDown() override {
        if (sim) {
            EXPECT_EQ(sim->terminate(), 0) << "hpaplus sim did not exit cleanly on SIGTERM";
        }
    }

    test::command_result kubectl(const std::string& args) {
        return test::run_kubectl(dir.path(), args);
    }

    // The Deployment `web` (2 pods running, autoscaled by an HPA) and the StatefulSet `db` (rolled
    // out) that the typed clients read.
    void start_web_and_db() {
        ASSERT_EQ(kubectl("apply -f " + fixtures + "/web-deployment.yaml").exit_code, 0);
        ASSERT_EQ(kubectl("apply -f " + fixtures + "/db-statefulset.yaml").exit_code, 0);
        ASSERT_TRUE(test::eventually(
            [&] {
                return kubectl("get pods -l app=web").output.find("Running") != std::string::npos;
            },
            20s, 200ms));
        const auto rolled = kubectl("rollout status statefulset/db --timeout=20s");
        ASSERT_EQ(rolled.exit_code, 0) << rolled.output;
        ASSERT_EQ(kubectl("autoscale deployment web --cpu-percent=50 --min=1 --max=5").exit_code,
                  0);
    }

    test::temp_dir dir;
    std::unique_ptr<test::child_process> sim;
    std::string url;
};

TEST_P(KubectlOnSim, NamespacesAndVersion) {
    const auto ns = kubectl("get namespaces");
    ASSERT_EQ(ns.exit_code, 0) << ns.output;
    EXPECT_NE(ns.output.find("NAME"), std::string::npos);
    EXPECT_NE(ns.output.find("kube-system"), std::string::npos);
    EXPECT_NE(ns.output.find("Active"), std::string::npos);
    const auto version = kubectl("version");
    EXPECT_EQ(version.exit_code, 0) << version.output;
    EXPECT_NE(version.output.find("Server Version"), std::string::npos);
}

// A typed client — the official Python one, which checks every object against the upstream
// OpenAPI schema — lists, pages and watches pods (with complete container statuses), reads
// Deployments and HPAs, and scales through /scale. (It sends `watch=True`: the server parses
// booleans as Go's ParseBool does.)
TEST_P(KubectlOnSim, TheOfficialPythonClientListsPagesWatchesAndScales) {
    start_web_and_db();
    if (HasFatalFailure()) return;
    // Debian's python3 (scripts/setup.sh installs python3-kubernetes for it), not one on PATH.
    const auto r = test::run_command("/usr/bin/python3 " + fixtures + "/typed_client.py " +
                                     dir.path() + "/kubeconfig");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("imageID docker.io/library/nginx@sha256:"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("containerID containerd://"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("deployments ['web']"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("hpas ['web'] 50"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("owner ReplicaSet True"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("defaults Always ClusterFirst 30 default-scheduler Always"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("replicasets ['Deployment']"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("statefulset OrderedReady True"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("statefulset scale app=db"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("statefulset pods ['db-0', 'db-1']"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("paged 2 2"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("scaled 3"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("watched ADDED 1"), std::string::npos) << r.output;
}

// A third client: Ruby's kubeclient (Debian's ruby-kubeclient; scripts/setup.sh installs it),
// which discovers through the legacy lists and watches only through the /watch/ paths.
TEST_P(KubectlOnSim, RubysKubeclientDiscoversWritesWatchesAndScales) {
    const auto r =
        test::run_command("/usr/bin/ruby " + std::string(HPAPLUS_SOURCE_DIR) +
                          "/tests/e2e/ruby/kubeclient_on_sim.rb " + dir.path() + "/kubeconfig");
    ASSERT_EQ(r.exit_code, 0) << "ruby-kubeclient (scripts/setup.sh installs it):\n" << r.output;
    EXPECT_EQ(r.output, "ok\n");
}

// A fourth: a client-go program, kubernetes-mcp-server (a prebuilt Go binary on client-go from the
// npm registry, which scripts/setup.sh installs under tests/e2e/js), driven over its stdio MCP
// protocol: apply, get, scale, pods, logs, top, the node's stats summary, events, deletes.
TEST_P(KubectlOnSim, AClientGoProgramAppliesScalesReadsLogsAndStatsAndDeletes) {
    const std::string binary = std::string(HPAPLUS_SOURCE_DIR) +
                               "/tests/e2e/js/node_modules/kubernetes-mcp-server-linux-amd64/bin/"
                               "kubernetes-mcp-server-linux-amd64";
    const auto r = test::run_command("/usr/bin/python3 " + fixtures + "/client_go_mcp.py " +
                                     binary + " " + dir.path() + "/kubeconfig");
    ASSERT_EQ(r.exit_code, 0) << "(scripts/setup.sh installs the client-go program)\n" << r.output;
    EXPECT_EQ(r.output, "ok\n");
}

// The second typed client: the official JavaScript one (@kubernetes/client-node from the npm
// registry, run by Debian's Node.js; scripts/setup.sh installs both). It refuses plain HTTP, as it
// does against any cluster, so it runs against the TLS sim only.
class JavaScriptClientOnSim : public KubectlOnSim {};

TEST_P(JavaScriptClientOnSim, ListsPagesWatchesScalesTopsDiscoversReadsTablesAndLogsDeletesAndApplies) {
    start_web_and_db();
    if (HasFatalFailure()) return;
    const std::string js = std::string(HPAPLUS_SOURCE_DIR) + "/tests/e2e/js";
    ASSERT_EQ(
        test::run_command("test -d " + js + "/node_modules/@kubernetes/client-node").exit_code, 0)
        << "@kubernetes/client-node is not installed: run scripts/setup.sh";
    const auto r =
        test::run_command("node " + js + "/typed_client.mjs " + dir.path() + "/kubeconfig", 90);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* line :
         {"pods 2 true",
          "imageID docker.io/library/nginx@sha256:",
          "containerID containerd://",
          "owner ReplicaSet true",
          "defaults Always ClusterFirst 30 default-scheduler Always",
          "deployments [\"web\"]",
          "deployment condition True true false",
          "replicasets [\"Deployment\"]",
          "statefulset OrderedReady true",
          "statefulset scale app=db",
          "hpas [\"web\"] 50",
          "namespace Active [\"kubernetes\"]",
          "paged 2 2",
          "remainingItemCount true",
          "scaled 3",
          "watched ADDED true",
          "node 1 True true v1.33.0",
          "top nodes 1 true",
          "top pods true true",
          "event from the JavaScript client web",
          "groups true",
          "core resources true",
          "table Table Name,Ready,Up-to-date,Available,Age,Containers,Images,Selector 1",
          "log \"ready\\n\"",
          "log refused 400 container nope is not valid for pod db-0",
          "orphaned 1 true",
          "foreground done",
          "applied 1 [\"js-a:Apply\"]",
          "conflict 409 Apply failed with 1 conflict: conflict with \"js-a\": .data.replicas "
          ".data.replicas",
          "forced 2 [\"js-a\",\"js-b\"]",
          "created pod Pending BestEffort"})
        EXPECT_NE(r.output.find(line), std::string::npos) << "missing: " << line << "\n"
                                                          << r.output;
}

INSTANTIATE_TEST_SUITE_P(Tls, JavaScriptClientOnSim, ::testing::Values(true),
                         [](const auto&) { return std::string("Https"); });

TEST_P(KubectlOnSim, CreateScaleAndGetDeployment) {
    const auto created = kubectl("create deployment web --image=nginx --replicas=2");
    ASSERT_EQ(created.exit_code, 0) << created.output;
    EXPECT_NE(created.output.find("deployment.apps/web created"), std::string::npos);
    const auto table = kubectl("get deployments");
    ASSERT_EQ(table.exit_code, 0) << table.output;
    EXPECT_NE(table.output.find("UP-TO-DATE"), std::string::npos) << table.output;
    EXPECT_NE(table.output.find("web"), std::string::npos);
    const auto scaled = kubectl("scale deployment web --replicas=5");
    ASSERT_EQ(scaled.exit_code, 0) << scaled.output;
    EXPECT_EQ(kubectl("get deployment web -o jsonpath={.spec.replicas}").output, "5");
    EXPECT_EQ(kubectl("get deployment web -o jsonpath={.metadata.generation}").output, "2");
    const auto scale = kubectl("get --raw /apis/apps/v1/namespaces/default/deployments/web/scale");
    EXPECT_NE(scale.output.find(R"("selector":"app=web")"), std::string::npos) << scale.output;
    const auto missing = kubectl("get deployment nope");
    EXPECT_NE(missing.exit_code, 0);
    EXPECT_NE(
        missing.output.find("Error from server (NotFound): deployments.apps \"nope\" not found"),
        std::string::npos)
        << missing.output;
}

// kubectl reads tables in pages (--chunk-size, 500 by default) and follows the Table's own
// `metadata.continue`: without it only the first page was printed (500 of 1,200 pods).
TEST_P(KubectlOnSim, TablesAreListedPageByPage) {
    ASSERT_EQ(kubectl("create deployment paged --image=nginx --replicas=7").exit_code, 0);
    const auto lines = [](const std::string& text) {
        return std::count(text.begin(), text.end(), '\n');
    };
    ASSERT_TRUE(test::eventually(
        [&] { return lines(kubectl("get pods --chunk-size=0 -o name").output) == 7; }, 20s));
    const auto paged = kubectl("get pods --chunk-size=2 --no-headers");
    ASSERT_EQ(paged.exit_code, 0) << paged.output;
    EXPECT_EQ(lines(paged.output), 7) << paged.output;
}

// The node pods are bound to is a Node object, consistent with NodeMetrics: `kubectl get nodes`,
// `describe` and `top nodes` work as on a real cluster.
TEST_P(KubectlOnSim, TheNodeIsServedAndTopNodesWorks) {
    std::string nodes;
    ASSERT_TRUE(test::eventually(
        [&] {
            return (nodes = kubectl("get nodes --no-headers").output).find("sim-node-1") !=
                   std::string::npos;
        },
        10s))
        << nodes;
    EXPECT_NE(nodes.find("Ready"), std::string::npos) << nodes;
    EXPECT_NE(nodes.find("v1.33.0"), std::string::npos) << nodes;
    EXPECT_EQ(kubectl("get node sim-node-1 -o jsonpath={.status.allocatable.cpu}").output, "16");
    const auto top = kubectl("top nodes --no-headers");
    ASSERT_EQ(top.exit_code, 0) << top.output;
    EXPECT_EQ(top.output.rfind("sim-node-1", 0), 0u) << top.output;
    const auto wide = kubectl("get pods -o wide");
    EXPECT_EQ(wide.exit_code, 0) << wide.output;
}

TEST_P(KubectlOnSim, CustomResourcesWithPrinterColumns) {
    const auto crd = kubectl("apply -f " + fixtures + "/widget-crd.yaml");
    ASSERT_EQ(crd.exit_code, 0) << crd.output;
    const auto cr = kubectl("apply -f " + fixtures + "/widget.yaml");
    ASSERT_EQ(cr.exit_code, 0) << cr.output;
    const auto get = kubectl("get widgets");
    ASSERT_EQ(get.exit_code, 0) << get.output;
    EXPECT_NE(get.output.find("REPLICAS"), std::string::npos) << get.output;
    EXPECT_NE(get.output.find("COLOR"), std::string::npos);
    EXPECT_NE(get.output.find("blue-widget"), std::string::npos);
    EXPECT_NE(get.output.find("blue"), std::string::npos);
    EXPECT_EQ(kubectl("get wd blue-widget -o jsonpath={.spec.replicas}").output, "3"); // short name
    ASSERT_EQ(kubectl("scale widget blue-widget --replicas=7").exit_code, 0);
    EXPECT_EQ(kubectl("get widget blue-widget -o jsonpath={.spec.replicas}").output, "7");
    const auto again = kubectl("apply -f " + fixtures + "/widget.yaml");
    EXPECT_EQ(again.exit_code, 0) << again.output;
    EXPECT_EQ(kubectl("get widget blue-widget -o jsonpath={.spec.replicas}").output,
              "3"); // apply restores it
    const auto crds = kubectl("get crds");
    EXPECT_NE(crds.output.find("widgets.example.hpaplus.io"), std::string::npos) << crds.output;
}

// `hpaplus migrate | kubectl apply -f -`: what migrate writes is an HPAPlus the API server takes.
TEST_P(KubectlOnSim, MigratedHpasApplyAsHpaPluses) {
    ASSERT_EQ(
        kubectl("apply -f " + std::string(HPAPLUS_SOURCE_DIR) + "/crds/hpaplus.yaml").exit_code, 0);
    const std::string migrate = std::string(HPAPLUS_BINARY) + " migrate " +
                                std::string(HPAPLUS_SOURCE_DIR) + "/examples/migrate/web-hpa.yaml";
    const auto applied =
        test::run_command("sh -c '" + migrate + " | " + test::kubectl_program() + " --kubeconfig " +
                          dir.path() + "/kubeconfig apply -f -'");
    ASSERT_EQ(applied.exit_code, 0) << applied.output;
    // The plural, not the short name `hpap`: older kubectl (Debian's 1.20) expands short names from
    // its discovery cache before refreshing it, so right after a CRD is created a short name fails
    // once, against a real cluster too (kubernetes/kubernetes#65517).
    EXPECT_EQ(
        kubectl("get hpapluses web -o jsonpath={.spec.syncPeriodSeconds}/{.spec.rolloutPolicy}/"
                "{.spec.behavior.scaleDown.stabilizationWindowSeconds}")
            .output,
        "5/FreezeScaleDown/600");
}

// The CRD's CEL rules refuse what breaks them, with their messages, as kubectl shows a real
// server's answer: each object of crd_rules_breaking.yaml, the cause its annotation names.
TEST_P(KubectlOnSim, TheCrdsCelRulesRefuseWhatBreaksThem) {
    ASSERT_EQ(
        kubectl("apply -f " + std::string(HPAPLUS_SOURCE_DIR) + "/crds/hpaplus.yaml").exit_code, 0);
    const std::string file =
        std::string(HPAPLUS_SOURCE_DIR) + "/tests/unit/manifests/crd_rules_breaking.yaml";
    const auto r = kubectl("apply -f " + file);
    EXPECT_NE(r.exit_code, 0) << r.output;
    std::ifstream in(file);
    std::string line, name;
    int refusals = 0;
    const std::string key = "test.hpaplus.io/refused-with: '";
    while (std::getline(in, line)) {
        if (const auto at = line.find("  name: "); at == 0) name = line.substr(8);
        const auto at = line.find(key);
        if (at == std::string::npos) continue;
        const std::string cause = line.substr(at + key.size(), line.size() - at - key.size() - 1);
        EXPECT_NE(r.output.find("\"" + name + "\" is invalid: " + cause), std::string::npos)
            << name << ": " << cause << "\n"
            << r.output;
        ++refusals;
    }
    EXPECT_EQ(refusals, 11);
    EXPECT_NE(kubectl("get hpapluses inverted-bounds").exit_code, 0) << "nothing was created";
}

// `kubectl apply -k crds/` then `kubectl apply -k deploy/` installs the CRDs and then the base
// (namespace, ServiceAccount, RBAC, Service, controller Deployment, PDB, FlowSchema) as on a real
// cluster; the controller rolls out; applying again changes nothing (a PodDisruptionBudget's
// selector has patch strategy `replace`, so newer kubectl sends it on every apply and says
// "configured", against a real server too).
TEST_P(KubectlOnSim, ApplyKustomizeInstallsTheBase) {
    const std::string source = std::string(HPAPLUS_SOURCE_DIR);
    auto r = kubectl("apply -k " + source + "/crds/");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* crd : {"hpapluses", "cronhpas", "vpapluses"})
        EXPECT_NE(r.output.find(std::string("customresourcedefinition.apiextensions.k8s.io/") +
                                crd + ".autoscaling.hpaplus.io created"),
                  std::string::npos)
            << crd << "\n"
            << r.output;
    const std::string deploy = source + "/deploy/";
    r = kubectl("apply -k " + deploy);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* created :
         {"namespace/hpaplus-system created", "serviceaccount/hpaplus-controller created",
          "clusterrole.rbac.authorization.k8s.io/hpaplus-controller created",
          "clusterrolebinding.rbac.authorization.k8s.io/hpaplus-controller created",
          "rolebinding.rbac.authorization.k8s.io/hpaplus-leader-election created",
          "service/hpaplus-controller-metrics created",
          "deployment.apps/hpaplus-controller created",
          "flowschema.flowcontrol.apiserver.k8s.io/hpaplus-controller created"})
        EXPECT_NE(r.output.find(created), std::string::npos) << created << "\n" << r.output;
    EXPECT_EQ(r.output.find("customresourcedefinition"), std::string::npos) << r.output;
    r = kubectl("-n hpaplus-system rollout status deployment/hpaplus-controller --timeout=30s");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    r = kubectl("-n hpaplus-system get service hpaplus-controller-metrics");
    EXPECT_NE(r.output.find("ClusterIP   10.96."), std::string::npos) << r.output;
    r = kubectl("apply -k " + deploy);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("#", 0) == 0 || line.find(" unchanged") != std::string::npos) continue;
        EXPECT_EQ(line, "poddisruptionbudget.policy/hpaplus-controller configured") << r.output;
    }
}

// Issue 71: the CRDs live apart from the controller. `kubectl delete -k deploy/` (what a GitOps
// prune of the controller's application does) removes the controller, its namespace and its RBAC,
// and leaves every CRD and every team's HPAPlus, CronHPA and VPAPlus where they were.
TEST_P(KubectlOnSim, DeletingTheControllerLeavesTheCrdsAndEveryObject) {
    const std::string source = std::string(HPAPLUS_SOURCE_DIR);
    ASSERT_EQ(kubectl("apply -k " + source + "/crds/").exit_code, 0);
    auto r = kubectl("apply -k " + source + "/deploy/vertical");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* example :
         {"hpaplus-cpu.yaml", "cronhpa-deployment.yaml", "vpaplus-inplace.yaml"}) {
        r = kubectl("apply -f " + source + "/crds/examples/" + example);
        ASSERT_EQ(r.exit_code, 0) << example << ": " << r.output;
    }
    const auto objects = [&] {
        return kubectl("-n default get hpapluses,cronhpas,vpapluses -o name").output;
    };
    const std::string before = objects();
    ASSERT_EQ(std::count(before.begin(), before.end(), '\n'), 3) << before;

    // The namespace goes first and takes what is in it along (its controller empties it), so the
    // objects kubectl deletes after it may be gone already: --ignore-not-found, as on a real
    // cluster.
    r = kubectl("delete -k " + source +
                "/deploy/vertical --ignore-not-found --wait=true --timeout=60s");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("customresourcedefinition"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("clusterrole.rbac.authorization.k8s.io \"hpaplus-vertical\" deleted"),
              std::string::npos)
        << r.output;
    EXPECT_TRUE(test::eventually(
        [&] { return kubectl("get namespace hpaplus-system").exit_code != 0; }, 30s, 200ms))
        << kubectl("get namespace hpaplus-system -o yaml").output;
    EXPECT_NE(kubectl("-n hpaplus-system get deployment hpaplus-controller").exit_code, 0)
        << "the controller is gone with its namespace";
    r = kubectl("get customresourcedefinitions -o name");
    for (const char* crd : {"hpapluses", "cronhpas", "vpapluses"})
        EXPECT_NE(r.output.find(std::string(crd) + ".autoscaling.hpaplus.io"), std::string::npos)
            << crd << "\n"
            << r.output;
    EXPECT_EQ(objects(), before);
}

TEST_P(KubectlOnSim, PodsAndEvents) {
    const auto applied = kubectl("apply -f " + fixtures + "/pod-and-event.yaml");
    ASSERT_EQ(applied.exit_code, 0) << applied.output;
    const auto pods = kubectl("get pods");
    ASSERT_EQ(pods.exit_code, 0) << pods.output;
    EXPECT_NE(pods.output.find("READY"), std::string::npos) << pods.output;
    EXPECT_NE(pods.output.find("solo"), std::string::npos);
    const auto events = kubectl("get events");
    ASSERT_EQ(events.exit_code, 0) << events.output;
    EXPECT_NE(events.output.find("Hello"), std::string::npos) << events.output;
    EXPECT_NE(events.output.find("pod/solo"), std::string::npos);
    // The same store as events.k8s.io/v1; `kubectl events` (1.26 on; Debian's 1.20 lacks it).
    const auto v1 =
        kubectl("get events.v1.events.k8s.io solo.hello -o jsonpath={.note}/{.regarding.name}");
    EXPECT_EQ(v1.output, "the simulated cluster says hello/solo");
    if (kubectl("events --help").exit_code == 0) {
        const auto listed = kubectl("events --for pod/solo");
        ASSERT_EQ(listed.exit_code, 0) << listed.output;
        EXPECT_NE(listed.output.find("the simulated cluster says hello"), std::string::npos)
            << listed.output;
    }
    const auto selected = kubectl("get pods -l app=other");
    EXPECT_NE(selected.output.find("No resources found"), std::string::npos) << selected.output;
    ASSERT_EQ(kubectl("delete pod solo").exit_code, 0);
    EXPECT_NE(kubectl("get pods").output.find("No resources found"), std::string::npos);
}

// The columns of a `kubectl get` header line (kubectl pads them with three spaces or more; a
// column's own name has single spaces).
std::vector<std::string> header_columns(const std::string& output) {
    const std::string line = output.substr(0, output.find('\n'));
    std::vector<std::string> columns;
    std::size_t at = 0;
    while (at < line.size()) {
        const auto gap = line.find("  ", at);
        const std::string column = line.substr(at, gap == std::string::npos ? gap : gap - at);
        if (!column.empty()) columns.push_back(column);
        if (gap == std::string::npos) break;
        at = line.find_first_not_of(' ', gap);
    }
    return columns;
}

// `kubectl get KIND -o wide` prints the header line a real cluster's printers make (upstream's
// pkg/printers/internalversion column definitions, priority-1 columns included): one kind each.
TEST_P(KubectlOnSim, WideTablesHaveTheRealServersColumns) {
    start_web_and_db();
    ASSERT_EQ(kubectl("apply -f " + fixtures + "/pod-and-event.yaml").exit_code, 0);
    // (`kubectl create service` sends the Service as protobuf.)
    const auto service = kubectl("create service clusterip front --tcp=80:8080");
    ASSERT_EQ(service.exit_code, 0) << service.output;
    ASSERT_EQ(kubectl("create secret generic creds --from-literal=user=admin").exit_code, 0);
    // (`kubectl create job` and `create priorityclass` send protobuf too.)
    const auto job = kubectl("create job once --image=busybox");
    ASSERT_EQ(job.exit_code, 0) << job.output;
    const auto pc = kubectl("create priorityclass batch-low --value=100 --description=low");
    ASSERT_EQ(pc.exit_code, 0) << pc.output;
    std::ofstream(dir.path() + "/agent.yaml")
        << "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n"
           "  selector: {matchLabels: {app: agent}}\n  template:\n"
           "    metadata: {labels: {app: agent}}\n"
           "    spec: {containers: [{name: a, image: agent:1}]}\n---\n"
           "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: db}\n"
           "spec: {podSelector: {matchLabels: {app: db}}}\n";
    const auto applied = kubectl("apply -f " + dir.path() + "/agent.yaml");
    ASSERT_EQ(applied.exit_code, 0) << applied.output;
    using columns = std::vector<std::string>;
    const std::vector<std::pair<std::string, columns>> kinds{
        {"pods",
         {"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE",
          "READINESS GATES"}},
        {"deployments",
         {"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}},
        {"replicasets",
         {"NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}},
        {"statefulsets", {"NAME", "READY", "AGE", "CONTAINERS", "IMAGES"}},
        {"nodes",
         {"NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE",
          "KERNEL-VERSION", "CONTAINER-RUNTIME"}},
        {"services", {"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"}},
        {"events",
         {"LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN",
          "COUNT", "NAME"}},
        {"configmaps", {"NAME", "DATA", "AGE"}},
        {"secrets", {"NAME", "TYPE", "DATA", "AGE"}},
        {"serviceaccounts", {"NAME", "SECRETS", "AGE"}},
        {"leases -n kube-node-lease", {"NAME", "HOLDER", "AGE"}},
        {"namespaces", {"NAME", "STATUS", "AGE"}},
        {"horizontalpodautoscalers",
         {"NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"}},
        {"clusterroles", {"NAME", "CREATED AT"}}, // no printer: the default table convertor
        {"daemonsets",
         {"NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE",
          "CONTAINERS", "IMAGES", "SELECTOR"}},
        {"jobs",
         {"NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}},
        {"controllerrevisions", {"NAME", "CONTROLLER", "REVISION", "AGE"}},
        {"networkpolicies", {"NAME", "POD-SELECTOR", "AGE"}},
        {"priorityclasses", {"NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"}},
    };
    for (const auto& [kind, expected] : kinds) {
        const auto got = kubectl("get " + kind + " -o wide");
        ASSERT_EQ(got.exit_code, 0) << kind << ": " << got.output;
        EXPECT_EQ(header_columns(got.output), expected) << kind << ":\n" << got.output;
    }
    // Cells as the printers make them: the template's containers and images, the selector.
    const auto deploy = kubectl("get deployment web -o wide --no-headers");
    EXPECT_NE(deploy.output.find("app=web"), std::string::npos) << deploy.output;
    const auto node = kubectl("get node sim-node-1 -o wide --no-headers");
    EXPECT_NE(node.output.find("10.0.0.1"), std::string::npos) << node.output;
    EXPECT_NE(node.output.find("<none>"), std::string::npos) << node.output; // no External-IP
    const auto secret = kubectl("get secret creds --no-headers");
    EXPECT_NE(secret.output.find("Opaque"), std::string::npos) << secret.output;
    // The StatefulSet's revision, named as its pods' label and printed with its controller.
    const auto revision = kubectl("get controllerrevisions --no-headers");
    EXPECT_NE(revision.output.find("statefulset.apps/db"), std::string::npos) << revision.output;
    const std::string uid = kubectl("get job once -o jsonpath={.metadata.uid}").output;
    ASSERT_FALSE(uid.empty());
    const auto selector = kubectl("get job once -o jsonpath={.spec.selector.matchLabels}");
    EXPECT_NE(selector.output.find(uid), std::string::npos) << selector.output;
    EXPECT_EQ(kubectl("get priorityclass batch-low -o jsonpath={.value}/{.description}").output,
              "100/low");
}

// Secrets as the real server keeps them: data base64, stringData merged into it on write (and
// never stored), the type's required keys, and `immutable` freezing the data.
TEST_P(KubectlOnSim, SecretsAreStoredAndValidatedAsOnARealCluster) {
    ASSERT_EQ(kubectl("create secret generic creds --from-literal=user=admin").exit_code, 0);
    EXPECT_EQ(kubectl("get secret creds -o jsonpath={.data.user}").output, "YWRtaW4=");
    std::ofstream(dir.path() + "/secret.yaml")
        << "apiVersion: v1\nkind: Secret\nmetadata: {name: merged}\n"
           "data: {user: YWRtaW4=, pass: b2xk}\nstringData: {pass: new}\nimmutable: true\n";
    const auto applied = kubectl("apply -f " + dir.path() + "/secret.yaml");
    ASSERT_EQ(applied.exit_code, 0) << applied.output;
    EXPECT_EQ(kubectl("get secret merged -o jsonpath={.data.pass}/{.type}").output, "bmV3/Opaque");
    EXPECT_EQ(kubectl("get secret merged -o jsonpath={.stringData}").output, "");
    const auto frozen = kubectl(R"(patch secret merged -p '{"data":{"user":"cm9vdA=="}}')");
    EXPECT_NE(frozen.exit_code, 0);
    EXPECT_NE(frozen.output.find("field is immutable when `immutable` is set"), std::string::npos)
        << frozen.output;
    std::ofstream(dir.path() + "/tls.yaml")
        << "apiVersion: v1\nkind: Secret\nmetadata: {name: cert}\ntype: kubernetes.io/tls\n"
           "data: {tls.crt: eA==}\n";
    const auto tls = kubectl("create -f " + dir.path() + "/tls.yaml");
    EXPECT_NE(tls.exit_code, 0);
    EXPECT_NE(tls.output.find("data[tls.key]: Required value"), std::string::npos) << tls.output;
}

// What kube-controller-manager keeps in every namespace: the default ServiceAccount and the
// kube-root-ca.crt ConfigMap with the cluster's CA; deleted, they come back.
TEST_P(KubectlOnSim, EveryNamespaceGetsItsServiceAccountAndRootCa) {
    ASSERT_EQ(kubectl("create namespace team-a").exit_code, 0);
    ASSERT_TRUE(test::eventually(
        [&] { return kubectl("get serviceaccount default -n team-a").exit_code == 0; }, 10s));
    ASSERT_TRUE(test::eventually(
        [&] {
            return kubectl(
                       R"(get configmap kube-root-ca.crt -n team-a -o 'jsonpath={.data.ca\.crt}')")
                       .output.rfind("-----BEGIN CERTIFICATE-----", 0) == 0;
        },
        10s));
    EXPECT_EQ(
        kubectl(
            R"(get namespace team-a -o 'jsonpath={.metadata.labels.kubernetes\.io/metadata\.name}')")
            .output,
        "team-a");
    ASSERT_EQ(kubectl("delete serviceaccount default -n team-a").exit_code, 0);
    EXPECT_TRUE(test::eventually(
        [&] { return kubectl("get serviceaccount default -n team-a").exit_code == 0; }, 10s));
}

// `kubectl logs` reads what the simulated kubelet wrote for the container: its start and its
// readiness, with upstream's answers for a wrong container or a run that never restarted.
TEST_P(KubectlOnSim, LogsShowWhatTheKubeletSaw) {
    start_web_and_db();
    std::string log;
    ASSERT_TRUE(test::eventually(
        [&] { return (log = kubectl("logs db-0").output).find("ready") != std::string::npos; },
        10s))
        << log;
    EXPECT_NE(log.find("started: image"), std::string::npos) << log;
    EXPECT_EQ(kubectl("logs db-0 --tail=1").output, "ready\n");
    const auto stamped = kubectl("logs db-0 --tail=1 --timestamps");
    EXPECT_NE(stamped.output.find("Z ready"), std::string::npos) << stamped.output;
    const auto wrong = kubectl("logs db-0 -c nope");
    EXPECT_NE(wrong.exit_code, 0);
    EXPECT_NE(wrong.output.find("container nope is not valid for pod db-0"), std::string::npos)
        << wrong.output;
    const auto previous = kubectl("logs db-0 --previous");
    EXPECT_NE(previous.exit_code, 0);
    EXPECT_NE(previous.output.find("previous terminated container"), std::string::npos)
        << previous.output;
    // -f follows the log until the pod is gone: its SIGTERM line arrives, then the stream ends.
    test::child_process follower({"/bin/sh", "-c",
                                  test::kubectl_program() + " --kubeconfig " + dir.path() +
                                      "/kubeconfig logs -f db-0; echo follow-ended:$?"});
    ASSERT_FALSE(follower.wait_for_line("ready", 10s).empty());
    ASSERT_EQ(kubectl("delete pod db-0 --wait=false").exit_code, 0);
    EXPECT_FALSE(follower.wait_for_line("received SIGTERM", 10s).empty());
    const std::string ended = follower.wait_for_line("follow-ended:", 20s);
    EXPECT_NE(ended.find("follow-ended:0"), std::string::npos) << ended;
}

// The simulated kubelet runs no containers: exec, attach and port-forward reach the API server's
// checks (a wrong container is its 400) and then fail as a real cluster's do when the kubelet
// does not answer, through kubectl's websocket and SPDY upgrades alike.
TEST_P(KubectlOnSim, ExecAndPortForwardFailAsWithAKubeletThatDoesNotAnswer) {
    start_web_and_db();
    const auto exec = kubectl("exec db-0 -- ls");
    EXPECT_NE(exec.exit_code, 0);
    EXPECT_NE(exec.output.find("error dialing backend: dial tcp 10.0.0.1:10250: connect: "
                               "connection refused"),
              std::string::npos)
        << exec.output;
    const auto wrong = kubectl("exec db-0 -c nope -- ls");
    EXPECT_NE(wrong.exit_code, 0);
    EXPECT_NE(wrong.output.find("container nope is not valid for pod db-0"), std::string::npos)
        << wrong.output;
    const auto forward = kubectl("port-forward pod/db-0 15432:5432 --pod-running-timeout=5s");
    EXPECT_NE(forward.exit_code, 0);
    EXPECT_NE(forward.output.find("error"), std::string::npos) << forward.output;
    // Discovery lists them, as kubectl and clients look for them there.
    const auto resources = kubectl("get --raw /api/v1");
    for (const char* sub : {"pods/exec", "pods/attach", "pods/portforward", "nodes/proxy"})
        EXPECT_NE(resources.output.find(std::string("\"") + sub + "\""), std::string::npos) << sub;
}

// `kubectl apply` validates against /openapi/v2 (kubectl 1.20) or lets the server validate (newer
// kubectl), and a second apply sends a strategic merge patch that the server merges by key.
TEST_P(KubectlOnSim, ApplyValidatesAndReapplyRemovesWhatTheManifestDropped) {
    const std::string manifest = dir.path() + "/web.yaml";
    const std::string deployment = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx
        env: [{name: A, value: "1"}, {name: B, value: "2"}]
)";
    std::ofstream(manifest) << deployment;
    auto r = kubectl("apply -f " + manifest);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::string without_b = deployment;
    without_b.replace(without_b.find(", {name: B"),
                      std::string(R"(, {name: B, value: "2"})").size(), "");
    std::ofstream(manifest) << without_b;
    r = kubectl("apply -f " + manifest);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(
        kubectl("get deployment web -o jsonpath={.spec.template.spec.containers[0].env}").output,
        R"([{"name":"A","value":"1"}])");
    // The CRDs and their examples apply with validation on; a misspelt field is refused.
    r = kubectl("apply -f " + std::string(HPAPLUS_SOURCE_DIR) + "/crds/");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_EQ(kubectl("create namespace shop").exit_code, 0);
    r = kubectl("apply -f " + std::string(HPAPLUS_SOURCE_DIR) + "/crds/examples/");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    r = kubectl("apply -f " + std::string(HPAPLUS_SOURCE_DIR) + "/examples/statefulset/");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    r = kubectl("rollout status statefulset/db --timeout=30s");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::ofstream(dir.path() + "/typo.yaml") << R"(apiVersion: autoscaling.hpaplus.io/v1alpha1
kind: HPAPlus
metadata: {name: typo}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 3
  maxReplicaz: 4
)";
    r = kubectl("apply -f " + dir.path() + "/typo.yaml");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("maxReplicaz"), std::string::npos) << r.output;
}

// `kubectl apply --server-side` creates, re-applies, reports another manager's field as a conflict
// until `--force-conflicts`; `kubectl delete --cascade=orphan|foreground` propagate as the
// garbage collector does (both flags exist since kubectl 1.20).
TEST_P(KubectlOnSim, ServerSideApplyAndCascadingDeletes) {
    const std::string manifest = dir.path() + "/web.yaml";
    const auto write = [&](int replicas) {
        std::ofstream(manifest) << "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                                   "spec:\n  replicas: "
                                << replicas
                                << "\n  selector: {matchLabels: {app: web}}\n  template:\n"
                                   "    metadata: {labels: {app: web}}\n    spec:\n"
                                   "      containers: [{name: app, image: nginx}]\n";
    };
    write(2);
    auto r = kubectl("apply --server-side -f " + manifest);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("serverside-applied"), std::string::npos) << r.output;
    r = kubectl("apply --server-side -f " + manifest);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    write(4);
    r = kubectl("apply --server-side --field-manager=other -f " + manifest);
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(
        r.output.find("Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas"),
        std::string::npos)
        << r.output;
    r = kubectl("apply --server-side --field-manager=other --force-conflicts -f " + manifest);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(kubectl("get deployment web -o jsonpath={.spec.replicas}").output, "4");

    ASSERT_TRUE(test::eventually(
        [&] { return kubectl("get replicasets -o name").output.find("web-") != std::string::npos; },
        20s, 200ms));
    r = kubectl("delete deployment web --cascade=orphan");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_TRUE(test::eventually([&] { return kubectl("get deployments -o name").output.empty(); },
                                 20s, 200ms));
    EXPECT_NE(kubectl("get replicasets -o name").output.find("web-"), std::string::npos);
    ASSERT_EQ(kubectl("apply -f " + fixtures + "/db-statefulset.yaml").exit_code, 0);
    ASSERT_EQ(kubectl("rollout status statefulset/db --timeout=20s").exit_code, 0);
    r = kubectl("delete statefulset db --cascade=foreground");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(test::eventually(
        [&] {
            return kubectl("get statefulsets -o name").output.empty() &&
                   kubectl("get pods -l app=db -o name").output.empty();
        },
        20s, 200ms));
}

TEST_P(KubectlOnSim, WatchSeesChanges) {
    ASSERT_EQ(kubectl("create namespace watched").exit_code, 0);
    // kubectl get -w prints the current state and then every change until it is stopped.
    test::child_process watcher({"/bin/sh", "-c",
                                 "exec " + test::kubectl_program() + " --kubeconfig " + dir.path() +
                                     "/kubeconfig --cache-dir " + dir.path() +
                                     "/cache get configmaps -n watched -w"});
    std::this_thread::sleep_for(1s);
    ASSERT_EQ(kubectl("create configmap seen -n watched --from-literal=a=1").exit_code, 0);
    EXPECT_FALSE(watcher.wait_for_line("seen", 15s).empty())
        << "kubectl get -w did not print the new configmap";
}

TEST_P(KubectlOnSim, WorkloadsRunAndReportUsage) {
    ASSERT_EQ(kubectl("create deployment api --image=nginx --replicas=2").exit_code, 0);
    const auto rollout = kubectl("rollout status deployment/api --timeout=30s");
    ASSERT_EQ(rollout.exit_code, 0) << rollout.output;
    EXPECT_NE(rollout.output.find("successfully rolled out"), std::string::npos);
    const auto pods = kubectl("get pods -l app=api");
    EXPECT_NE(pods.output.find("1/1"), std::string::npos) << pods.output;
    EXPECT_NE(pods.output.find("Running"), std::string::npos);
    ASSERT_EQ(kubectl("annotate deployment api sim.hpaplus.io/cpu-load=900m").exit_code, 0);
    const auto top = kubectl("top pods -l app=api");
    ASSERT_EQ(top.exit_code, 0) << top.output;
    EXPECT_NE(top.output.find("450m"), std::string::npos) << top.output;
    const auto raw = kubectl("get --raw /apis/metrics.k8s.io/v1beta1/namespaces/default/pods");
    EXPECT_NE(raw.output.find("PodMetricsList"), std::string::npos) << raw.output;
    ASSERT_EQ(kubectl("set image deployment/api nginx=nginx:2").exit_code, 0);
    const auto again = kubectl("rollout status deployment/api --timeout=30s");
    EXPECT_EQ(again.exit_code, 0) << again.output;
}

TEST_P(KubectlOnSim, CustomAndExternalMetricsApis) {
    ASSERT_EQ(kubectl("apply -f " + fixtures + "/metrics-values.yaml").exit_code, 0);
    const auto external =
        kubectl("get --raw /apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth");
    ASSERT_EQ(external.exit_code, 0) << external.output;
    EXPECT_NE(external.output.find(R"("value":"42")"), std::string::npos) << external.output;
    const auto custom = kubectl(
        "get --raw "
        "'/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/http_requests_per_second'");
    ASSERT_EQ(custom.exit_code, 0) << custom.output;
    EXPECT_NE(custom.output.find(R"("name":"busy")"), std::string::npos) << custom.output;
    const auto missing =
        kubectl("get --raw /apis/external.metrics.k8s.io/v1beta1/namespaces/default/nothing");
    EXPECT_NE(missing.exit_code, 0);
    EXPECT_NE(missing.output.find("NotFound"), std::string::npos) << missing.output;
}

// deploy/'s RBAC, as `kubectl auth` shows it: can-i for the controller's ServiceAccount
// (impersonated, and over HTTPS with its own token, where kubectl sends tokens), can-i --list,
// whoami (kubectl 1.28+), and a refusal in the server's words.
TEST_P(KubectlOnSim, AuthCanIAndWhoamiSeeTheShippedRbac) {
    const std::string sa = "system:serviceaccount:hpaplus-system:hpaplus-controller";
    const std::string kubeconfig = test::shipped_kubeconfig(dir.path(), test::controller_account);
    auto r = kubectl("auth can-i list pods --as=" + sa);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.substr(0, 3), "yes") << r.output;
    r = kubectl("auth can-i delete deployments --as=" + sa);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(r.output.substr(0, 2), "no") << r.output;
    r = kubectl("auth can-i get leases/hpaplus-controller -n hpaplus-system --as=" + sa);
    EXPECT_EQ(r.output.substr(0, 3), "yes") << r.output;
    r = kubectl("auth can-i update deployments.apps --subresource=scale --as=" + sa);
    EXPECT_EQ(r.output.substr(0, 3), "yes") << r.output;
    r = kubectl("auth can-i --list -n hpaplus-system --as=" + sa);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("[hpaplus-controller]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("pods/eviction"), std::string::npos) << r.output;
    r = kubectl("delete deployment web --as=" + sa);
    EXPECT_NE(r.output.find("Error from server (Forbidden): deployments.apps \"web\" is "
                            "forbidden: User \"" +
                            sa +
                            "\" cannot delete resource \"deployments\" in API group "
                            "\"apps\" in the namespace \"default\""),
              std::string::npos)
        << r.output;
    const bool has_whoami = // kubectl 1.28 and later
        test::run_command(test::kubectl_program() + " auth --help").output.find("whoami") !=
        std::string::npos;
    if (has_whoami) {
        r = kubectl("auth whoami --as=" + sa);
        EXPECT_NE(r.output.find(sa), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("system:serviceaccounts:hpaplus-system"), std::string::npos)
            << r.output;
    }
    if (!GetParam()) return; // kubectl sends a bearer token over HTTPS only
    auto as_controller = [&](const std::string& args) {
        return test::run_command(test::kubectl_program() + " --kubeconfig " + kubeconfig +
                                 " --cache-dir " + dir.path() + "/cache-sa " + args);
    };
    r = as_controller("auth can-i list pods");
    EXPECT_EQ(r.output.substr(0, 3), "yes") << r.output;
    r = as_controller("get nodes");
    EXPECT_NE(r.output.find("nodes is forbidden: User \"" + sa +
                            "\" cannot list resource \"nodes\" in API group \"\" at the "
                            "cluster scope"),
              std::string::npos)
        << r.output;
    if (has_whoami) {
        r = as_controller("auth whoami");
        EXPECT_NE(r.output.find(sa), std::string::npos) << r.output;
    }
}

TEST(SimScenario, PlaysObjectsAndLoad) {
    test::temp_dir dir;
    test::child_process sim({HPAPLUS_BINARY, "sim", "--kubeconfig-out", dir.path() + "/kubeconfig",
                             "--scenario",
                             std::string(HPAPLUS_SOURCE_DIR) + "/examples/sim/web-load.json"});
    const std::string line = sim.wait_for_line("listening on", 20s);
    ASSERT_FALSE(line.empty());
    const std::string url = line.substr(line.find("http"));
    auto kubectl = [&](const std::string& args) { return test::run_kubectl(dir.path(), args); };
    EXPECT_EQ(kubectl("rollout status deployment/web --timeout=30s").exit_code, 0);
    // the first load step (1.6 CPU at 1 s) spreads over the two pods
    bool seen = false;
    for (int i = 0; i < 50 && !seen; ++i) {
        seen = kubectl("top pods").output.find("800m") != std::string::npos;
        if (!seen) std::this_thread::sleep_for(200ms);
    }
    EXPECT_TRUE(seen) << kubectl("top pods").output;
    const auto scrape = test::run_command("curl -s " + url + "/sim/v1/prometheus");
    EXPECT_NE(scrape.output.find("# TYPE sim_pod_cpu_seconds_total counter"), std::string::npos)
        << scrape.output;
    EXPECT_NE(scrape.output.find("sim_pod_cpu_usage_cores{namespace=\"default\",pod=\"web-"),
              std::string::npos)
        << scrape.output;
    // Labelled with the Deployment above the pod's ReplicaSet.
    EXPECT_NE(scrape.output.find("\",deployment=\"web\"} "), std::string::npos) << scrape.output;
    // cAdvisor's per-container series, as VPAPlus's Prometheus history reads them.
    EXPECT_NE(
        scrape.output.find("container_cpu_usage_seconds_total{namespace=\"default\",pod=\"web-"),
        std::string::npos)
        << scrape.output;
    EXPECT_NE(scrape.output.find("container_memory_working_set_bytes{"), std::string::npos);
}

TEST(SimScenario, BadScenarioIsExitTwo) {
    test::temp_dir dir;
    std::ofstream(dir.path() + "/bad.json")
        << R"({"load":[{"at":1,"deployment":"web","cpu":"lots"}]})";
    const auto r = test::run_command(std::string(HPAPLUS_BINARY) + " sim --scenario " + dir.path() +
                                     "/bad.json");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("load[0].cpu"), std::string::npos) << r.output;
    std::ofstream(dir.path() + "/unknown.json")
        << R"({"objects":[{"apiVersion":"v9","kind":"Gizmo","metadata":{"name":"g"}}]})";
    const auto u = test::run_command(std::string(HPAPLUS_BINARY) + " sim --scenario " + dir.path() +
                                     "/unknown.json");
    EXPECT_EQ(u.exit_code, 2);
    EXPECT_NE(u.output.find("objects[0]"), std::string::npos) << u.output;
    std::ofstream(dir.path() + "/repeat.json")
        << R"({"load":[{"at":30,"deployment":"web","cpu":"1"}],"repeatSeconds":30})";
    const auto rep = test::run_command(std::string(HPAPLUS_BINARY) + " sim --scenario " +
                                       dir.path() + "/repeat.json");
    EXPECT_EQ(rep.exit_code, 2);
    EXPECT_NE(rep.output.find("repeatSeconds: seconds after the last load step"), std::string::npos)
        << rep.output;
    std::ofstream(dir.path() + "/fast.json")
        << R"({"load":[{"at":0,"deployment":"web","cpu":"1"}],"repeatSeconds":0.001})";
    EXPECT_EQ(test::run_command(std::string(HPAPLUS_BINARY) + " sim --scenario " + dir.path() +
                                "/fast.json")
                  .exit_code,
              2)
        << "a rhythm faster than a second would only busy the simulated cluster";
    EXPECT_EQ(test::run_command(std::string(HPAPLUS_BINARY) + " sim --listen nonsense").exit_code,
              2);
}

INSTANTIATE_TEST_SUITE_P(Transport, KubectlOnSim, ::testing::Values(false, true),
                         [](const auto& info) {
                             return info.param ? std::string("Https") : std::string("Http");
                         });

} // namespace
} // namespace hpaplus
