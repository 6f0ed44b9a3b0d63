// End-to-end: what others send cannot take the controller, the adapter or the simulated cluster
// down. A metric backend answers 200,000 nested `[` (the answer that once crashed the controller
// in a loop), a pod carries 100,000 labels, and the sim gets a 100,000-deep request body; every
// process stays up, says what was wrong, and keeps answering /healthz.
#include "../support/build_paths.hpp"
#include "../support/process.hpp"
#include "../support/shipped_identity.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <functional>
#include <thread>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

const std::string source = HPAPLUS_SOURCE_DIR;

void write_file(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// An HTTP server on 127.0.0.1 that answers every request with the same 200 OK body.
class hostile_backend {
  public:
    explicit hostile_backend(std::string body) : body_(std::move(body)) {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        ::listen(fd_, 16);
        socklen_t len = sizeof addr;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~hostile_backend() {
        stop_ = true;
        thread_.join();
        ::close(fd_);
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
    int requests() const { return requests_; }

  private:
    void serve() {
        while (!stop_) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            const int c = ::accept(fd_, nullptr, nullptr);
            if (c < 0) continue;
            std::string request;
            char buffer[4096];
            while (request.find("\r\n\r\n") == std::string::npos) {
                pollfd q{c, POLLIN, 0};
                if (::poll(&q, 1, 2000) <= 0) break;
                const auto n = ::read(c, buffer, sizeof buffer);
                if (n <= 0) break;
                request.append(buffer, static_cast<std::size_t>(n));
            }
            ++requests_;
            const std::string answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                       "Connection: close\r\nContent-Length: " +
                                       std::to_string(body_.size()) + "\r\n\r\n" + body_;
            for (std::size_t sent = 0; sent < answer.size();) {
                const auto n = ::write(c, answer.data() + sent, answer.size() - sent);
                if (n <= 0) break;
                sent += static_cast<std::size_t>(n);
            }
            ::close(c);
        }
    }

    std::string body_;
    int fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::atomic<int> requests_{0};
    std::thread thread_;
};

class HostileInputE2E : public ::testing::Test {
  protected:
    void SetUp() override {
        sim = std::make_unique<test::child_process>(std::vector<std::string>{
            HPAPLUS_BINARY, "sim", "--kubeconfig-out", dir.path() + "/kubeconfig"});
        const std::string line = sim->wait_for_line("listening on", 20s);
        ASSERT_FALSE(line.empty()) << "hpaplus sim did not start";
        sim_url = test::url_in(line);
        ASSERT_EQ(kubectl("apply -f " + source + "/crds/").exit_code, 0);
        write_file(dir.path() + "/backends.yaml", "backends:\n"
                                                  "  - name: hostile\n"
                                                  "    type: monitor\n"
                                                  "    url: \"" +
                                                      backend.url() +
                                                      "/query?q={{query}}\"\n"
                                                      "    timeoutSeconds: 2\n"
                                                      "    response: {value: /value}\n"
                                                      "adapter:\n"
                                                      "  external:\n"
                                                      "    - name: queue_depth\n"
                                                      "      backend: hostile\n"
                                                      "      query: queue_depth\n");
    }
    void TearDown() override {
        if (controller) {
            EXPECT_EQ(controller->terminate(10000ms), 0);
        }
        if (sim) {
            // Under deploy/'s RBAC, nothing the components did was refused.
            test::record_rbac_usage_of(dir.path());
            for (const auto* account : {&test::controller_account, &test::adapter_account})
                EXPECT_EQ(test::shipped_refusals(dir.path(), *account), "") << *account;
            EXPECT_EQ(sim->terminate(), 0);
        }
    }

    void start_controller() {
        controller = std::make_unique<test::child_process>(std::vector<std::string>{
            HPAPLUS_BINARY, "controller", "--kubeconfig",
            test::shipped_kubeconfig(dir.path(), test::controller_account), "--leader-elect=false",
            "--ops-listen=127.0.0.1:0", "--metric-backends=" + dir.path() + "/backends.yaml"});
        ops_url = test::url_in(controller->wait_for_line("serving /healthz", 20s));
        ASSERT_FALSE(ops_url.empty()) << "the controller did not serve /healthz";
        ASSERT_FALSE(controller->wait_for_line("caches synced", 20s).empty());
    }

    // /healthz within one second, as the issue asks; false on no answer or anything but "ok".
    // Answered "ok" within 3 s (a curl start alone can take a second on a loaded machine).
    bool healthy(const std::string& url, const std::string& curl_flags = "") {
        const auto r =
            test::run_command("curl -s --max-time 3 " + curl_flags + " '" + url + "/healthz'", 8);
        return r.exit_code == 0 && r.output.rfind("ok", 0) == 0;
    }

    test::command_result kubectl(const std::string& args) {
        return test::run_kubectl(dir.path(), args);
    }
    std::string jsonpath(const std::string& object, const std::string& path) {
        return kubectl("get " + object + " -o 'jsonpath=" + path + "'").output;
    }

    test::temp_dir dir;
    hostile_backend backend{std::string(200000, '[')};
    std::string sim_url;
    std::string ops_url;
    std::unique_ptr<test::child_process> sim;
    std::unique_ptr<test::child_process> controller;
};

TEST_F(HostileInputE2E, A200000DeepBackendAnswerIsAConditionNotACrash) {
    write_file(dir.path() + "/web.yaml",
               "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
               "spec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n"
               "    metadata: {labels: {app: web}}\n    spec:\n      containers:\n"
               "        - {name: app, image: nginx}\n"
               "---\napiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: HPAPlus\n"
               "metadata: {name: web, namespace: default}\nspec:\n"
               "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n"
               "  minReplicas: 1\n  maxReplicas: 5\n  syncPeriodSeconds: 1\n  metrics:\n"
               "    - type: External\n      external:\n        metric: {name: queue_depth}\n"
               "        target: {type: AverageValue, averageValue: '10'}\n"
               "      backend: {name: hostile, query: queue_depth}\n");
    ASSERT_EQ(kubectl("apply -f " + dir.path() + "/web.yaml").exit_code, 0);
    start_controller();

    std::string message;
    EXPECT_TRUE(test::eventually(
        [&] {
            message =
                jsonpath("hpap web", "{.status.conditions[?(@.type==\"ScalingActive\")].message}");
            return message.find(
                       "backend \"hostile\" answered badly: nesting deeper than 512 levels") !=
                   std::string::npos;
        },
        60s, 250ms))
        << message << "\n"
        << kubectl("get hpap web -o yaml").output;
    EXPECT_EQ(jsonpath("hpap web", "{.status.conditions[?(@.type==\"ScalingActive\")].status}"),
              "False");
    // Several more reconciles against the same answer, and the controller is still up.
    const int seen = backend.requests();
    EXPECT_TRUE(test::eventually([&] { return backend.requests() >= seen + 3; }, 30s, 250ms));
    EXPECT_TRUE(healthy(ops_url));
    EXPECT_EQ(jsonpath("deployment web", "{.spec.replicas}"), "2");

    // The adapter on the same file answers the same metric with a Status, and stays up.
    test::child_process adapter({HPAPLUS_BINARY, "adapter",
                                 "--metric-backends=" + dir.path() + "/backends.yaml",
                                 "--listen=127.0.0.1:0"});
    const std::string adapter_url = test::url_in(adapter.wait_for_line("listening on", 20s));
    ASSERT_FALSE(adapter_url.empty());
    for (int i = 0; i < 3; ++i) {
        const auto r = test::run_command(
            "curl -sk --max-time 5 -H 'Authorization: Bearer test' '" + adapter_url +
            "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth'");
        EXPECT_NE(r.output.find("nesting deeper than 512 levels"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find(R"("kind":"Status")"), std::string::npos) << r.output;
    }
    EXPECT_TRUE(healthy(adapter_url, "-k"));
    EXPECT_EQ(adapter.terminate(), 0);
}

// The decoding is linear and leaves the event loop free: /healthz keeps answering (a quadratic
// decode of 100,000 labels would hold the loop far longer than healthy()'s 3 s).
TEST_F(HostileInputE2E, APodWith100000LabelsLeavesHealthzAnswering) {
    start_controller();
    std::string pod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"labelled",)"
                      R"("namespace":"default","labels":{)";
    for (int i = 0; i < 100000; ++i)
        pod += (i ? ",\"" : "\"") + std::string("example.com/key-") + std::to_string(i) +
               "\":\"value-" + std::to_string(i) + "\"";
    pod += R"(}},"spec":{"containers":[{"name":"app","image":"nginx"}]}})";
    write_file(dir.path() + "/pod.json", pod);
    ASSERT_GT(pod.size(), 3000000u);
    // Create it in the background and check /healthz every 100 ms while the controller decodes it.
    std::atomic<bool> created{false};
    std::thread create([&] {
        const auto r = test::run_command(
            "curl -s --max-time 60 -X POST -H 'Content-Type: application/json' --data-binary @" +
                dir.path() + "/pod.json -k '" + sim_url + "/api/v1/namespaces/default/pods'",
            90);
        created = r.exit_code == 0 && r.output.find("\"labelled\"") != std::string::npos;
    });
    int checks = 0;
    int failures = 0;
    const auto until = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < until) {
        ++checks;
        if (!healthy(ops_url)) ++failures;
        std::this_thread::sleep_for(100ms);
    }
    create.join();
    EXPECT_TRUE(created);
    EXPECT_EQ(kubectl("get pod labelled -o name").output, "pod/labelled\n");
    EXPECT_EQ(failures, 0) << "of " << checks << " /healthz checks";
}

TEST_F(HostileInputE2E, A100000DeepRequestBodyGetsA400AndTheSimStaysUp) {
    write_file(dir.path() + "/deep.json", std::string(100000, '[') + std::string(100000, ']'));
    const auto r = test::run_command(
        "curl -sk --max-time 10 -w ' %{http_code}' -X POST -H 'Content-Type: application/json' "
        "--data-binary @" +
        dir.path() + "/deep.json '" + sim_url + "/apis/apps/v1/namespaces/default/deployments'");
    EXPECT_NE(r.output.find("nesting deeper than 512 levels"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.substr(r.output.size() - 4), " 400") << r.output;
    EXPECT_EQ(kubectl("get namespaces default -o name").output, "namespace/default\n");
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool address_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool address_sanitizer = true;
#else
constexpr bool address_sanitizer = false;
#endif
#else
constexpr bool address_sanitizer = false;
#endif

// Issue 50: `replicas: 2147483647` (the API allows it) once made the sim create every pod at once
// and die. Under a 2 GiB memory limit (RLIMIT_AS; a sanitized build, whose shadow memory needs
// terabytes of address space, gets ASan's RSS limit instead) a Deployment and a Parallel
// StatefulSet at that count grow by bounded steps until the storage quota refuses more, while the
// server answers every other request; scaled back, they shrink and creations work again.
TEST(HugeReplicaCountE2E, TheSimUnderAMemoryLimitKeepsAnswering) {
    test::temp_dir dir;
    const std::string limit = address_sanitizer
                                  ? "export ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}"
                                    "hard_rss_limit_mb=2048\"; "
                                  : "ulimit -v 2097152; ";
    test::child_process sim({"/bin/sh", "-c",
                             limit + "exec " + std::string(HPAPLUS_BINARY) +
                                 " sim --storage-quota 24Mi --kubeconfig-out " + dir.path() +
                                 "/kubeconfig"});
    ASSERT_FALSE(sim.wait_for_line("listening on", 20s).empty()) << "hpaplus sim did not start";
    const auto kubectl = [&](const std::string& args) {
        return test::run_kubectl(dir.path(), args);
    };
    write_file(dir.path() + "/workloads.yaml",
               "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
               "spec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n"
               "  template:\n    metadata: {labels: {app: web}}\n"
               "    spec: {containers: [{name: app, image: nginx}]}\n"
               "---\n"
               "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: default}\n"
               "spec:\n  replicas: 1\n  podManagementPolicy: Parallel\n  serviceName: db\n"
               "  selector: {matchLabels: {app: db}}\n"
               "  template:\n    metadata: {labels: {app: db}}\n"
               "    spec: {containers: [{name: app, image: postgres}]}\n");
    const auto applied = kubectl("apply -f " + dir.path() + "/workloads.yaml");
    ASSERT_EQ(applied.exit_code, 0) << applied.output;
    ASSERT_EQ(kubectl("scale deployment web --replicas=2147483647").exit_code, 0);
    ASSERT_EQ(kubectl("scale statefulset db --replicas=2147483647").exit_code, 0);

    const auto pod_count = [&] {
        const auto r = kubectl("get pods --no-headers -o name");
        return r.exit_code == 0 ? std::count(r.output.begin(), r.output.end(), '\n') : -1;
    };
    // Pods are made in steps until etcd's quota (24Mi here, ~11,000 pods) refuses creations.
    test::command_result refused;
    int probe = 0;
    EXPECT_TRUE(test::eventually(
        [&] {
            refused = kubectl("create configmap probe-" + std::to_string(++probe));
            return refused.exit_code != 0;
        },
        120s, 500ms))
        << refused.output;
    EXPECT_NE(refused.output.find("etcdserver: mvcc: database space exceeded"), std::string::npos)
        << refused.output;
    // Every other request is still answered, lists and all.
    EXPECT_EQ(kubectl("get --raw /healthz").output, "ok");
    EXPECT_GT(pod_count(), 2000);
    EXPECT_GT(std::stoll("0" + kubectl("get deployment web -o jsonpath={.status.replicas}").output),
              1000);
    EXPECT_GT(std::stoll("0" + kubectl("get statefulset db -o jsonpath={.status.replicas}").output),
              1000);

    // Scaled back, the workloads shrink and the quota has room again.
    ASSERT_EQ(kubectl("scale deployment web --replicas=2").exit_code, 0);
    ASSERT_EQ(kubectl("scale statefulset db --replicas=2").exit_code, 0);
    EXPECT_TRUE(test::eventually([&] { return pod_count() == 4; }, 120s, 500ms)) << pod_count();
    EXPECT_EQ(kubectl("create configmap after").exit_code, 0);
    EXPECT_EQ(sim.terminate(), 0) << "the sim did not live through it";
}

} // namespace
} // namespace hpaplus
