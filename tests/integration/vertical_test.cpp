// Integration tests of VPAPlus: the real controller against the simulated cluster, whose
// simulated kubelet actuates pods/resize (PodResizeInProgress, then the new resources in
// containerStatuses) or reports PodResizePending Deferred/Infeasible against its one node.
#include "integration/controller_fixture.hpp"

#include "net/base64.hpp"
#include "net/http_client.hpp"
#include "net/tls.hpp"
#include "support/build_paths.hpp"
#include "support/process.hpp"
#include "support/run_awaitable.hpp"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <thread>

namespace hpaplus::test {
namespace {

const std::string vpapluses = "/apis/autoscaling.hpaplus.io/v1alpha1/namespaces/default/vpapluses/";
const std::string checkpoints =
    "/apis/autoscaling.hpaplus.io/v1alpha1/namespaces/default/vpapluscheckpoints/";
const std::string pods_path = "/api/v1/namespaces/default/pods";

// A Deployment whose pods use `cpu_load` in total (split between ready pods) and `memory` each;
// its container asks for 100m and 128Mi (a Burstable pod).
std::string workload(const std::string& name, int replicas, const std::string& cpu_load,
                     const std::string& memory = "300Mi") {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
           "\n  namespace: default\n  annotations: {sim.hpaplus.io/cpu-load: \"" + cpu_load +
           "\", sim.hpaplus.io/memory-per-pod: \"" + memory +
           "\"}\nspec:\n  replicas: " + std::to_string(replicas) +
           "\n  selector: {matchLabels: {app: " + name +
           "}}\n  template:\n    metadata: {labels: {app: " + name +
           "}}\n    spec:\n      containers:\n      - name: app\n        image: nginx\n"
           "        resources: {requests: {cpu: 100m, memory: 128Mi}}\n";
}

std::string vpaplus(const std::string& name, const std::string& mode,
                    const std::string& extra = "") {
    return "apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: VPAPlus\nmetadata:\n  name: " +
           name +
           "\n  namespace: default\nspec:\n  targetRef: {apiVersion: apps/v1, kind: Deployment, "
           "name: " +
           name + "}\n  updatePolicy: {updateMode: " + mode + "}\n" + extra;
}

struct pod_view {
    std::string name, uid, cpu_request, memory_request, applied_cpu, resize_pending;
    std::string boost; ///< the start-up boost annotation ("<missing>" when none)
    int restarts = 0;
};

class VerticalTest : public ControllerTest {
  protected:
    explicit VerticalTest(sim::cluster_options options = fast_cluster()) : ControllerTest(options) {
        apply_manifest(sim, read_source_file("crds/vpaplus.yaml"));
    }

    static controller::controller_options vertical_options() {
        auto o = test_controller_options();
        o.enable_vertical = true;
        o.vertical.interval = 300ms;
        o.vertical.checkpoint_interval = 500ms;
        // With seconds of history every bound is wide; pods are updated for a 10 % change at
        // once instead of after 12 h.
        o.vertical.lifetime_threshold = 0s;
        return o;
    }

    std::vector<pod_view> pods(const std::string& app) {
        std::vector<pod_view> out;
        const auto doc = get_json(sim, pods_path + "?labelSelector=app%3D" + app);
        if (!doc.IsObject()) return out;
        for (const auto& p : doc["items"].GetArray()) {
            if (p["metadata"].HasMember("deletionTimestamp")) continue;
            pod_view v;
            v.name = p["metadata"]["name"].GetString();
            v.uid = p["metadata"]["uid"].GetString();
            v.cpu_request = str(p, "/spec/containers/0/resources/requests/cpu");
            v.memory_request = str(p, "/spec/containers/0/resources/requests/memory");
            v.applied_cpu = str(p, "/status/containerStatuses/0/resources/requests/cpu");
            v.boost = str(p, "/metadata/annotations/vpaplus.hpaplus.io~1startup-boost");
            const std::string restarts = str(p, "/status/containerStatuses/0/restartCount");
            v.restarts = restarts.empty() || restarts[0] == '<' ? 0 : std::stoi(restarts);
            if (p.HasMember("status") && p["status"].HasMember("conditions"))
                for (const auto& c : p["status"]["conditions"].GetArray())
                    if (std::string("PodResizePending") == c["type"].GetString())
                        v.resize_pending = c["reason"].GetString();
            out.push_back(v);
        }
        return out;
    }
    /// `app` has `n` pods and `each` holds for every one.
    bool every_pod(const std::string& app, std::size_t n,
                   const std::function<bool(const pod_view&)>& each) {
        const auto ps = pods(app);
        return ps.size() == n && std::all_of(ps.begin(), ps.end(), each);
    }
    std::set<std::string> uids(const std::string& app) {
        std::set<std::string> out;
        for (const auto& p : pods(app))
            out.insert(p.uid);
        return out;
    }
    bool running(const std::string& app, std::size_t n) {
        const auto ps = pods(app);
        if (ps.size() != n) return false;
        for (const auto& p : ps)
            if (p.applied_cpu.empty() || p.applied_cpu[0] == '<') return false;
        return true;
    }
    std::string vstatus(const std::string& name, const char* pointer) {
        const auto doc = get_json(sim, vpapluses + name);
        return doc.IsObject() ? str(doc, pointer) : "<missing>";
    }
    std::string vcondition(const std::string& name, const std::string& type) {
        return condition_at(vpapluses + name, type);
    }
    std::string vmessage(const std::string& name, const std::string& type) {
        return message_at(vpapluses + name, type);
    }
    std::string message_at(const std::string& path, const std::string& type) {
        const auto doc = get_json(sim, path);
        if (!doc.IsObject() || !doc.HasMember("status") || !doc["status"].HasMember("conditions"))
            return "";
        for (const auto& c : doc["status"]["conditions"].GetArray())
            if (type == c["type"].GetString()) return c["message"].GetString();
        return "";
    }
    std::int64_t counter(const std::string& name, const char* pointer) {
        const std::string v = vstatus(name, pointer);
        return v.empty() || v[0] == '<' ? 0 : std::stoll(v);
    }
    static std::int64_t milli(const std::string& q) {
        const auto parsed = core::quantity::parse(q);
        return parsed ? parsed->milli_value() : -1;
    }
};

TEST_F(VerticalTest, ResizesPodsWhoseUsageExceedsTheirRequestsInPlaceWithoutARestart) {
    apply_manifest(sim, workload("web", 2, "1200m")); // 600m a pod against 100m requested
    ASSERT_TRUE(eventually([&] { return running("web", 2); }));
    const auto before = uids("web");
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("web", "InPlace"));

