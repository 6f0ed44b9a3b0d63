// Integration tests: the simulated cluster's authentication and RBAC as kube-apiserver's
// (shared/reference/kubernetes-wire.md §13): deploy/'s RBAC applied, ServiceAccount tokens from
// TokenRequest, refusals in upstream's words, bindings to users, groups and ServiceAccounts,
// resourceNames, wildcards, aggregated ClusterRoles, impersonation, and the access reviews
// kubectl auth sends, as JSON and as protobuf.
#include "../support/json_access.hpp"
#include "../support/shipped_identity.hpp"
#include "../support/sim_fixture.hpp"
#include "sim/apiserver/rbac.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace hpaplus {
namespace {

using test::parse;
using test::str;

const std::string controller_user = "system:serviceaccount:hpaplus-system:hpaplus-controller";
const std::string rbac = "/apis/rbac.authorization.k8s.io/v1";

struct SimRbac : ::testing::Test {
    test::sim_fixture sim;
    std::string token = sim.shipped_token(test::controller_account);

    test::http_result as(const std::string& bearer, const std::string& method,
                         const std::string& path, const std::string& body = "",
                         std::vector<std::pair<std::string, std::string>> headers = {}) {
        headers.emplace_back("Authorization", "Bearer " + bearer);
        return sim.request(method, path, body, "", "application/json", headers);
    }
    void create(const std::string& path, const std::string& body) {
        const auto r = sim.request("POST", path, body);
        ASSERT_EQ(r.status, 201) << path << ": " << r.body;
    }
    void add_token(const std::string& token_text, const std::string& user,
                   const std::string& groups = "[]") {
        ASSERT_EQ(sim.request("POST", "/sim/v1/tokens",
                              R"({"token":")" + token_text + R"(","user":")" + user +
                                  R"(","groups":)" + groups + "}")
                      .status,
                  200);
    }
    // ClusterRole NAME with `rules` (a JSON array) and, when `subject` is given, a binding of it.
    void cluster_role(const std::string& name, const std::string& rules,
                      const std::string& subject = "", const std::string& labels = "{}") {
        create(rbac + "/clusterroles", R"({"metadata":{"name":")" + name + R"(","labels":)" +
                                           labels + R"(},"rules":)" + rules + "}");
        if (!subject.empty()) bind_cluster_role(name, name, subject);
    }
    void bind_cluster_role(const std::string& binding, const std::string& role,
                           const std::string& subject) {
        create(rbac + "/clusterrolebindings",
               R"({"metadata":{"name":")" + binding +
                   R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",)"
                   R"("name":")" +
                   role + R"("},"subjects":[)" + subject + "]}");
    }
    std::string allowed(const std::string& bearer, const std::string& attributes) {
        const auto r = as(bearer, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                          R"({"apiVersion":"authorization.k8s.io/v1","kind":)"
                          R"("SelfSubjectAccessReview","spec":)" +
                              attributes + "}");
        EXPECT_EQ(r.status, 201) << r.body;
        return str(parse(r.body), "/status/allowed");
    }
};

