// What the adapter derives from a request before it asks the API server: the SubjectAccessReview
// attributes (k8s.io/apiserver's RequestInfo), the bearer token, the settings in
// kube-system/extension-apiserver-authentication, and upstream's Forbidden message.
#include "adapter/auth.hpp"

#include <gtest/gtest.h>

#include <string>

namespace hpaplus::adapter {
namespace {

net::http_request request(const std::string& method, const std::string& target) {
    net::http_request r;
    r.method = method;
    r.target = target;
    const auto q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = net::parse_query(target.substr(q + 1));
    return r;
}

TEST(RequestAttributes, FollowUpstreamRequestInfo) {
    struct row {
        const char* method;
        const char* target;
        bool resource;
        const char* verb;
        const char* group;
        const char* ns;
        const char* resource_name;
        const char* name;
        const char* sub;
        const char* path;
    };
    const row rows[] = {
        {"GET", "/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/queue_depth", true, "list",
         "external.metrics.k8s.io", "shop", "queue_depth", "", "", ""},
        {"GET", "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/rps", true, "get",
         "custom.metrics.k8s.io", "default", "pods", "*", "rps", ""},
        {"GET", "/apis/custom.metrics.k8s.io/v1beta2/nodes/n1/load", true, "get",
         "custom.metrics.k8s.io", "", "nodes", "n1", "load", ""},
        {"GET", "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default", true, "get",
         "custom.metrics.k8s.io", "default", "namespaces", "default", "", ""},
        {"GET", "/apis/external.metrics.k8s.io/v1beta1/namespaces/a/m?watch=true", true, "watch",
         "external.metrics.k8s.io", "a", "m", "", "", ""},
        {"DELETE", "/apis/external.metrics.k8s.io/v1beta1/namespaces/a/m", true, "deletecollection",
         "external.metrics.k8s.io", "a", "m", "", "", ""},
        {"POST", "/apis/external.metrics.k8s.io/v1beta1/namespaces/a/m", true, "create",
         "external.metrics.k8s.io", "a", "m", "", "", ""},
        // Discovery and anything outside /apis/G/V/R are non-resource requests.
        {"GET", "/apis/external.metrics.k8s.io/v1beta1", false, "get", "", "", "", "", "",
         "/apis/external.metrics.k8s.io/v1beta1"},
        {"GET", "/apis", false, "get", "", "", "", "", "", "/apis"},
        {"GET", "/openapi/v2", false, "get", "", "", "", "", "", "/openapi/v2"},
        {"HEAD", "/metrics", false, "head", "", "", "", "", "", "/metrics"},
    };
    for (const auto& r : rows) {
        const auto a = attributes_of(request(r.method, r.target));
        SCOPED_TRACE(std::string(r.method) + " " + r.target);
        EXPECT_EQ(a.resource_request, r.resource);
        EXPECT_EQ(a.verb, r.verb);
        EXPECT_EQ(a.api_group, r.group);
        EXPECT_EQ(a.ns, r.ns);
        EXPECT_EQ(a.resource, r.resource_name);
        EXPECT_EQ(a.name, r.name);
        EXPECT_EQ(a.subresource, r.sub);
        EXPECT_EQ(a.path, r.path);
    }
}

TEST(BearerToken, OnlyTheBearerScheme) {
    auto with = [](const std::string& value) {
        auto r = request("GET", "/");
        r.headers.emplace_back("authorization", value);
        return std::string(bearer_token(r));
    };
    EXPECT_EQ(with("Bearer abc.def"), "abc.def");
    EXPECT_EQ(with("bearer abc"), "abc");
    EXPECT_EQ(with("Basic dXNlcjpwYXNz"), "");
    EXPECT_EQ(with("Bearer "), "");
    EXPECT_EQ(std::string(bearer_token(request("GET", "/"))), "");
}

TEST(AuthenticationConfigMap, ReadsWhatKubeApiserverPublishes) {
    const auto s = settings_from_configmap(
        R"({"kind":"ConfigMap","data":{"client-ca-file":"CLIENT PEM",)"
        R"("requestheader-client-ca-file":"PROXY PEM",)"
        R"("requestheader-allowed-names":"[\"front-proxy-client\",\"aggregator\"]",)"
        R"("requestheader-username-headers":"[\"X-Remote-User\"]",)"
        R"("requestheader-group-headers":"[\"X-Remote-Group\",\"X-Groups\"]",)"
        R"("requestheader-extra-headers-prefix":"[\"X-Remote-Extra-\"]"}})");
    ASSERT_TRUE(s) << s.error().text;
    EXPECT_EQ(s->client_ca_pem, "CLIENT PEM");
    EXPECT_EQ(s->request_header.client_ca_pem, "PROXY PEM");
    EXPECT_EQ(s->request_header.allowed_names,
              (std::vector<std::string>{"front-proxy-client", "aggregator"}));
    EXPECT_EQ(s->request_header.group_headers,
              (std::vector<std::string>{"X-Remote-Group", "X-Groups"}));
}

TEST(AuthenticationConfigMap, AbsentKeysKeepTheDefaultsAndBadOnesAreNamed) {
    const auto bare = settings_from_configmap(R"({"data":{}})");
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->request_header.username_headers, std::vector<std::string>{"X-Remote-User"});
    EXPECT_TRUE(bare->request_header.client_ca_pem.empty());
    const auto bad = settings_from_configmap(R"({"data":{"requestheader-allowed-names":"[1]"}})");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().text.find("requestheader-allowed-names"), std::string::npos);
    EXPECT_FALSE(settings_from_configmap(R"({"data":"x"})"));
    EXPECT_FALSE(settings_from_configmap("not json"));
    EXPECT_FALSE(settings_from_configmap(std::string(100000, '[')));
}