    ASSERT_TRUE(eventually([&] {
        const auto ps = pods("web");
        if (ps.size() != 2) return false;
        for (const auto& p : ps)
            if (milli(p.cpu_request) < 600 || p.applied_cpu != p.cpu_request) return false;
        return true;
    })) << vstatus("web", "/status");
    for (const auto& p : pods("web")) {
        EXPECT_EQ(p.restarts, 0) << p.name;
        EXPECT_GT(milli(p.memory_request), milli("300Mi")) << p.name;
    }
    EXPECT_EQ(uids("web"), before) << "the same pods, resized; none replaced";
    EXPECT_EQ(vcondition("web", "RecommendationProvided"), "True RecommendationProvided");
    EXPECT_EQ(vcondition("web", "LowConfidence"), "True ShortHistory");
    EXPECT_GE(counter("web", "/status/inPlaceResizes"), 2);
    EXPECT_EQ(counter("web", "/status/evictions"), 0);
    EXPECT_GE(milli(vstatus("web", "/status/recommendation/containerRecommendations/0/target/cpu")),
              600);
    EXPECT_TRUE(has_event("web", "InPlaceResizedByVPAPlus"));
}

TEST_F(VerticalTest, OffModeRecommendsButNeverTouchesPods) {
    apply_manifest(sim, workload("quiet", 2, "1200m"));
    ASSERT_TRUE(eventually([&] { return running("quiet", 2); }));
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("quiet", "\"Off\""));
    ASSERT_TRUE(eventually([&] {
        return vcondition("quiet", "RecommendationProvided") == "True RecommendationProvided";
    }));
    std::this_thread::sleep_for(1500ms); // several passes
    for (const auto& p : pods("quiet"))
        EXPECT_EQ(p.cpu_request, "100m");
    EXPECT_EQ(counter("quiet", "/status/inPlaceResizes"), 0);
}

// The value of one series in a Prometheus text exposition; nullopt when it is not there.
std::optional<double> series_value(const std::string& exposition, const std::string& series) {
    const std::string head = "\n" + series + " ";
    const auto at = exposition.find(head);
    if (at == std::string::npos) return std::nullopt;
    return std::stod(exposition.substr(at + head.size()));
}

TEST_F(VerticalTest, MetricsCountTheWorkersAndPassesOfEveryKind) {
    apply_manifest(sim, workload("counted", 2, "1200m"));
    ASSERT_TRUE(eventually([&] { return running("counted", 2); }));
    auto options = vertical_options();
    options.ops_listen = "127.0.0.1:0";
    controller_runner controller(sim, options);
    apply_manifest(sim, vpaplus("counted", "\"Off\""));
    ASSERT_TRUE(eventually([&] {
        return vcondition("counted", "RecommendationProvided") == "True RecommendationProvided";
    }));
    const auto metrics = http_get(controller.ops_url() + "/metrics");
    ASSERT_EQ(metrics.status, 200);
    const std::string& text = metrics.body;
    for (const char* kind : {"HPAPlus", "CronHPA", "VPAPlus"}) {
        const std::string label = std::string("{kind=\"") + kind + "\"}";
        EXPECT_TRUE(series_value(text, "hpaplus_kind_workers" + label)) << kind << "\n" << text;
        EXPECT_TRUE(series_value(text, "hpaplus_kind_reconciles_total" + label)) << kind;
        EXPECT_TRUE(series_value(text, "hpaplus_kind_reconcile_errors_total" + label)) << kind;
    }
    EXPECT_EQ(series_value(text, "hpaplus_kind_workers{kind=\"VPAPlus\"}"), 1.0);
    EXPECT_EQ(series_value(text, "hpaplus_kind_workers{kind=\"HPAPlus\"}"), 0.0);
    EXPECT_EQ(series_value(text, "hpaplus_workers"), 1.0);
    EXPECT_GE(series_value(text, "hpaplus_kind_reconciles_total{kind=\"VPAPlus\"}").value_or(0),
              1.0)
        << "a recommendation took at least one pass";
}