TEST_F(SimRbac, TheControllersTokenMayDoWhatDeployGrantsAndIsRefusedTheRestInUpstreamsWords) {
    create(test::paths::deployments,
           R"({"metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},)"
           R"("template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":)"
           R"("app","image":"nginx"}]}}}})");
    EXPECT_EQ(as(token, "GET", "/api/v1/pods").status, 200);
    EXPECT_EQ(as(token, "GET", test::paths::deployments + "?watch=true&timeoutSeconds=1").status,
              200);
    EXPECT_EQ(as(token, "GET", test::paths::deployments + "/web/scale").status, 200);
    EXPECT_EQ(as(token, "GET", "/apis").status, 200) << "system:discovery";

    auto r = as(token, "DELETE", test::paths::deployments + "/web");
    EXPECT_EQ(r.status, 403) << r.body;
    const auto refusal = parse(r.body);
    EXPECT_EQ(str(refusal, "/reason"), "Forbidden");
    EXPECT_EQ(str(refusal, "/message"),
              "deployments.apps \"web\" is forbidden: User \"" + controller_user +
                  "\" cannot delete resource \"deployments\" in API group \"apps\" in the "
                  "namespace \"default\"");
    EXPECT_EQ(str(refusal, "/details/kind"), "deployments");
    EXPECT_EQ(str(refusal, "/details/group"), "apps");
    EXPECT_EQ(sim.get(test::paths::deployments + "/web").status, 200) << "still there";

    r = as(token, "GET", "/api/v1/nodes");
    EXPECT_EQ(str(parse(r.body), "/message"),
              "nodes is forbidden: User \"" + controller_user +
                  "\" cannot list resource \"nodes\" in API group \"\" at the cluster scope");
    r = as(token, "PUT", test::paths::pods + "/x/status", "{}");
    EXPECT_NE(r.body.find("cannot update resource \\\"pods/status\\\""), std::string::npos)
        << r.body;
    // The leader Lease by name only; any other Lease of its namespace is not its to read.
    const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/hpaplus-system/leases/";
    EXPECT_EQ(as(token, "GET", leases + "hpaplus-controller").status, 404);
    EXPECT_EQ(as(token, "GET", leases + "someone-else").status, 403);
    EXPECT_EQ(as(token, "GET",
                 "/apis/coordination.k8s.io/v1/namespaces/default/leases/"
                 "hpaplus-controller")
                  .status,
              403);
    // A token the cluster does not know is no one.
    r = as("not-a-token", "GET", "/api/v1/pods");
    EXPECT_EQ(r.status, 401);
    EXPECT_EQ(str(parse(r.body), "/reason"), "Unauthorized");
    // The refusals are on record for the tests' check of deploy/'s RBAC.
    const auto usage = parse(sim.get("/sim/v1/rbac-usage").body);
    EXPECT_EQ(str(usage, ("/refused/" + controller_user + "/count").c_str()), "5");
}

// A TokenRequest bound to a pod (what the kubelet's projected tokens are) authenticates as the
// ServiceAccount with the pod in user.extra, as kube-apiserver's does; and the audit log records
// every write answered, with that user, so the replicas of one ServiceAccount are told apart.
TEST_F(SimRbac, APodBoundTokenNamesItsPodAndTheAuditLogRecordsItsWrites) {
    const std::string ns = "/api/v1/namespaces/hpaplus-system";
    create(ns + "/pods", R"({"metadata":{"name":"ctrl-0"},"spec":{"containers":[{"name":"c",)"
                         R"("image":"hpaplus"}]}})");
    const std::string pod_uid = str(parse(sim.get(ns + "/pods/ctrl-0").body), "/metadata/uid");
    const std::string token_path = ns + "/serviceaccounts/hpaplus-controller/token";
    const auto request = [&](const std::string& ref) {
        return sim.request("POST", token_path,
                           R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",)"
                           R"("spec":{"boundObjectRef":)" +
                               ref + "}}");
    };
    auto r = request(R"({"kind":"Pod","apiVersion":"v1","name":"ctrl-0"})");
    ASSERT_EQ(r.status, 201) << r.body;
    const auto answer = parse(r.body);
    EXPECT_EQ(str(answer, "/spec/boundObjectRef/uid"), pod_uid);
    const std::string bound = str(answer, "/status/token");

    r = request(R"({"kind":"Pod","apiVersion":"v1","name":"nope"})");
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_EQ(str(parse(r.body), "/message"), "pods \"nope\" not found");
    r = request(R"({"kind":"Pod","apiVersion":"v1","name":"ctrl-0","uid":"other"})");
    EXPECT_EQ(r.status, 409) << r.body;
    EXPECT_NE(str(parse(r.body), "/message")
                  .find("the UID in the bound object reference (other) "
                        "does not match the UID in record"),
              std::string::npos)
        << r.body;
    r = request(R"({"kind":"Deployment","apiVersion":"apps/v1","name":"web"})");
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(str(parse(r.body), "/message"),
              "cannot bind token to object of type apps/v1, Kind=Deployment");

    // A TokenReview (what the adapter asks about its callers) says the same.
    r = sim.request("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                    R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",)"
                    R"("spec":{"token":")" +
                        bound + R"("}})");
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/status/user/extra/authentication.kubernetes.io~1pod-name/0"),
              "ctrl-0");

    ASSERT_EQ(sim.request("DELETE", "/sim/v1/audit").status, 200);
    const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/hpaplus-system/leases";
    const std::string lease = R"({"metadata":{"name":"hpaplus-controller"},"spec":{}})";
    EXPECT_EQ(as(bound, "POST", leases, lease).status, 201);
    EXPECT_EQ(as(bound, "POST", leases, lease).status, 409) << "answered, so recorded too";
    EXPECT_EQ(as(bound, "GET", leases + "/hpaplus-controller").status, 200) << "a read: not";
    const auto audit = parse(sim.get("/sim/v1/audit?resource=leases").body);
    EXPECT_EQ(str(audit, "/kind"), "EventList");
    EXPECT_EQ(str(audit, "/apiVersion"), "audit.k8s.io/v1");
    ASSERT_EQ(audit["items"].Size(), 2u) << sim.get("/sim/v1/audit").body;
    const auto& first = audit["items"][0];
    EXPECT_EQ(str(first, "/verb"), "create");
    EXPECT_EQ(str(first, "/user/username"), controller_user);
    EXPECT_EQ(str(first, "/user/extra/authentication.kubernetes.io~1pod-name/0"), "ctrl-0");
    EXPECT_EQ(str(first, "/user/extra/authentication.kubernetes.io~1pod-uid/0"), pod_uid);
    EXPECT_EQ(str(first, "/objectRef/resource"), "leases");
    EXPECT_EQ(str(first, "/objectRef/namespace"), "hpaplus-system");
    EXPECT_EQ(str(first, "/objectRef/name"), "hpaplus-controller");
    EXPECT_EQ(str(first, "/objectRef/apiGroup"), "coordination.k8s.io");
    EXPECT_EQ(str(first, "/responseStatus/code"), "201");
    EXPECT_EQ(str(audit["items"][1], "/responseStatus/code"), "409");
    // Only what came after a given event.
    const std::string id = str(first, "/auditID");
    const auto later = parse(sim.get("/sim/v1/audit?resource=leases&after=" + id).body);
    ASSERT_EQ(later["items"].Size(), 1u);
    EXPECT_EQ(str(later["items"][0], "/responseStatus/code"), "409");
    EXPECT_EQ(sim.get("/sim/v1/audit?after=x").status, 400);
}

