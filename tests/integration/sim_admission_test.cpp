// Integration tests: the simulated API server calls mutating admission webhooks as the real one
// does — a real HTTPS webhook on loopback (trusted through caBundle), AdmissionReview v1 in,
// JSON patch out; denials, failurePolicy, timeouts, selectors, and the Deployment controller's
// pods going through the same path.
#include "../support/json_access.hpp"
#include "../support/sim_fixture.hpp"

#include "net/base64.hpp"
#include "net/http_server.hpp"
#include "net/tls.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

namespace hpaplus {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using test::eventually;
using test::parse;
using test::str;

const std::string configurations =
    "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
using test::paths::pods;

// A webhook over HTTPS on its own thread: `answer` turns the review's uid into the response
// object, after `delay`.
class webhook_stub {
  public:
    using answer_function = std::function<std::string(const std::string& uid)>;
    void set(answer_function answer, std::chrono::milliseconds delay = 0ms) {
        std::lock_guard lock(mutex_);
        answer_ = std::move(answer);
        delay_ = delay;
    }

    webhook_stub() : tls_(net::make_self_signed({"127.0.0.1"})) {
        net::http_server_options o;
        o.tls = std::make_pair(tls_.cert_pem, tls_.key_pem);
        server_ = std::make_unique<net::http_server>(
            io_.get_executor(), o,
            [this](net::http_request& r, net::http_responder& out) { return handle(r, out); });
        server_->start();
        thread_ = std::thread([this] { io_.run(); });
    }
    ~webhook_stub() {
        server_->stop();
        io_.stop();
        thread_.join();
    }
    std::string url() const { return server_->url() + "/mutate"; }
    std::string ca_bundle() const { return net::base64_encode(tls_.ca_cert_pem); }
    int calls() const { return calls_; }
    std::string last_review() {
        std::lock_guard lock(mutex_);
        return last_;
    }

  private:
    asio::awaitable<void> handle(net::http_request& r, net::http_responder& out) {
        ++calls_;
        answer_function answer;
        std::chrono::milliseconds delay;
        {
            std::lock_guard lock(mutex_);
            last_ = r.body;
            answer = answer_;
            delay = delay_;
        }
        if (delay.count() > 0) {
            asio::steady_timer timer(io_, delay);
            co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        }
        const auto review = parse(r.body);
        const std::string uid = str(review, "/request/uid");
        net::http_response response;
        response.status = 200;
        response.content_type = "application/json";
        response.body =
            R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":)" +
            answer(uid) + "}";
        co_await out.send(std::move(response));
    }

    net::tls_material tls_;
    asio::io_context io_;
    std::unique_ptr<net::http_server> server_;
    std::thread thread_;
    std::atomic<int> calls_{0};
    std::mutex mutex_;
    std::string last_;
    answer_function answer_;
    std::chrono::milliseconds delay_{0};
};

// A response that allows the object and applies `patch` (JSON text).
std::string allow_with(const std::string& uid, const std::string& patch) {
    return R"({"uid":")" + uid + R"(","allowed":true,"patchType":"JSONPatch","patch":")" +
           net::base64_encode(patch) + R"("})";
}

const std::string add_label = R"([{"op":"add","path":"/metadata/labels/admitted","value":"yes"}])";