TEST_F(VerticalTest, WithoutTheWebhookRecreateRecommendsOnlyAndSaysWhy) {
    apply_manifest(sim, workload("later", 2, "1200m"));
    ASSERT_TRUE(eventually([&] { return running("later", 2); }));
    const auto before = uids("later");
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("later", "Recreate"));
    ASSERT_TRUE(eventually([&] {
        return vcondition("later", "ConfigUnsupported") == "True NeedsAdmissionWebhook" &&
               vcondition("later", "RecommendationProvided") == "True RecommendationProvided";
    })) << vstatus("later", "/status");
    std::this_thread::sleep_for(1500ms);
    EXPECT_EQ(uids("later"), before) << "no pod evicted into the same requests";
    for (const auto& p : pods("later"))
        EXPECT_EQ(p.cpu_request, "100m");
}

// The controller serves the pod admission webhook over TLS (a certificate for 127.0.0.1 in a
// temporary directory) and the simulated API server calls it for every pod it creates.
class VerticalWebhookTest : public VerticalTest {
  protected:
    VerticalWebhookTest()
        : tls_(net::make_self_signed({"127.0.0.1"})),
          dir_(std::filesystem::temp_directory_path() /
               ("hpaplus-webhook-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
        std::filesystem::create_directories(dir_);
        std::ofstream(dir_ / "tls.crt") << tls_.cert_pem;
        std::ofstream(dir_ / "tls.key") << tls_.key_pem;
    }
    ~VerticalWebhookTest() override { std::filesystem::remove_all(dir_); }

    controller::controller_options webhook_options() {
        auto o = vertical_options();
        o.vertical.webhook_listen = "127.0.0.1:0";
        o.vertical.webhook_cert_file = (dir_ / "tls.crt").string();
        o.vertical.webhook_key_file = (dir_ / "tls.key").string();
        return o;
    }

    // What deploy/webhook/admission-webhook.yaml registers, pointed at the test's controller by
    // URL.
    void register_webhook(controller_runner& controller) {
        const std::string url = controller.webhook_url();
        ASSERT_FALSE(url.empty());
        apply_manifest(sim, "apiVersion: admissionregistration.k8s.io/v1\n"
                            "kind: MutatingWebhookConfiguration\n"
                            "metadata: {name: hpaplus-vpaplus}\n"
                            "webhooks:\n"
                            "- name: vpaplus.autoscaling.hpaplus.io\n"
                            "  clientConfig: {url: \"" +
                                url + "\", caBundle: " + net::base64_encode(tls_.ca_cert_pem) +
                                "}\n"
                                "  rules: [{operations: [CREATE], apiGroups: [\"\"], "
                                "apiVersions: [v1], resources: [pods]}]\n"
                                "  failurePolicy: Fail\n"
                                "  sideEffects: None\n"
                                "  admissionReviewVersions: [v1]\n");
    }

    net::client_response post_review(controller_runner& controller, const std::string& body) {
        net::client_request r;
        r.url = controller.webhook_url();
        r.body = body;
        r.ca_pem = tls_.ca_cert_pem;
        boost::asio::io_context io;
        return run_awaitable(io, net::send_once(io.get_executor(), r));
    }

    std::string annotation(const std::string& app) {
        const auto doc = get_json(sim, pods_path + "?labelSelector=app%3D" + app);
        std::string out;
        for (const auto& p : doc["items"].GetArray())
            out += str(p, "/metadata/annotations/vpaplus.hpaplus.io~1updates") + "\n";
        return out;
    }

  private:
    net::tls_material tls_;
    std::filesystem::path dir_;
};

TEST_F(VerticalWebhookTest, RecreateEvictsAndTheReplacementsComeBackWithTheRecommendation) {
    apply_manifest(sim, workload("again", 2, "1200m"));
    ASSERT_TRUE(eventually([&] { return running("again", 2); }));
    const auto before = uids("again");
    controller_runner controller(sim, webhook_options());
    ASSERT_TRUE(eventually([&] { return controller.acting(); }));
    register_webhook(controller);
    apply_manifest(sim, vpaplus("again", "Recreate"));
    ASSERT_TRUE(eventually([&] {
        const auto ps = pods("again");
        if (ps.size() != 2) return false;
        for (const auto& p : ps)
            if (before.count(p.uid) || milli(p.cpu_request) < 600) return false;
        return true;
    })) << vstatus("again", "/status");
    EXPECT_EQ(vcondition("again", "ConfigUnsupported"), "False TargetFound");
    EXPECT_GE(counter("again", "/status/evictions"), 2);
    EXPECT_EQ(counter("again", "/status/inPlaceResizes"), 0);
    EXPECT_TRUE(has_event("again", "EvictedByVPAPlus"));
    EXPECT_NE(annotation("again").find("Pod resources set by VPAPlus again at creation: app: cpu "
                                       "request"),
              std::string::npos)
        << annotation("again");
}

TEST_F(VerticalWebhookTest, InitialSetsOnlyNewPodsAndBadReviewsAreRefused) {
    apply_manifest(sim, workload("fresh", 2, "1200m"));
    ASSERT_TRUE(eventually([&] { return running("fresh", 2); }));
    const auto before = uids("fresh");
    controller_runner controller(sim, webhook_options());
    ASSERT_TRUE(eventually([&] { return controller.acting(); }));
    register_webhook(controller);
    apply_manifest(sim, vpaplus("fresh", "Initial"));
    ASSERT_TRUE(eventually([&] {
        return vcondition("fresh", "RecommendationProvided") == "True RecommendationProvided";
    }));
    std::this_thread::sleep_for(1500ms); // several passes: running pods stay as they are
    EXPECT_EQ(uids("fresh"), before);
    for (const auto& p : pods("fresh"))
        EXPECT_EQ(p.cpu_request, "100m");
    EXPECT_EQ(vcondition("fresh", "ConfigUnsupported"), "False TargetFound");

    ASSERT_EQ(sim.request("PATCH", "/apis/apps/v1/namespaces/default/deployments/fresh/scale",
                          R"({"spec":{"replicas":3}})", "application/merge-patch+json")
                  .status,
              200);
    ASSERT_TRUE(eventually([&] { return pods("fresh").size() == 3; }));
    for (const auto& p : pods("fresh")) {
        if (before.count(p.uid))
            EXPECT_EQ(p.cpu_request, "100m") << p.name;
        else
            EXPECT_GE(milli(p.cpu_request), 400) << p.name << " was created with the target";
    }

    const auto not_json = post_review(controller, "{not json");
    EXPECT_EQ(not_json.status, 400) << not_json.error;
    const auto not_a_review = post_review(controller, R"({"kind":"Pod"})");
    EXPECT_EQ(not_a_review.status, 400);
    // A pod no VPAPlus selects is allowed as it is.
    const auto other = post_review(
        controller,
        R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1",)"
        R"("kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"default",)"
        R"("object":{"metadata":{"labels":{"app":"nobody"}},"spec":{"containers":[{"name":"c"}]}}}})");
    ASSERT_EQ(other.status, 200);
    const auto review = parse(other.body);
    EXPECT_EQ(str(review, "/response/uid"), "u1");
    EXPECT_EQ(str(review, "/response/allowed"), "true");
    EXPECT_EQ(str(review, "/response/patch"), "<missing>");

