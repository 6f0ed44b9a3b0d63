// End-to-end: `hpaplus adapter` serving the monitor and Prometheus as metrics APIs (front proxy,
// aggregation layer, kubectl), and a VPAPlus seeded from Prometheus history.
#include "metric_backends_fixture.hpp"

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

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

} // namespace
} // namespace hpaplus