std::string configuration(const std::string& name, const std::string& url, const std::string& ca,
                          const std::string& extra = "") {
    return R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration",)"
           R"("metadata":{"name":")" +
           name + R"("},"webhooks":[{"name":"pods.)" + name +
           R"(.example.com","clientConfig":{"url":")" + url + R"(","caBundle":")" + ca +
           R"("},"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],)"
           R"("resources":["pods"]}],"sideEffects":"None","admissionReviewVersions":["v1"])" +
           extra + "}]}";
}

std::string pod(const std::string& name, const std::string& labels = R"({"app":"web"})") {
    return R"({"metadata":{"name":")" + name + R"(","labels":)" + labels +
           R"(},"spec":{"containers":[{"name":"app","image":"nginx"}]}})";
}

struct SimAdmission : ::testing::Test {
    void create_deployment(int replicas) {
        const std::string deployment =
            R"({"metadata":{"name":"web"},"spec":{"replicas":)" + std::to_string(replicas) +
            R"(,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},)"
            R"("spec":{"containers":[{"name":"app","image":"nginx"}]}}}})";
        ASSERT_EQ(
            sim.request("POST", "/apis/apps/v1/namespaces/default/deployments", deployment).status,
            201);
    }

    test::sim_fixture sim;
    webhook_stub webhook;

    void register_webhook(const std::string& extra = "", const std::string& url = "") {
        const auto r = sim.request(
            "POST", configurations,
            configuration("vpa", url.empty() ? webhook.url() : url, webhook.ca_bundle(), extra));
        ASSERT_EQ(r.status, 201) << r.body;
    }
};

TEST_F(SimAdmission, ConfigurationsAreDefaultedAndValidated) {
    register_webhook();
    const auto stored = parse(sim.get(configurations + "/vpa").body);
    EXPECT_EQ(str(stored, "/webhooks/0/failurePolicy"), "Fail");
    EXPECT_EQ(str(stored, "/webhooks/0/timeoutSeconds"), "10");
    EXPECT_EQ(str(stored, "/webhooks/0/reinvocationPolicy"), "Never");
    EXPECT_EQ(str(stored, "/webhooks/0/rules/0/scope"), "*");

    auto r = sim.request("POST", configurations,
                         configuration("plain", "http://127.0.0.1:1/x", webhook.ca_bundle()));
    EXPECT_EQ(r.status, 422);
    EXPECT_NE(r.body.find("'https' is the only allowed URL scheme"), std::string::npos) << r.body;
    r = sim.request(
        "POST", configurations,
        configuration("slow", webhook.url(), webhook.ca_bundle(), R"(,"timeoutSeconds":31)"));
    EXPECT_EQ(r.status, 422);
    EXPECT_NE(r.body.find("between 1 and 30 seconds"), std::string::npos) << r.body;
    std::string no_side_effects = configuration("side", webhook.url(), webhook.ca_bundle());
    no_side_effects.replace(no_side_effects.find(R"("sideEffects":"None",)"),
                            std::string(R"("sideEffects":"None",)").size(), "");
    r = sim.request("POST", configurations, no_side_effects);
    EXPECT_EQ(r.status, 422);
    EXPECT_NE(r.body.find("webhooks[0].sideEffects"), std::string::npos) << r.body;
}

TEST_F(SimAdmission, PodCreateIsSentAsAReviewAndPatched) {
    webhook.set([](const std::string& uid) { return allow_with(uid, add_label); });
    register_webhook();
    const auto r = sim.request("POST", pods, pod("p1"));
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/metadata/labels/admitted"), "yes");
    EXPECT_EQ(str(parse(sim.get(pods + "/p1").body), "/metadata/labels/admitted"), "yes");
    const auto review = parse(webhook.last_review());
    EXPECT_EQ(str(review, "/apiVersion"), "admission.k8s.io/v1");
    EXPECT_EQ(str(review, "/request/operation"), "CREATE");
    EXPECT_EQ(str(review, "/request/kind/kind"), "Pod");
    EXPECT_EQ(str(review, "/request/resource/resource"), "pods");
    EXPECT_EQ(str(review, "/request/namespace"), "default");
    EXPECT_EQ(str(review, "/request/object/metadata/name"), "p1");
    EXPECT_EQ(webhook.calls(), 1);
}

TEST_F(SimAdmission, ADenialFailsTheCreateWithTheWebhooksMessage) {
    webhook.set([](const std::string& uid) {
        return R"({"uid":")" + uid +
               R"(","allowed":false,"status":{"code":403,"message":"not today"}})";
    });
    register_webhook();
    const auto r = sim.request("POST", pods, pod("p1"));
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(str(parse(r.body), "/message"),
              "admission webhook \"pods.vpa.example.com\" denied the request: not today");
    EXPECT_EQ(sim.get(pods + "/p1").status, 404);
}

TEST_F(SimAdmission, FailurePolicyDecidesWhatAnUnreachableWebhookMeans) {
    // Nothing listens on port 1.
    register_webhook("", "https://127.0.0.1:1/mutate");
    auto r = sim.request("POST", pods, pod("p1"));
    EXPECT_EQ(r.status, 500);
    EXPECT_NE(str(parse(r.body), "/message")
                  .find("Internal error occurred: failed calling webhook \"pods.vpa.example.com\""),
              std::string::npos)
        << r.body;
    ASSERT_EQ(sim.request("DELETE", configurations + "/vpa").status, 200);
    register_webhook(R"(,"failurePolicy":"Ignore")", "https://127.0.0.1:1/mutate");
    r = sim.request("POST", pods, pod("p2"));
    EXPECT_EQ(r.status, 201) << r.body;
}