    // A pod with 100,000 labels (1.6 MB, within etcd's limit) is decoded in linear time: the
    // review is answered like any other (quadratic decoding stalled the loop for seconds).
    std::string labels = R"({"app":"nobody")";
    for (int i = 0; i < 100000; ++i)
        labels += ",\"label-" + std::to_string(i) + "\":\"v\"";
    labels += "}";
    const auto large = post_review(
        controller,
        R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u2",)"
        R"("kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"default",)"
        R"("object":{"metadata":{"labels":)" +
            labels + R"(},"spec":{"containers":[{"name":"c"}]}}}})");
    ASSERT_EQ(large.status, 200) << large.error;
    EXPECT_EQ(str(parse(large.body), "/response/uid"), "u2");
    EXPECT_EQ(str(parse(large.body), "/response/allowed"), "true");
}

// One node of 2 CPUs: a pod wanting ~3.5 CPUs can never be resized there (Infeasible).
class VerticalSmallNodeTest : public VerticalTest {
  protected:
    VerticalSmallNodeTest() : VerticalTest(small_node()) {}
    static sim::cluster_options small_node() {
        auto o = fast_cluster();
        o.workload.node_cpu_milli = 2000;
        return o;
    }
};

TEST_F(VerticalSmallNodeTest, InfeasibleFallsBackToEvictionInInPlaceOrRecreate) {
    apply_manifest(sim, workload("big", 2, "6000m"));
    ASSERT_TRUE(eventually([&] { return running("big", 2); }));
    const auto before = uids("big");
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("big", "InPlaceOrRecreate"));
    ASSERT_TRUE(eventually([&] { return counter("big", "/status/evictions") >= 1; }))
        << vstatus("big", "/status");
    EXPECT_TRUE(has_event("big", "EvictedByVPAPlus"));
    EXPECT_TRUE(eventually([&] {
        const auto now = uids("big");
        for (const auto& uid : before)
            if (!now.count(uid)) return true;
        return false;
    })) << "an evicted pod was replaced by the Deployment";
}

TEST_F(VerticalSmallNodeTest, InfeasibleNeverEvictsInInPlace) {
    apply_manifest(sim, workload("pinned", 2, "6000m"));
    ASSERT_TRUE(eventually([&] { return running("pinned", 2); }));
    const auto before = uids("pinned");
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("pinned", "InPlace"));
    ASSERT_TRUE(eventually([&] {
        for (const auto& p : pods("pinned"))
            if (p.resize_pending == "Infeasible") return true;
        return false;
    })) << vstatus("pinned", "/status");
    std::this_thread::sleep_for(2s); // several passes past the Infeasible report
    EXPECT_EQ(uids("pinned"), before);
    EXPECT_EQ(counter("pinned", "/status/evictions"), 0);
    EXPECT_FALSE(has_event("pinned", "EvictedByVPAPlus"));
}