TEST_F(SimRbac, BindingsReachUsersGroupsAndServiceAccountsWithinTheirScope) {
    add_token("alice", "alice", R"(["team-a"])");
    add_token("bob", "bob");
    create("/api/v1/namespaces", R"({"metadata":{"name":"team-a"}})");
    create("/api/v1/namespaces/team-a/serviceaccounts", R"({"metadata":{"name":"ci"}})");
    const auto ci = parse(
        sim.request("POST", "/api/v1/namespaces/team-a/serviceaccounts/ci/token", R"({"spec":{}})")
            .body);
    const std::string ci_token = str(ci, "/status/token");
    ASSERT_FALSE(ci_token.empty());
    EXPECT_EQ(
        sim.request("POST", "/api/v1/namespaces/team-a/serviceaccounts/nobody/token", "{}").status,
        404);
    // A ClusterRole bound in one namespace by a RoleBinding grants only there.
    cluster_role("configmap-reader",
                 R"([{"apiGroups":[""],"resources":["configmaps"],"verbs":["get","list"]}])");
    create(rbac + "/namespaces/team-a/rolebindings",
           R"({"metadata":{"name":"readers"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",)"
           R"("kind":"ClusterRole","name":"configmap-reader"},"subjects":[)"
           R"({"kind":"Group","name":"team-a"},{"kind":"ServiceAccount","name":"ci"}]})");
    EXPECT_EQ(as("alice", "GET", "/api/v1/namespaces/team-a/configmaps").status, 200);
    EXPECT_EQ(as("alice", "GET", "/api/v1/namespaces/default/configmaps").status, 403);
    EXPECT_EQ(as("alice", "GET", "/api/v1/configmaps").status, 403) << "all namespaces";
    EXPECT_EQ(as(ci_token, "GET", "/api/v1/namespaces/team-a/configmaps").status, 200);
    EXPECT_EQ(as("bob", "GET", "/api/v1/namespaces/team-a/configmaps").status, 403);
    // resourceNames: one object by name, never the list.
    cluster_role("one-map",
                 R"([{"apiGroups":[""],"resources":["configmaps"],"resourceNames":["settings"],)"
                 R"("verbs":["get"]}])",
                 R"({"kind":"User","name":"bob"})");
    EXPECT_EQ(as("bob", "GET", "/api/v1/namespaces/default/configmaps/settings").status, 404);
    EXPECT_EQ(as("bob", "GET", "/api/v1/namespaces/default/configmaps/other").status, 403);
    EXPECT_EQ(as("bob", "GET", "/api/v1/namespaces/default/configmaps").status, 403);
    // A binding to a role that does not exist says so in the refusal.
    bind_cluster_role("dangling", "not-there", R"({"kind":"User","name":"bob"})");
    const auto r = as("bob", "GET", "/api/v1/namespaces/default/secrets");
    EXPECT_NE(r.body.find(": RBAC: clusterrole.rbac.authorization.k8s.io \\\"not-there\\\" not "
                          "found"),
              std::string::npos)
        << r.body;
}