TEST(ForbiddenStatus, CarriesUpstreamsMessage) {
    const user_info bob{"bob", {"dev"}, {}};
    auto a = attributes_of(
        request("GET", "/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/queue_depth"));
    auto r = forbidden_status(bob, a, "no RBAC policy matched");
    EXPECT_EQ(r.status, 403);
    EXPECT_NE(r.body.find(R"("reason":"Forbidden")"), std::string::npos);
    EXPECT_NE(r.body.find(R"(queue_depth.external.metrics.k8s.io is forbidden: User \"bob\" )"
                          R"(cannot list resource \"queue_depth\" in API group )"
                          R"(\"external.metrics.k8s.io\" in the namespace \"shop\": no RBAC )"
                          R"(policy matched)"),
              std::string::npos)
        << r.body;
    a = attributes_of(request("GET", "/apis/custom.metrics.k8s.io/v1beta2/nodes/n1/load"));
    r = forbidden_status(bob, a, "");
    EXPECT_NE(r.body.find(R"(nodes.custom.metrics.k8s.io \"n1\" is forbidden: User \"bob\" )"
                          R"(cannot get resource \"nodes/load\" in API group )"
                          R"(\"custom.metrics.k8s.io\" at the cluster scope")"),
              std::string::npos)
        << r.body;
    r = forbidden_status(bob, attributes_of(request("GET", "/apis")), "");
    EXPECT_NE(r.body.find(R"(forbidden: User \"bob\" cannot get path \"/apis\")"),
              std::string::npos)
        << r.body;
}

} // namespace
} // namespace hpaplus::adapter

namespace hpaplus::adapter {
namespace {

TEST(ReviewAnswers, TokenReviewNamesTheUserOrSaysWhyNot) {
    const auto u = token_review_user(
        R"({"status":{"authenticated":true,"user":{"username":"alice","groups":["a","b"],)"
        R"("extra":{"scopes":["x"]}}}})");
    ASSERT_TRUE(u) << u.error().text;
    EXPECT_EQ(u->name, "alice");
    EXPECT_EQ(u->groups, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(u->extra.at("scopes"), std::vector<std::string>{"x"});
    const auto refused =
        token_review_user(R"({"status":{"authenticated":false,"error":"token expired"}})");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().text, "the token is not valid: token expired");
    EXPECT_FALSE(token_review_user(R"({"status":{"authenticated":true,"user":{}}})"));
    EXPECT_FALSE(token_review_user(R"({"status":"yes"})"));
    EXPECT_FALSE(token_review_user(std::string(5000, '{')));
}

TEST(ReviewAnswers, SubjectAccessReviewAllowsOnlyWhenItSaysSo) {
    auto d = access_review_decision(R"({"status":{"allowed":true}})");
    ASSERT_TRUE(d);
    EXPECT_TRUE(d->allowed);
    d = access_review_decision(R"({"status":{"allowed":false,"reason":"no rule"}})");
    ASSERT_TRUE(d);
    EXPECT_FALSE(d->allowed);
    EXPECT_EQ(d->reason, "no rule");
    d = access_review_decision(R"({"status":{"allowed":"true"}})");
    ASSERT_TRUE(d);
    EXPECT_FALSE(d->allowed) << "only the JSON true allows";
    EXPECT_FALSE(access_review_decision("{}"));
}

} // namespace
} // namespace hpaplus::adapter