TEST_F(VerticalSmallNodeTest, ADisruptionBudgetBlocksTheEvictionFallback) {
    apply_manifest(sim, workload("guarded", 2, "6000m"));
    apply_manifest(sim, "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: "
                        "guarded\n  namespace: default\nspec:\n  minAvailable: 2\n  selector: "
                        "{matchLabels: {app: guarded}}\n");
    ASSERT_TRUE(eventually([&] { return running("guarded", 2); }));
    const auto before = uids("guarded");
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("guarded", "InPlaceOrRecreate"));
    ASSERT_TRUE(eventually([&] { return has_event("guarded", "EvictionBlocked"); }))
        << vstatus("guarded", "/status");
    std::this_thread::sleep_for(1s);
    EXPECT_EQ(uids("guarded"), before);
    EXPECT_EQ(counter("guarded", "/status/evictions"), 0);
}

TEST_F(VerticalTest, LeavesCpuToAnHpaPlusOnTheSameWorkloadAndSaysSoOnBoth) {
    apply_manifest(sim, workload("shared", 2, "100m")); // 50m a pod: 50 % of 100m, at target
    ASSERT_TRUE(eventually([&] { return running("shared", 2); }));
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, hpaplus("shared", "  syncPeriodSeconds: 1\n", 2, 6));
    apply_manifest(sim, vpaplus("shared", "InPlace"));
    // Memory (300Mi used, 128Mi requested) is resized; cpu stays the HPAPlus's.
    ASSERT_TRUE(eventually([&] {
        const auto ps = pods("shared");
        if (ps.size() != 2) return false;
        for (const auto& p : ps)
            if (milli(p.memory_request) <= milli("300Mi")) return false;
        return true;
    })) << vstatus("shared", "/status");
    for (const auto& p : pods("shared"))
        EXPECT_EQ(p.cpu_request, "100m") << p.name;
    EXPECT_EQ(vstatus("shared", "/status/recommendation/containerRecommendations/0/target/cpu"),
              "<missing>");
    EXPECT_EQ(vcondition("shared", "CoordinatedWithHPAPlus"), "True ResourcesLeftToHPAPlus");
    EXPECT_EQ(vstatus("shared", "/status/sharedWith"), "shared");
    ASSERT_TRUE(eventually([&] {
        return condition("shared", "CoordinatedWithVPAPlus") == "True ResourcesLeftToHPAPlus";
    }));
    std::this_thread::sleep_for(1s);
    EXPECT_EQ(replicas("shared"), 2) << "the HPAPlus saw no reason to scale";
}

TEST_F(VerticalTest, LeavesCpuToAPlainHpaOnTheSameWorkloadToo) {
    apply_manifest(sim, workload("plain", 2, "100m"));
    ASSERT_TRUE(eventually([&] { return running("plain", 2); }));
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim,
                   hpa("plain", "autoscaling.hpaplus.io/sync-period-seconds: \"1\"", "", 2, 6));
    apply_manifest(sim, vpaplus("plain", "InPlace"));
    ASSERT_TRUE(eventually([&] {
        return vcondition("plain", "CoordinatedWithHPAPlus") == "True ResourcesLeftToHPAPlus";
    })) << vstatus("plain", "/status");
    EXPECT_EQ(vstatus("plain", "/status/sharedWith"), "HorizontalPodAutoscaler/plain");
    ASSERT_TRUE(eventually([&] {
        return condition_at(hpas + "plain", "CoordinatedWithVPAPlus") ==
               "True ResourcesLeftToHPAPlus";
    }));
    EXPECT_EQ(vstatus("plain", "/status/recommendation/containerRecommendations/0/target/cpu"),
              "<missing>");
    for (const auto& p : pods("plain"))
        EXPECT_EQ(p.cpu_request, "100m") << p.name;
}

TEST_F(VerticalTest, HistoryIsCheckpointedAndRestoredAfterARestart) {
    apply_manifest(sim, workload("kept", 2, "400m"));
    ASSERT_TRUE(eventually([&] { return running("kept", 2); }));
    apply_manifest(sim, vpaplus("kept", "\"Off\""));
    const auto samples = [&] {
        const auto doc = get_json(sim, checkpoints + "kept-app");
        const std::string n = doc.IsObject() ? str(doc, "/status/totalSamplesCount") : "";
        return n.empty() || n[0] == '<' ? 0LL : std::stoll(n);
    };
    std::int64_t first = 0;
    {
        controller_runner controller(sim, vertical_options());
        ASSERT_TRUE(eventually([&] { return (first = samples()) >= 4; }));
        controller.shutdown();
    }
    EXPECT_EQ(str(get_json(sim, checkpoints + "kept-app"), "/spec/vpaObjectName"), "kept");
    controller_runner again(sim, vertical_options());
    // A fresh history would restart the count near zero; a restored one keeps growing from it.
    ASSERT_TRUE(eventually([&] { return samples() > first; }));
    EXPECT_GE(samples(), first);
}

