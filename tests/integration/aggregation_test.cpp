// The simulated cluster's aggregation layer and the adapter's delegation to it: an APIService's
// requests reach its Service's endpoint with the front-proxy client certificate (whose CA the
// cluster publishes) and the caller in X-Remote-* headers; TokenReview and SubjectAccessReview
// answer from the cluster's policy, and adapter::adapter_delegation caches their answers.
#include "../support/run_awaitable.hpp"
#include "../support/shipped_identity.hpp"
#include "../support/sim_fixture.hpp"
#include "adapter/delegation.hpp"
#include "kube/config.hpp"
#include "net/base64.hpp"
#include "net/http_server.hpp"
#include "net/tls.hpp"
#include "net/x509_identity.hpp"

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <memory>
#include <thread>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

// The front-proxy CA the cluster publishes in kube-system/extension-apiserver-authentication.
std::string published_front_proxy_ca(test::sim_fixture& sim) {
    const auto r =
        sim.get("/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication");
    EXPECT_EQ(r.status, 200) << r.body;
    rapidjson::Document doc;
    doc.Parse(r.body.c_str());
    return doc["data"]["requestheader-client-ca-file"].GetString();
}

// A ClusterRole with `rule` bound to the subject (User or Group `name`), as an admin grants it.
void grant(test::sim_fixture& sim, const std::string& kind, const std::string& name,
           const std::string& rule) {
    const std::string role = "grant-" + name;
    auto r = sim.request("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                         R"({"metadata":{"name":")" + role + R"("},"rules":[)" + rule + "]}");
    ASSERT_EQ(r.status, 201) << r.body;
    r = sim.request("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                    R"({"metadata":{"name":")" + role +
                        R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":)"
                        R"("ClusterRole","name":")" +
                        role + R"("},"subjects":[{"kind":")" + kind + R"(","name":")" + name +
                        R"("}]})");
    ASSERT_EQ(r.status, 201) << r.body;
}

// An aggregated API server that answers with what it was sent: the verified client certificate's
// common name, the X-Remote-* headers, the target, and any Authorization header.
boost::asio::awaitable<void> echo(const net::client_ca& front_proxy, net::http_request& r,
                                  net::http_responder& out) {
    const auto id = front_proxy.verify(r.peer_certificates);
    std::string groups;
    for (const auto& [name, value] : r.headers)
        if (name == "x-remote-group") groups += value + ",";
    net::http_response answer{200,
                              "application/json",
                              "{\"cn\":\"" + (id ? id->common_name : "unverified") +
                                  "\",\"user\":\"" + std::string(r.header("x-remote-user")) +
                                  "\",\"groups\":\"" + groups + "\",\"target\":\"" + r.target +
                                  "\",\"authorization\":\"" +
                                  std::string(r.header("authorization")) + "\"}",
                              {}};
    co_await out.send(std::move(answer));
}

class Aggregation : public ::testing::Test {
  protected:
    void SetUp() override {
        front_proxy = std::make_unique<net::client_ca>(published_front_proxy_ca(sim));
        net::http_server_options o;
        o.address = "127.0.0.1";
        o.port = 0;
        o.tls = std::make_pair(serving.cert_pem, serving.key_pem);
        o.request_client_certificate = true;
        server = std::make_unique<net::http_server>(
            io.get_executor(), o,
            [this](net::http_request& r, net::http_responder& out) -> boost::asio::awaitable<void> {
                return echo(*front_proxy, r, out);
            });
        server->start();
        thread = std::thread([this] { io.run(); });
    }
    void TearDown() override {
        server->stop();
        io.stop();
        thread.join();
    }
    // Registers v1.echo.example.com for a Service whose Endpoints point at the echo server.
    void register_echo(const std::string& ca_bundle) {
        const std::string port = std::to_string(server->port());
        ASSERT_EQ(
            sim.request("POST", "/api/v1/namespaces", R"({"metadata":{"name":"echo"}})").status,
            201);
        ASSERT_EQ(sim.request("POST", "/api/v1/namespaces/echo/services",
                              R"({"metadata":{"name":"api"},"spec":{"ports":[{"name":"https",)"
                              R"("port":443,"targetPort":)" +
                                  port + "}]}}")
                      .status,
                  201);
        ASSERT_EQ(sim.request("POST", "/api/v1/namespaces/echo/endpoints",
                              R"({"metadata":{"name":"api"},"subsets":[{"addresses":[{"ip":)"
                              R"("127.0.0.1"}],"ports":[{"name":"https","port":)" +
                                  port + "}]}]}")
                      .status,
                  201);
        const auto r = sim.request(
            "POST", "/apis/apiregistration.k8s.io/v1/apiservices",
            R"({"metadata":{"name":"v1.echo.example.com"},"spec":{"group":"echo.example.com",)"
            R"("version":"v1","groupPriorityMinimum":100,"versionPriority":10,)"
            R"("service":{"namespace":"echo","name":"api","port":443},"caBundle":")" +
                net::base64_encode(ca_bundle) + "\"}}");
        ASSERT_EQ(r.status, 201) << r.body;
    }

    test::sim_fixture sim;
    // The serving certificate names the Service, as the aggregator verifies it.
    net::tls_material serving = net::make_self_signed({"api.echo.svc"});
    std::unique_ptr<net::client_ca> front_proxy;
    boost::asio::io_context io;
    std::unique_ptr<net::http_server> server;
    std::thread thread;
};