TEST_F(SimRbac, AggregatedClusterRolesAndNonResourceUrls) {
    add_token("carol", "carol");
    cluster_role("monitoring", "[]", R"({"kind":"User","name":"carol"})");
    // Filled from the ClusterRoles its selector matches, as the aggregation controller does.
    ASSERT_EQ(sim.request("PUT", rbac + "/clusterroles/monitoring",
                          R"({"metadata":{"name":"monitoring"},"aggregationRule":)"
                          R"({"clusterRoleSelectors":[{"matchLabels":{"aggregate-to-monitoring":)"
                          R"("true"}}]},"rules":[]})")
                  .status,
              200);
    EXPECT_EQ(as("carol", "GET", "/api/v1/pods").status, 403);
    cluster_role("pod-lister", R"([{"apiGroups":[""],"resources":["pods"],"verbs":["list"]}])", "",
                 R"({"aggregate-to-monitoring":"true"})");
    EXPECT_EQ(as("carol", "GET", "/api/v1/pods").status, 200);
    cluster_role("metrics-path", R"([{"nonResourceURLs":["/metrics","/logs/*"],"verbs":["get"]}])",
                 R"({"kind":"User","name":"carol"})");
    EXPECT_EQ(
        allowed("carol", R"({"nonResourceAttributes":{"path":"/logs/kubelet","verb":"get"}})"),
        "true");
    EXPECT_EQ(allowed("carol", R"({"nonResourceAttributes":{"path":"/logsx","verb":"get"}})"),
              "false");
}

TEST_F(SimRbac, ImpersonationNeedsTheImpersonateVerb) {
    add_token("dave", "dave");
    // The admin may be anyone: the controller's ServiceAccount and its groups.
    auto r = sim.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                         R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})",
                         "", "application/json", {{"Impersonate-User", controller_user}});
    ASSERT_EQ(r.status, 201) << r.body;
    auto review = parse(r.body);
    EXPECT_EQ(str(review, "/status/userInfo/username"), controller_user);
    EXPECT_EQ(str(review, "/status/userInfo/groups/1"), "system:serviceaccounts:hpaplus-system");
    r = sim.request("DELETE", test::paths::pods + "/x", "", "", "application/json",
                    {{"Impersonate-User", controller_user}});
    EXPECT_EQ(r.status, 403) << r.body;
    // dave may not, until RBAC lets him impersonate that one user.
    r = as("dave", "GET", "/api/v1/pods", "", {{"Impersonate-User", "erin"}});
    EXPECT_EQ(str(parse(r.body), "/message"),
              "users \"erin\" is forbidden: User \"dave\" cannot impersonate resource \"users\" "
              "in API group \"\" at the cluster scope");
    cluster_role("impersonate-erin",
                 R"([{"apiGroups":[""],"resources":["users"],"resourceNames":["erin"],)"
                 R"("verbs":["impersonate"]}])",
                 R"({"kind":"User","name":"dave"})");
    r = as("dave", "GET", "/api/v1/pods", "", {{"Impersonate-User", "erin"}});
    EXPECT_EQ(str(parse(r.body), "/message"),
              "pods is forbidden: User \"erin\" cannot list resource \"pods\" in API group \"\" at "
              "the cluster scope");
    r = as("dave", "GET", "/api/v1/pods", "",
           {{"Impersonate-User", "erin"}, {"Impersonate-Group", "system:masters"}});
    EXPECT_NE(str(parse(r.body), "/message").find("cannot impersonate resource \"groups\""),
              std::string::npos)
        << r.body;
}

TEST_F(SimRbac, AccessReviewsAnswerFromTheSameRules) {
    EXPECT_EQ(allowed(token, R"({"resourceAttributes":{"verb":"list","resource":"pods"}})"),
              "true");
    EXPECT_EQ(allowed(token, R"({"resourceAttributes":{"verb":"delete","group":"apps",)"
                             R"("resource":"deployments","namespace":"default"}})"),
              "false");
    EXPECT_EQ(allowed(token, R"({"resourceAttributes":{"verb":"create","resource":"pods",)"
                             R"("subresource":"eviction","namespace":"default"}})"),
              "true");
    // The reason names the binding that allowed it.
    auto r = as(token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                R"({"spec":{"resourceAttributes":{"verb":"update","group":"apps",)"
                R"("resource":"deployments","subresource":"scale","namespace":"shop"}}})");
    EXPECT_EQ(str(parse(r.body), "/status/reason"),
              "RBAC: allowed by ClusterRoleBinding \"hpaplus-controller\" of ClusterRole "
              "\"hpaplus-controller\" to ServiceAccount \"hpaplus-controller/hpaplus-system\"");
    // SubjectAccessReview, for another user: RBAC too (the test policy's deny rules first).
    r = sim.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                    R"({"spec":{"user":")" + controller_user +
                        R"(","groups":["system:serviceaccounts"],"resourceAttributes":)"
                        R"({"verb":"watch","group":"apps","resource":"deployments"}}})");
    EXPECT_EQ(str(parse(r.body), "/status/allowed"), "true") << r.body;
    // LocalSubjectAccessReview: about its own namespace only.
    r = sim.request("POST",
                    "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
                    R"({"spec":{"user":"nobody","resourceAttributes":{"verb":"get",)"
                    R"("resource":"pods","namespace":"other"}}})");
    EXPECT_EQ(r.status, 400) << r.body;
    // SelfSubjectRulesReview: what `kubectl auth can-i --list` prints.
    r = as(token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
           R"({"spec":{"namespace":"hpaplus-system"}})");
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_NE(r.body.find(R"({"verbs":["get","update"],"apiGroups":["coordination.k8s.io"],)"
                          R"("resources":["leases"],"resourceNames":["hpaplus-controller"]})"),
              std::string::npos)
        << r.body;
    EXPECT_NE(r.body.find(R"("nonResourceURLs":["/api","/api/*")"), std::string::npos);
    EXPECT_EQ(str(parse(r.body), "/status/incomplete"), "false");
}

TEST_F(SimRbac, KubectlsProtobufReviewsAreDecoded) {
    // kubectl 1.32's `auth can-i list pods`: a SelfSubjectAccessReview as protobuf (the envelope
    // k8s\0, typeMeta, raw = {spec: {resourceAttributes: {verb: list, resource: pods}}}).
    auto bytes = [](std::initializer_list<int> b) {
        std::string s;
        for (int c : b)
            s.push_back(static_cast<char>(c));
        return s;
    };
    const std::string api_version = "authorization.k8s.io/v1", kind = "SelfSubjectAccessReview";
    const std::string type_meta = bytes({0x0a, static_cast<int>(api_version.size())}) +
                                  api_version + bytes({0x12, static_cast<int>(kind.size())}) + kind;
    const std::string attributes = bytes({0x12, 4}) + "list" + bytes({0x2a, 4}) + "pods";
    const std::string spec = bytes({0x0a, static_cast<int>(attributes.size())}) + attributes;
    const std::string raw = bytes({0x12, static_cast<int>(spec.size())}) + spec;
    const std::string body = std::string("k8s\0", 4) +
                             bytes({0x0a, static_cast<int>(type_meta.size())}) + type_meta +
                             bytes({0x12, static_cast<int>(raw.size())}) + raw;
    const auto r = sim.request("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                               body, "application/vnd.kubernetes.protobuf", "application/json",
                               {{"Authorization", "Bearer " + token}});
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/status/allowed"), "true") << r.body;
    EXPECT_EQ(str(parse(r.body), "/spec/resourceAttributes/resource"), "pods");
}

// The rule matcher, as upstream's RuleAllows and the rbacv1 helpers it calls (VerbMatches,
// APIGroupMatches, ResourceMatches with `*/subresource`, ResourceNameMatches,
// NonResourceURLMatches with a trailing `*`).
TEST(RbacRules, MatchAsUpstreamsRuleAllows) {
    auto rule = [](const char* text) {
        sim::json_doc doc;
        doc.Parse(text);
        return sim::rule_of(doc);
    };
    auto request = [](std::string verb, std::string group, std::string resource,
                      std::string sub = "", std::string name = "") {
        sim::access_request a;
        a.resource_request = true;
        a.verb = std::move(verb);
        a.api_group = std::move(group);
        a.resource = std::move(resource);
        a.subresource = std::move(sub);
        a.name = std::move(name);
        return a;
    };
    const auto scale = rule(R"({"apiGroups":["*"],"resources":["*/scale"],"verbs":["get"]})");
    EXPECT_TRUE(sim::rule_allows(scale, request("get", "apps", "deployments", "scale")));
    EXPECT_FALSE(sim::rule_allows(scale, request("get", "apps", "deployments")));
    EXPECT_FALSE(sim::rule_allows(scale, request("get", "apps", "deployments", "status")));
    const auto pods = rule(R"({"apiGroups":[""],"resources":["pods"],"verbs":["*"]})");
    EXPECT_TRUE(sim::rule_allows(pods, request("deletecollection", "", "pods")));
    EXPECT_FALSE(sim::rule_allows(pods, request("get", "", "pods", "log")))
        << "a resource does not grant its subresources";
    EXPECT_FALSE(sim::rule_allows(pods, request("get", "apps", "pods")));
    const auto named = rule(R"({"apiGroups":[""],"resources":["pods"],"resourceNames":["a"],)"
                            R"("verbs":["get","list"]})");
    EXPECT_TRUE(sim::rule_allows(named, request("get", "", "pods", "", "a")));
    EXPECT_FALSE(sim::rule_allows(named, request("list", "", "pods")));
    sim::access_request path;
    path.verb = "get";
    path.path = "/healthz/etcd";
    EXPECT_TRUE(
        sim::rule_allows(rule(R"({"nonResourceURLs":["/healthz/*"],"verbs":["get"]})"), path));
    EXPECT_FALSE(
        sim::rule_allows(rule(R"({"nonResourceURLs":["/healthz"],"verbs":["get"]})"), path));
    EXPECT_FALSE(sim::rule_allows(pods, path)) << "a resource rule grants no path";
}

TEST(RbacRules, RequestAttributesAreReadAsApiserversRequestInfo) {
    auto of = [](const std::string& method, const std::string& target) {
        net::http_request r;
        r.method = method;
        r.target = target;
        const auto q = target.find('?');
        r.path = target.substr(0, q);
        if (q != std::string::npos) r.query = net::parse_query(target.substr(q + 1));
        return sim::access_of(r);
    };
    auto a = of("GET", "/api/v1/namespaces/default/pods?watch=true");
    EXPECT_EQ(a.verb, "watch");
    EXPECT_EQ(a.ns, "default");
    a = of("GET", "/api/v1/namespaces/kube-system/leases?fieldSelector=metadata.name%3Dx");
    EXPECT_EQ(a.verb, "list");
    EXPECT_EQ(a.name, "x");
    a = of("DELETE", "/apis/apps/v1/namespaces/shop/deployments");
    EXPECT_EQ(a.verb, "deletecollection");
    EXPECT_EQ(a.api_group, "apps");
    a = of("GET", "/api/v1/namespaces/shop");
    EXPECT_EQ(a.resource, "namespaces");
    EXPECT_EQ(a.name, "shop");
    EXPECT_EQ(a.ns, "shop");
    a = of("GET", "/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/pods/*/rps");
    EXPECT_EQ(a.resource, "pods");
    EXPECT_EQ(a.name, "*");
    EXPECT_EQ(a.subresource, "rps");
    a = of("POST", "/apis/apps/v1");
    EXPECT_FALSE(a.resource_request);
    EXPECT_EQ(a.verb, "post");
}

} // namespace
} // namespace hpaplus