// Issue 69 (1): a VPAPlusCheckpoint is read only when the VPAPlus made it (its uid among the
// ownerReferences). One someone else made before the VPAPlus existed is not its history: it is not
// read, and it is deleted and made again, owned, when the history is first written.
TEST_F(VerticalTest, AForeignCheckpointIsNotReadAndIsReplacedByItsOwn) {
    apply_manifest(sim, workload("kept", 2, "400m"));
    ASSERT_TRUE(eventually([&] { return running("kept", 2); }));
    const auto planted = sim.request(
        "POST", checkpoints.substr(0, checkpoints.size() - 1),
        R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1","kind":"VPAPlusCheckpoint",)"
        R"("metadata":{"name":"kept-app"},"spec":{"vpaObjectName":"kept","containerName":"app"}})");
    ASSERT_EQ(planted.status, 201) << planted.body;
    const std::string planted_uid = str(get_json(sim, checkpoints + "kept-app"), "/metadata/uid");
    apply_manifest(sim, vpaplus("kept", "\"Off\""));
    const std::string owner = str(get_json(sim, vpapluses + "kept"), "/metadata/uid");
    controller_runner controller(sim, vertical_options());
    EXPECT_TRUE(eventually([&] {
        const auto doc = get_json(sim, checkpoints + "kept-app");
        return doc.IsObject() && str(doc, "/metadata/ownerReferences/0/uid") == owner &&
               str(doc, "/metadata/uid") != planted_uid;
    })) << sim.get(checkpoints + "kept-app").body;
}

TEST_F(VerticalTest, AnUnreachableHistoryBackendIsAConditionAndTheMetricsApiCarriesOn) {
    apply_manifest(sim, workload("seed", 2, "1200m"));
    ASSERT_TRUE(eventually([&] { return running("seed", 2); }));
    const auto dir =
        std::filesystem::temp_directory_path() / ("hpaplus-history-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "backends.yaml") << "backends:\n"
                                            "  - name: prom\n"
                                            "    type: prometheus\n"
                                            "    url: http://127.0.0.1:1\n" // nothing listens
                                            "    timeoutSeconds: 1\n";
    auto o = vertical_options();
    o.metric_backends = (dir / "backends.yaml").string();
    o.vertical.history_backend = "prom";
    controller_runner controller(sim, o);
    apply_manifest(sim, vpaplus("seed", "\"Off\""));
    EXPECT_TRUE(eventually([&] {
        return vcondition("seed", "HistoryLoaded") == "False PrometheusUnavailable" &&
               vcondition("seed", "RecommendationProvided") == "True RecommendationProvided";
    })) << vstatus("seed", "/status");
    EXPECT_NE(vmessage("seed", "HistoryLoaded").find("backend prom"), std::string::npos)
        << vstatus("seed", "/status");
    std::filesystem::remove_all(dir);
}

TEST_F(VerticalTest, AnUnusableSpecOrTargetIsAConditionAndAnEvent) {
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("bad", "InPlace",
                                "  resourcePolicy:\n    containerPolicies:\n    - {containerName: "
                                "\"*\", minAllowed: {cpu: \"2\"}, maxAllowed: {cpu: \"1\"}}\n"));
    apply_manifest(sim, vpaplus("orphan", "InPlace"));
    ASSERT_TRUE(eventually([&] {
        return vcondition("bad", "ConfigUnsupported") == "True InvalidSpec" &&
               vcondition("orphan", "ConfigUnsupported") == "True TargetUnreadable";
    })) << vstatus("bad", "/status")
        << vstatus("orphan", "/status");
    EXPECT_NE(vstatus("bad", "/status/conditions/0/message").find("maxAllowed"), std::string::npos);
    EXPECT_TRUE(eventually([&] { return has_event("bad", "InvalidSpec"); }));
    EXPECT_TRUE(controller.acting());
}