TEST_F(Aggregation, ProxiesWithTheFrontProxyCertificateAndTheCallersHeaders) {
    register_echo(serving.ca_cert_pem);
    ASSERT_EQ(sim.request("POST", "/sim/v1/tokens",
                          R"({"token":"alice-token","user":"alice","groups":["team-a"]})")
                  .status,
              200);
    auto as_alice = [&] {
        return sim.request("GET", "/apis/echo.example.com/v1/namespaces/x/things?limit=1", "", "",
                           "application/json", {{"Authorization", "Bearer alice-token"}});
    };
    // The aggregator authorizes before it proxies: nothing reaches the service for a caller RBAC
    // grants nothing.
    auto r = as_alice();
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_NE(r.body.find(R"(things.echo.example.com is forbidden: User \"alice\" cannot list)"),
              std::string::npos)
        << r.body;
    grant(sim, "Group", "team-a",
          R"({"apiGroups":["echo.example.com"],"resources":["things"],)"
          R"("verbs":["list"]})");
    r = as_alice();
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_NE(r.body.find(R"("cn":"front-proxy-client")"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find(R"("user":"alice")"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find(R"("groups":"team-a,system:authenticated,")"), std::string::npos)
        << r.body;
    EXPECT_NE(r.body.find(R"("target":"/apis/echo.example.com/v1/namespaces/x/things?limit=1")"),
              std::string::npos)
        << r.body;
    EXPECT_NE(r.body.find(R"("authorization":"")"), std::string::npos) << "never passed on";
    // Discovery lists the aggregated group; its version list is the server's own.
    EXPECT_NE(sim.get("/apis").body.find(R"("name":"echo.example.com")"), std::string::npos);
    // Gone with its APIService.
    ASSERT_EQ(
        sim.request("DELETE", "/apis/apiregistration.k8s.io/v1/apiservices/v1.echo.example.com")
            .status,
        200);
    EXPECT_EQ(sim.get("/apis/echo.example.com/v1/namespaces/x/things").status, 404);
}

TEST_F(Aggregation, AnUnreachableOrUntrustedServiceIsServiceUnavailable) {
    register_echo(net::make_self_signed({"api.echo.svc"}).ca_cert_pem); // not the server's CA
    auto r = sim.get("/apis/echo.example.com/v1/things");
    EXPECT_EQ(r.status, 503) << r.body;
    EXPECT_NE(r.body.find("error trying to reach service"), std::string::npos) << r.body;
    ASSERT_EQ(sim.request("DELETE", "/api/v1/namespaces/echo/endpoints/api").status, 200);
    r = sim.get("/apis/echo.example.com/v1/things");
    EXPECT_EQ(r.status, 503) << r.body;
    EXPECT_NE(r.body.find("no endpoints for service echo/api"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find(R"("reason":"ServiceUnavailable")"), std::string::npos) << r.body;
}

class Delegation : public ::testing::Test {
  protected:
    Delegation() { config.token = sim.shipped_token(test::adapter_account); } // as deployed
    ~Delegation() override { test::record_rbac_usage(sim.get("/sim/v1/rbac-usage").body); }
    test::sim_fixture sim;
    boost::asio::io_context io;
    kube::cluster_config config = kube::parse_kubeconfig(sim.cluster().kubeconfig(), "").value();
    const adapter::request_attributes list_queue{
        true, "list", "external.metrics.k8s.io", "v1beta1", "shop", "queue_depth", "", "", ""};
};

TEST_F(Delegation, ReadsThePublishedRequestHeaderSettings) {
    adapter::adapter_delegation d(io.get_executor(), config);
    const auto s = test::run_awaitable(io, d.read_authentication_settings());
    ASSERT_TRUE(s) << s.error().text;
    EXPECT_EQ(s->request_header.client_ca_pem, published_front_proxy_ca(sim));
    EXPECT_EQ(s->request_header.allowed_names, std::vector<std::string>{"front-proxy-client"});
    adapter::adapter_authenticator auth({});
    auth.configure(*s);
    EXPECT_TRUE(auth.enabled());
}

TEST_F(Delegation, ReviewsTokensOncePerTtl) {
    ASSERT_EQ(sim.request("POST", "/sim/v1/tokens",
                          R"({"token":"t1","user":"alice","groups":["team-a"]})")
                  .status,
              200);
    adapter::adapter_delegation d(io.get_executor(), config);
    auto u = test::run_awaitable(io, d.review_token("t1"));
    ASSERT_TRUE(u) << u.error().text;
    EXPECT_EQ(u->name, "alice");
    EXPECT_EQ(u->groups, (std::vector<std::string>{"team-a", "system:authenticated"}));
    EXPECT_FALSE(test::run_awaitable(io, d.review_token("unknown")));
    EXPECT_EQ(d.reviews_sent(), 2u);
    EXPECT_TRUE(test::run_awaitable(io, d.review_token("t1")));
    EXPECT_FALSE(test::run_awaitable(io, d.review_token("unknown")));
    EXPECT_EQ(d.reviews_sent(), 2u) << "both answers were cached";
}

TEST_F(Delegation, AuthorizesBySubjectAccessReviewAndCachesTheDecision) {
    const adapter::user_info bob{"bob", {"dev", "system:authenticated"}, {}};
    // The cluster's RBAC lets group dev read external metrics; the test's deny rule then takes
    // one away.
    grant(sim, "Group", "dev",
          R"({"apiGroups":["external.metrics.k8s.io"],"resources":["*"],)"
          R"("verbs":["get","list"]})");
    adapter::adapter_delegation cached(io.get_executor(), config);
    auto d = test::run_awaitable(io, cached.authorize(bob, list_queue));
    ASSERT_TRUE(d) << d.error().text;
    EXPECT_TRUE(d->allowed);
    ASSERT_EQ(sim.request("PUT", "/sim/v1/authorization",
                          R"({"deny":[{"group":"dev","resource":"queue_depth","verb":"list"}]})")
                  .status,
              200);
    // The cached decision stands until its TTL; a fresh look sees the denial.
    d = test::run_awaitable(io, cached.authorize(bob, list_queue));
    EXPECT_TRUE(d && d->allowed);
    EXPECT_EQ(cached.reviews_sent(), 1u);
    adapter::adapter_delegation uncached(io.get_executor(), config, {0ms, 0ms, 0ms, 10});
    d = test::run_awaitable(io, uncached.authorize(bob, list_queue));
    ASSERT_TRUE(d) << d.error().text;
    EXPECT_FALSE(d->allowed);
    EXPECT_NE(d->reason.find("deny rule 0"), std::string::npos) << d->reason;
    // Another metric is not denied; a user RBAC grants nothing is not allowed.
    auto other = list_queue;
    other.resource = "rps";
    EXPECT_TRUE(test::run_awaitable(io, uncached.authorize(bob, other))->allowed);
    d = test::run_awaitable(io, uncached.authorize({"carol", {}, {}}, list_queue));
    ASSERT_TRUE(d) << d.error().text;
    EXPECT_FALSE(d->allowed);
}

TEST_F(Delegation, AnUnreachableApiServerIsAnErrorNotADecision) {
    kube::cluster_config away = config;
    away.server = "http://127.0.0.1:1";
    away.host = "127.0.0.1";
    away.port = "1";
    adapter::adapter_delegation d(io.get_executor(), away);
    const auto decision = test::run_awaitable(io, d.authorize({"bob", {}, {}}, list_queue), 60s);
    EXPECT_FALSE(decision);
    EXPECT_FALSE(test::run_awaitable(io, d.review_token("t"), 60s));
}

} // namespace
} // namespace hpaplus