TEST_F(SimAdmission, ASlowWebhookTimesOutAndAWrongUidIsRefused) {
    webhook.set([](const std::string& uid) { return allow_with(uid, add_label); }, 3s);
    register_webhook(R"(,"timeoutSeconds":1)");
    auto r = sim.request("POST", pods, pod("p1"));
    EXPECT_EQ(r.status, 500);
    EXPECT_NE(r.body.find("timed out"), std::string::npos) << r.body;

    webhook.set([](const std::string&) { return allow_with("not-the-uid", add_label); });
    r = sim.request("POST", pods, pod("p2"));
    EXPECT_EQ(r.status, 500);
    EXPECT_NE(r.body.find("expected response.uid"), std::string::npos) << r.body;
    EXPECT_EQ(sim.get(pods + "/p2").status, 404);
}

TEST_F(SimAdmission, ACertificateTheBundleDoesNotTrustIsACallFailure) {
    webhook.set([](const std::string& uid) { return allow_with(uid, add_label); });
    const auto other = net::make_self_signed({"127.0.0.1"});
    const auto r =
        sim.request("POST", configurations,
                    configuration("vpa", webhook.url(), net::base64_encode(other.ca_cert_pem)));
    ASSERT_EQ(r.status, 201);
    const auto created = sim.request("POST", pods, pod("p1"));
    EXPECT_EQ(created.status, 500);
    EXPECT_NE(created.body.find("TLS handshake"), std::string::npos) << created.body;
    EXPECT_EQ(webhook.calls(), 0);
}

TEST_F(SimAdmission, SelectorsChooseWhatIsSent) {
    webhook.set([](const std::string& uid) { return allow_with(uid, add_label); });
    register_webhook(
        R"(,"objectSelector":{"matchLabels":{"app":"web"}},)"
        R"("namespaceSelector":{"matchExpressions":[{"key":"vpa","operator":"NotIn","values":["off"]}]})");
    ASSERT_EQ(sim.request("POST", pods, pod("other", R"({"app":"db"})")).status, 201);
    EXPECT_EQ(webhook.calls(), 0);
    auto r = sim.request("POST", pods, pod("web"));
    ASSERT_EQ(r.status, 201);
    EXPECT_EQ(str(parse(r.body), "/metadata/labels/admitted"), "yes");
    ASSERT_EQ(sim.request("POST", "/api/v1/namespaces",
                          R"({"metadata":{"name":"quiet","labels":{"vpa":"off"}}})")
                  .status,
              201);
    r = sim.request("POST", "/api/v1/namespaces/quiet/pods", pod("web"));
    ASSERT_EQ(r.status, 201);
    EXPECT_EQ(str(parse(r.body), "/metadata/labels/admitted"), "<missing>");
    EXPECT_EQ(webhook.calls(), 1);
}

TEST_F(SimAdmission, DeploymentPodsAreAdmittedOnceEach) {
    // Slower than a tick: the Deployment controller must not create a pod twice meanwhile.
    webhook.set([](const std::string& uid) { return allow_with(uid, add_label); }, 300ms);
    register_webhook();
    create_deployment(3);
    ASSERT_TRUE(eventually([&] {
        return parse(sim.get(pods + "?labelSelector=admitted%3Dyes").body)["items"].Size() == 3;
    }));
    std::this_thread::sleep_for(500ms); // a few more ticks
    EXPECT_EQ(parse(sim.get(pods).body)["items"].Size(), 3u);
    EXPECT_EQ(webhook.calls(), 3);
}

TEST_F(SimAdmission, ARefusedDeploymentPodIsAFailedCreateEventAndIsRetried) {
    register_webhook("", "https://127.0.0.1:1/mutate");
    create_deployment(1);
    std::string message;
    ASSERT_TRUE(eventually([&] {
        const auto events = parse(sim.get("/api/v1/namespaces/default/events").body);
        for (const auto& e : events["items"].GetArray())
            if (str(e, "/reason") == "FailedCreate") message = str(e, "/message");
        return !message.empty();
    }));
    EXPECT_NE(message.find("Error creating: Internal error occurred: failed calling webhook"),
              std::string::npos)
        << message;
    EXPECT_EQ(parse(sim.get(pods).body)["items"].Size(), 0u);
    ASSERT_EQ(sim.request("DELETE", configurations + "/vpa").status, 200);
    EXPECT_TRUE(eventually([&] { return parse(sim.get(pods).body)["items"].Size() == 1; }));
}

} // namespace
} // namespace hpaplus