// What the controller fed into its histories, recorded with --vertical-record-samples, gives
// `hpaplus recommend` exactly the recommendation the controller wrote into the status.
TEST_F(VerticalTest, RecommendOfflineOnWhatTheControllerRecordedGivesItsStatus) {
    apply_manifest(sim, workload("rec", 2, "900m", "200Mi"));
    ASSERT_TRUE(eventually([&] { return running("rec", 2); }));
    const temp_dir dir;
    const std::string record = dir.path() + "/samples.jsonl";
    auto options = vertical_options();
    options.vertical.record_samples = record;
    controller_runner controller(sim, options);
    apply_manifest(sim, vpaplus("rec", "\"Off\""));
    const auto passes = [&] {
        std::ifstream in(record);
        int n = 0;
        for (std::string line; std::getline(in, line);)
            n += line.find("\"recommended\"") != std::string::npos ? 1 : 0;
        return n;
    };
    ASSERT_TRUE(eventually([&] { return passes() >= 6; })) << passes();
    ASSERT_EQ(controller.shutdown(), 0);

    // The input: the VPAPlus, and everything recorded up to its last written recommendation.
    const auto vpa = get_json(sim, vpapluses + "rec");
    rapidjson::Document input(rapidjson::kObjectType);
    auto& a = input.GetAllocator();
    rapidjson::Value samples(rapidjson::kArrayType), ooms(rapidjson::kArrayType);
    std::size_t samples_done = 0, ooms_done = 0; // what the last recommendation had seen
    std::string now;
    std::ifstream in(record);
    for (std::string line; std::getline(in, line);) {
        rapidjson::Document d;
        d.Parse(line.c_str());
        ASSERT_FALSE(d.HasParseError()) << line;
        ASSERT_EQ(std::string(d["vpa"].GetString()), "default/rec");
        if (d.HasMember("recommended")) {
            now = d["recommended"].GetString();
            samples_done = samples.Size();
            ooms_done = ooms.Size();
        } else if (d.HasMember("sample")) {
            samples.PushBack(rapidjson::Value(d["sample"], a), a);
        } else {
            ooms.PushBack(rapidjson::Value(d["oom"], a), a);
        }
    }
    while (samples.Size() > samples_done)
        samples.PopBack();
    while (ooms.Size() > ooms_done)
        ooms.PopBack();
    input.AddMember("now", rapidjson::Value(now.c_str(), a), a);
    input.AddMember("vpa", rapidjson::Value(vpa, a), a);
    input.AddMember("samples", samples, a);
    input.AddMember("ooms", ooms, a);
    EXPECT_GE(input["samples"].Size(), 6u);
    rapidjson::StringBuffer text;
    rapidjson::Writer<rapidjson::StringBuffer> writer(text);
    input.Accept(writer);
    std::ofstream(dir.path() + "/input.json") << text.GetString();

    const auto result =
        run_command(std::string(HPAPLUS_BINARY) + " recommend " + dir.path() + "/input.json");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    rapidjson::Document offline;
    offline.Parse(result.output.c_str());
    ASSERT_FALSE(offline.HasParseError()) << result.output;
    const auto& status = vpa["status"];
    EXPECT_TRUE(offline["recommendation"] == status["recommendation"])
        << result.output << "\nstatus: " << vstatus("rec", "/status");
    EXPECT_FALSE(offline["recommendation"]["containerRecommendations"].Empty());
    // The same conditions (the controller's keep the transition times of earlier passes).
    for (const auto& c : offline["conditions"].GetArray()) {
        const std::string type = c["type"].GetString();
        EXPECT_EQ(vcondition("rec", type),
                  std::string(c["status"].GetString()) + " " + c["reason"].GetString())
            << type;
        EXPECT_EQ(vmessage("rec", type), c["message"].GetString()) << type;
    }
}

// Start-up boost (AEP-7862) beside an HPAPlus on CPU: "boot" uses 100m in all, 50m a pod — 50 % of
// its 100m request, the HPAPlus's target. A pod boosted to 300m would be at 17 %.
const std::string boost_hpaplus_extra =
    "  syncPeriodSeconds: 1\n  behavior: {scaleDown: {stabilizationWindowSeconds: 0}}\n";

TEST_F(VerticalWebhookTest, AStartupBoostKeepsTheHpaPlusReplicasAndEndsInPlaceWithoutARestart) {
    controller_runner controller(sim, webhook_options());
    ASSERT_TRUE(eventually([&] { return controller.acting(); }));
    register_webhook(controller);
    apply_manifest(
        sim, vpaplus("boot", "\"Off\"", "  startupBoost:\n    cpu: {factor: 3, duration: 6s}\n"));
    apply_manifest(sim, hpaplus("boot", boost_hpaplus_extra, 1, 6));
    apply_manifest(sim, workload("boot", 2, "100m", "100Mi"));
    int fewest = 2;
    const auto watch_replicas = [&] {
        const int r = replicas("boot");
        if (r >= 0) fewest = std::min(fewest, r);
    };
    // Created boosted by the admission webhook: 3 × 100m, the limit-less container keeps none.
    ASSERT_TRUE(eventually([&] {
        watch_replicas();
        return every_pod("boot", 2, [](const pod_view& p) {
            return p.cpu_request == "300m" &&
                   p.boost.find("\"boosted\":\"300m\"") != std::string::npos;
        });
    })) << vstatus("boot", "/status");
    const auto boosted = uids("boot");
    // While boosted, the HPAPlus measures the pods against their unboosted 100m: 50 %, not 17 %.
    ASSERT_TRUE(eventually([&] {
        watch_replicas();
        const auto ps = pods("boot");
        const bool still_boosted =
            ps.size() == 2 && ps[0].applied_cpu == "300m" && ps[1].applied_cpu == "300m";
        return still_boosted &&
               status("boot", "/status/currentMetrics/0/resource/current/averageUtilization") ==
                   "50";
    })) << status("boot", "/status");
    EXPECT_EQ(vstatus("boot", "/status/boostedPods"), "2");
    EXPECT_NE(message_at(hpapluses + "boot", "CoordinatedWithVPAPlus").find("start-up cpu boost"),
              std::string::npos)
        << message_at(hpapluses + "boot", "CoordinatedWithVPAPlus");
    EXPECT_NE(vmessage("boot", "CoordinatedWithHPAPlus").find("start-up cpu boost"),
              std::string::npos)
        << vmessage("boot", "CoordinatedWithHPAPlus");
    // Six seconds after Ready, back down in place: the same pods, never restarted.
    ASSERT_TRUE(eventually([&] {
        watch_replicas();
        return every_pod("boot", 2, [](const pod_view& p) {
            return p.cpu_request == "100m" && p.applied_cpu == "100m" &&
                   p.boost.find("\"ended\":true") != std::string::npos;
        });
    })) << vstatus("boot", "/status");
    for (const auto& p : pods("boot"))
        EXPECT_EQ(p.restarts, 0) << p.name;
    EXPECT_EQ(uids("boot"), boosted) << "resized in place, none replaced";
    EXPECT_TRUE(has_event("boot", "StartupBoostEnded"));
    EXPECT_FALSE(has_event("boot", "EvictedByVPAPlus"));
    ASSERT_TRUE(eventually([&] { return vstatus("boot", "/status/boostedPods") == "0"; }));
    // A few HPAPlus passes on the unboosted pods, then: it never scaled the workload down.
    for (int i = 0; i < 30; ++i) {
        watch_replicas();
        std::this_thread::sleep_for(100ms);
    }
    EXPECT_EQ(fewest, 2) << "the boost made the HPAPlus scale down";
    EXPECT_EQ(replicas("boot"), 2);
}

// The same workload and HPAPlus, boosted by a booster that does not say what it did (the test
// raises the requests through pods/resize itself, as a boost without the coordination would):
// the pods look idle at 17 % and the HPAPlus scales the workload down.
TEST_F(VerticalTest, AStartupBoostWithoutTheCoordinationLooksIdleAndTheHpaPlusScalesDown) {
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, hpaplus("boot", boost_hpaplus_extra, 1, 6));
    apply_manifest(sim, workload("boot", 2, "100m", "100Mi"));
    ASSERT_TRUE(eventually([&] {
        return running("boot", 2) &&
               status("boot", "/status/currentMetrics/0/resource/current/averageUtilization") ==
                   "50";
    })) << status("boot", "/status");
    EXPECT_EQ(replicas("boot"), 2);
    for (const auto& p : pods("boot")) {
        const auto r = sim.request(
            "PATCH", pods_path + "/" + p.name + "/resize",
            R"([{"op":"replace","path":"/spec/containers/0/resources/requests/cpu","value":"300m"}])",
            "application/json-patch+json");
        ASSERT_EQ(r.status, 200) << r.body;
    }
    ASSERT_TRUE(eventually([&] { return replicas("boot") == 1; })) << status("boot", "/status");
}

// Without the admission webhook, a starting pod is boosted in place right after it starts.
TEST_F(VerticalTest, WithoutTheWebhookStartingPodsAreBoostedInPlaceAndComeBackDown) {
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("warm", "\"Off\"",
                                "  startupBoost:\n    cpu: {type: Quantity, quantity: 150m, "
                                "durationSeconds: 3}\n"));
    ASSERT_TRUE(eventually([&] { return vstatus("warm", "/status/observedGeneration") == "1"; }));
    apply_manifest(sim, workload("warm", 2, "100m", "100Mi"));
    ASSERT_TRUE(eventually([&] {
        return every_pod("warm", 2, [](const pod_view& p) {
            return p.applied_cpu == "250m" &&
                   p.boost.find("\"request\":\"100m\"") != std::string::npos;
        });
    })) << vstatus("warm", "/status");
    const auto boosted = uids("warm");
    EXPECT_TRUE(has_event("warm", "StartupBoost"));
    ASSERT_TRUE(eventually([&] {
        return every_pod("warm", 2, [](const pod_view& p) {
            return p.applied_cpu == "100m" && p.boost.find("\"ended\":true") != std::string::npos;
        });
    })) << vstatus("warm", "/status");
    EXPECT_EQ(uids("warm"), boosted);
    for (const auto& p : pods("warm"))
        EXPECT_EQ(p.restarts, 0) << p.name;
    // An ended boost is never given again.
    std::this_thread::sleep_for(1s);
    for (const auto& p : pods("warm"))
        EXPECT_EQ(p.cpu_request, "100m") << p.name;
}

// A boost whose spec is taken away ends at once instead of lasting for good.
TEST_F(VerticalTest, RemovingTheStartupBoostEndsTheBoostsInForce) {
    controller_runner controller(sim, vertical_options());
    apply_manifest(
        sim, vpaplus("long", "\"Off\"", "  startupBoost:\n    cpu: {factor: 2, duration: 1h}\n"));
    apply_manifest(sim, workload("long", 2, "100m", "100Mi"));
    ASSERT_TRUE(eventually([&] {
        return every_pod("long", 2, [](const pod_view& p) { return p.applied_cpu == "200m"; });
    })) << vstatus("long", "/status");
    ASSERT_TRUE(eventually([&] { return vstatus("long", "/status/boostedPods") == "2"; }));
    const auto r = sim.request("PATCH", vpapluses + "long", R"({"spec":{"startupBoost":null}})",
                               "application/merge-patch+json");
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_TRUE(eventually([&] {
        return every_pod("long", 2, [](const pod_view& p) {
            return p.applied_cpu == "100m" && p.boost.find("\"ended\":true") != std::string::npos;
        });
    })) << vstatus("long", "/status");
    EXPECT_EQ(vstatus("long", "/status/boostedPods"), "0");
}

} // namespace
} // namespace hpaplus::test
