// Integration tests: the simulated API server over real HTTP on 127.0.0.1:0, checked against the
// wire contract in shared/reference/kubernetes-wire.md (Status shapes, resourceVersion semantics,
// subresources, patches, list/watch, discovery, tables).
#include "kube/config.hpp"
#include "sim_api_fixture.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include <future>
#include <set>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

using test::parse;
using test::str;

// Aggregated discovery (apidiscovery.k8s.io/v2) for clients that ask for it, as client-go does
// first: every resource with its kind, scope, verbs, short names and subresources in one answer,
// and the legacy lists for clients that do not.
TEST_F(SimApi, AggregatedDiscoveryListsEveryResourceAndSubresource) {
    const std::string accept =
        "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    const auto apis = sim.request("GET", "/apis", "", "", accept);
    ASSERT_EQ(apis.status, 200);
    EXPECT_EQ(apis.headers.at("content-type"),
              "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    const auto doc = parse(apis.body);
    EXPECT_EQ(str(doc, "/kind"), "APIGroupDiscoveryList");
    // The resource of a group version by name, "" when absent.
    const auto find = [](const rapidjson::Value& list, const std::string& group,
                         const std::string& version,
                         const std::string& resource) -> const rapidjson::Value* {
        for (const auto& g : list["items"].GetArray()) {
            const std::string name =
                g["metadata"].HasMember("name") ? g["metadata"]["name"].GetString() : "";
            if (name != group) continue;
            for (const auto& v : g["versions"].GetArray()) {
                if (v["version"].GetString() != version) continue;
                EXPECT_EQ(std::string(v["freshness"].GetString()), "Current");
                for (const auto& r : v["resources"].GetArray())
                    if (r["resource"].GetString() == resource) return &r;
            }
        }
        return nullptr;
    };
    const auto* deployments = find(doc, "apps", "v1", "deployments");
    ASSERT_NE(deployments, nullptr) << apis.body;
    EXPECT_EQ(str(*deployments, "/responseKind/kind"), "Deployment");
    EXPECT_EQ(str(*deployments, "/scope"), "Namespaced");
    EXPECT_EQ(str(*deployments, "/singularResource"), "deployment");
    EXPECT_EQ(str(*deployments, "/shortNames/0"), "deploy");
    EXPECT_EQ(str(*deployments, "/categories/0"), "all");
    std::vector<std::string> subresources;
    for (const auto& sub : (*deployments)["subresources"].GetArray())
        subresources.push_back(std::string(sub["subresource"].GetString()) + " " +
                               sub["responseKind"]["group"].GetString() + "/" +
                               sub["responseKind"]["kind"].GetString());
    EXPECT_EQ(subresources,
              (std::vector<std::string>{"status apps/Deployment", "scale autoscaling/Scale"}));
    const auto* hpas = find(doc, "autoscaling", "v1", "horizontalpodautoscalers");
    ASSERT_NE(hpas, nullptr); // both served versions, v2 first (preferred)
    EXPECT_NE(find(doc, "autoscaling", "v2", "horizontalpodautoscalers"), nullptr);
    const auto core = parse(sim.request("GET", "/api", "", "", accept).body);
    const auto* pods = find(core, "", "v1", "pods");
    ASSERT_NE(pods, nullptr);
    EXPECT_EQ(str(*pods, "/subresources/0/subresource"), "attach");
    EXPECT_EQ(str(*pods, "/subresources/1/subresource"), "eviction");
    EXPECT_EQ(str(*pods, "/subresources/1/responseKind/group"), "policy");
    EXPECT_EQ(str(*find(core, "", "v1", "nodes"), "/scope"), "Cluster");
    // Without it in Accept: the legacy lists, unchanged.
    EXPECT_EQ(str(parse(sim.get("/apis").body), "/kind"), "APIGroupList");
    EXPECT_EQ(str(parse(sim.get("/api").body), "/kind"), "APIVersions");
}

TEST_F(SimApi, DiscoveryAndVersion) {
    const auto version = parse(sim.get("/version").body);
    EXPECT_EQ(str(version, "/major"), "1");
    auto api = sim.get("/api");
    EXPECT_EQ(api.status, 200);
    EXPECT_EQ(api.headers["content-type"], "application/json");
    const auto v1 = parse(sim.get("/api/v1").body);
    EXPECT_EQ(str(v1, "/kind"), "APIResourceList");
    // The subresources it serves, as the real server lists them (`kubectl drain` looks for
    // pods/eviction), the status after them.
    std::vector<std::string> of_pods;
    for (const auto& r : v1["resources"].GetArray()) {
        const std::string name = r["name"].GetString();
        if (name.rfind("pods/", 0) == 0 || name == "serviceaccounts/token")
            of_pods.push_back(
                name + " " + r["kind"].GetString() +
                (r.HasMember("group") ? std::string(" ") + r["group"].GetString() : std::string()));
    }
    EXPECT_EQ(of_pods,
              (std::vector<std::string>{"pods/attach PodAttachOptions",
                                        "pods/eviction Eviction policy", "pods/exec PodExecOptions",
                                        "pods/log Pod", "pods/portforward PodPortForwardOptions",
                                        "pods/resize Pod", "pods/status Pod",
                                        "serviceaccounts/token TokenRequest "
                                        "authentication.k8s.io"}));
    const auto apps = parse(sim.get("/apis/apps/v1").body);
    bool scale = false;
    for (const auto& r : apps["resources"].GetArray())
        if (std::string(r["name"].GetString()) == "deployments/scale")
            scale = std::string(r["kind"].GetString()) == "Scale";
    EXPECT_TRUE(scale);
    const auto groups = parse(sim.get("/apis").body);
    EXPECT_EQ(str(groups, "/kind"), "APIGroupList");
    EXPECT_EQ(sim.get("/apis/nope.example.com").status, 404);
}

TEST_F(SimApi, CreateGetListDelete) {
    const auto created = sim.request("POST", deployments, deployment_json);
    ASSERT_EQ(created.status, 201) << created.body;
    const auto d = parse(created.body);
    EXPECT_EQ(str(d, "/metadata/generation"), "1");
    EXPECT_EQ(str(d, "/metadata/namespace"), "default");
    EXPECT_EQ(str(d, "/metadata/uid").size(), 36u);
    EXPECT_NE(str(d, "/metadata/creationTimestamp"), "<missing>");
    EXPECT_EQ(sim.get(deployments + "/web").body, created.body);
    const auto list = parse(sim.get(deployments).body);
    EXPECT_EQ(str(list, "/kind"), "DeploymentList");
    EXPECT_EQ(list["items"].Size(), 1u);
    EXPECT_EQ(sim.request("DELETE", deployments + "/web").status, 200);

    const auto missing = sim.get(deployments + "/web");
    EXPECT_EQ(missing.status, 404);
    const auto status = parse(missing.body);
    EXPECT_EQ(str(status, "/kind"), "Status");
    EXPECT_EQ(str(status, "/status"), "Failure");
    EXPECT_EQ(str(status, "/reason"), "NotFound");
    EXPECT_EQ(str(status, "/message"), "deployments.apps \"web\" not found");
    EXPECT_EQ(str(status, "/details/kind"), "deployments");
    EXPECT_EQ(str(status, "/details/group"), "apps");
    EXPECT_EQ(str(status, "/code"), "404");
}

// A DELETE answers as the kind's registry does: a Status of success for most kinds, the deleted
// object for those whose store sets ReturnDeletedObject (pods among them).
TEST_F(SimApi, DeleteAnswersAStatusOrTheObjectAsTheKindsRegistryDoes) {
    const auto created = parse(sim.request("POST", deployments, deployment_json).body);
    const auto gone = sim.request("DELETE", deployments + "/web");
    ASSERT_EQ(gone.status, 200) << gone.body;
    const auto status = parse(gone.body);
    EXPECT_EQ(str(status, "/kind"), "Status");
    EXPECT_EQ(str(status, "/status"), "Success");
    EXPECT_EQ(str(status, "/details/name"), "web");
    EXPECT_EQ(str(status, "/details/group"), "apps");
    EXPECT_EQ(str(status, "/details/kind"), "deployments");
    EXPECT_EQ(str(status, "/details/uid"), str(created, "/metadata/uid"));

    const std::string pods = "/api/v1/namespaces/default/pods";
    ASSERT_EQ(
        sim.request(
               "POST", pods,
               R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx"}]}})")
            .status,
        201);
    const auto pod = sim.request("DELETE", pods + "/p");
    ASSERT_EQ(pod.status, 200) << pod.body;
    EXPECT_EQ(str(parse(pod.body), "/kind"), "Pod");
    EXPECT_EQ(str(parse(pod.body), "/metadata/name"), "p");
}

// Events are one store served as core/v1 and events.k8s.io/v1, converted both ways as the real
// server converts them (involvedObject/regarding, message/note, reportingComponent/
// reportingController, the deprecated* fields), with the events.k8s.io/v1 create validation.
TEST_F(SimApi, EventsAreServedAsCoreV1AndEventsV1FromOneStore) {
    const std::string core_events = "/api/v1/namespaces/default/events";
    const std::string v1_events = "/apis/events.k8s.io/v1/namespaces/default/events";
    bool listed = false;
    const auto resources = parse(sim.get("/apis/events.k8s.io/v1").body);
    for (const auto& r : resources["resources"].GetArray())
        listed |= std::string(r["name"].GetString()) == "events";
    EXPECT_TRUE(listed);
    EXPECT_NE(sim.get("/apis").body.find(R"("groupVersion":"events.k8s.io/v1")"),
              std::string::npos);

    auto created = sim.request(
        "POST", v1_events,
        R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"web.1"},)"
        R"("eventTime":"2026-11-28T10:00:00.000000Z","reportingController":"example.com/ctl",)"
        R"("reportingInstance":"ctl-1","action":"Scaling","reason":"Tested","type":"Normal",)"
        R"("note":"hello","regarding":{"kind":"Deployment","name":"web","namespace":"default"},)"
        R"("deprecatedCount":3})");
    ASSERT_EQ(created.status, 201) << created.body;
    EXPECT_EQ(str(parse(created.body), "/apiVersion"), "events.k8s.io/v1");
    EXPECT_EQ(str(parse(created.body), "/note"), "hello");
    const auto core = parse(sim.get(core_events + "/web.1").body);
    EXPECT_EQ(str(core, "/apiVersion"), "v1");
    EXPECT_EQ(str(core, "/message"), "hello");
    EXPECT_EQ(str(core, "/involvedObject/name"), "web");
    EXPECT_EQ(str(core, "/reportingComponent"), "example.com/ctl");
    EXPECT_EQ(str(core, "/count"), "3");
    EXPECT_EQ(str(core, "/note"), "<missing>");

    // A core event read as events.k8s.io/v1, in a list and in a watch.
    ASSERT_EQ(sim.request("POST", core_events,
                          R"({"metadata":{"name":"pod.2"},"involvedObject":{"kind":"Pod",)"
                          R"("name":"solo"},"reason":"Hello","message":"from core",)"
                          R"("type":"Warning","source":{"component":"kubelet"}})")
                  .status,
              201);
    const auto list = parse(sim.get(v1_events).body);
    EXPECT_EQ(str(list, "/apiVersion"), "events.k8s.io/v1");
    ASSERT_EQ(list["items"].Size(), 2u);
    const auto lines = sim.watch(v1_events + "?watch=true&timeoutSeconds=2", 2, 5s);
    ASSERT_EQ(lines.size(), 2u);
    const auto pod_event = parse(lines[0]); // replayed in key order: pod.2, then web.1
    EXPECT_EQ(str(pod_event, "/object/metadata/name"), "pod.2");
    EXPECT_EQ(str(pod_event, "/object/apiVersion"), "events.k8s.io/v1");
    EXPECT_EQ(str(pod_event, "/object/note"), "from core");
    EXPECT_EQ(str(pod_event, "/object/regarding/name"), "solo");
    EXPECT_EQ(str(pod_event, "/object/deprecatedSource/component"), "kubelet");
    EXPECT_EQ(str(pod_event, "/object/message"), "<missing>");

    // A merge patch through events.k8s.io/v1 names its fields.
    ASSERT_EQ(sim.request("PATCH", v1_events + "/web.1", R"({"note":"patched"})",
                          "application/merge-patch+json")
                  .status,
              200);
    EXPECT_EQ(str(parse(sim.get(core_events + "/web.1").body), "/message"), "patched");

    // events.k8s.io/v1 validates what core/v1 lets through.
    const auto bad =
        sim.request("POST", v1_events, R"({"metadata":{"name":"bad"},"type":"Odd","reason":"R"})");
    EXPECT_EQ(bad.status, 422) << bad.body;
    const std::string message = str(parse(bad.body), "/message");
    for (const char* field : {"eventTime: Required value", "type: Invalid value: \"Odd\"",
                              "reportingController: Required value",
                              "reportingInstance: Required value", "action: Required value"})
        EXPECT_NE(message.find(field), std::string::npos) << message;
    EXPECT_EQ(message.find("reason:"), std::string::npos) << message;
}

// Server-side apply as the real field manager does it: create when absent, an Apply entry per
// manager, 409 with one cause per field another manager owns unless forced, and what a manager no
// longer applies removed unless someone else owns it.
TEST_F(SimApi, ServerSideApplyCreatesOwnsConflictsAndRemovesWhatIsNoLongerApplied) {
    const std::string web = deployments + "/web";
    const auto apply = [&](const std::string& manager, const std::string& body,
                           const std::string& extra = "") {
        return sim.request("PATCH", web + "?fieldManager=" + manager + extra, body,
                           "application/apply-patch+yaml");
    };
    const auto config = [](const std::string& replicas, const std::string& env) {
        return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web",)"
               R"("labels":{"app":"web"}},"spec":{"replicas":)" +
               replicas +
               R"(,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":)"
               R"({"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"nginx",)"
               R"("env":[)" +
               env + "]}]}}}}";
    };
    EXPECT_EQ(apply("", config("2", "")).status, 400); // a fieldManager is required

    auto r = apply("ops", config("2", R"({"name":"A","value":"1"},{"name":"B","value":"2"})"));
    ASSERT_EQ(r.status, 201) << r.body; // created
    auto doc = parse(r.body);
    ASSERT_EQ(doc["metadata"]["managedFields"].Size(), 1u);
    const auto& entry = doc["metadata"]["managedFields"][0];
    EXPECT_EQ(str(entry, "/operation"), "Apply");
    EXPECT_EQ(str(entry, "/manager"), "ops");
    EXPECT_EQ(str(entry, "/apiVersion"), "apps/v1");
    EXPECT_NE(test::json_text(entry["fieldsV1"])
                  .find(R"("k:{\"name\":\"app\"}":{".":{},"f:env":{"k:{\"name\":\"A\"}")"),
              std::string::npos)
        << test::json_text(entry["fieldsV1"]);
    // An applied configuration owns leaves and keyed items, not the maps that hold them.
    EXPECT_EQ(test::json_text(entry["fieldsV1"]["f:metadata"]), R"({"f:labels":{"f:app":{}}})");
    EXPECT_EQ(test::json_text(entry["fieldsV1"]["f:spec"]["f:template"]["f:metadata"]),
              R"({"f:labels":{"f:app":{}}})");
    const std::string version = str(doc, "/metadata/resourceVersion");

    // The same configuration again changes nothing.
    r = apply("ops", config("2", R"({"name":"A","value":"1"},{"name":"B","value":"2"})"));
    EXPECT_EQ(str(parse(r.body), "/metadata/resourceVersion"), version);

    // Another manager may co-own a field at the same value, not change it.
    r = apply("autoscaler", R"({"apiVersion":"apps/v1","kind":"Deployment",)"
                            R"("metadata":{"name":"web"},"spec":{"replicas":5}})");
    ASSERT_EQ(r.status, 409) << r.body;
    doc = parse(r.body);
    EXPECT_EQ(str(doc, "/reason"), "Conflict");
    EXPECT_EQ(str(doc, "/message"),
              R"(Apply failed with 1 conflict: conflict with "ops": .spec.replicas)");
    EXPECT_EQ(str(doc, "/details/causes/0/reason"), "FieldManagerConflict");
    EXPECT_EQ(str(doc, "/details/causes/0/field"), ".spec.replicas");
    // Forced, the field changes hands.
    r = apply("autoscaler",
              R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},)"
              R"("spec":{"replicas":5}})",
              "&force=true");
    ASSERT_EQ(r.status, 200) << r.body;
    doc = parse(r.body);
    EXPECT_EQ(str(doc, "/spec/replicas"), "5");
    for (const auto& e : doc["metadata"]["managedFields"].GetArray()) {
        const std::string fields = test::json_text(e["fieldsV1"]);
        EXPECT_EQ(fields.find("f:replicas") != std::string::npos,
                  str(e, "/manager") == "autoscaler")
            << fields;
    }

    // `ops` drops env B and `replicas`: B goes; replicas, owned by the autoscaler, stays.
    r = apply("ops", R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web",)"
                     R"("labels":{"app":"web"}},"spec":{"selector":{"matchLabels":{"app":"web"}},)"
                     R"("template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":)"
                     R"([{"name":"app","image":"nginx","env":[{"name":"A","value":"1"}]}]}}}})");
    ASSERT_EQ(r.status, 200) << r.body;
    doc = parse(r.body);
    EXPECT_EQ(test::json_text(doc["spec"]["template"]["spec"]["containers"][0]["env"]),
              R"([{"name":"A","value":"1"}])");
    EXPECT_EQ(str(doc, "/spec/replicas"), "5");

    // An Update's manager is named with its version and time; YAML that is not JSON is read too.
    ASSERT_EQ(sim.request("PATCH", web + "?fieldManager=editor",
                          R"({"spec":{"template":{"spec":{"containers":[{"name":"app",)"
                          R"("image":"nginx:2"}]}}}})",
                          "application/strategic-merge-patch+json")
                  .status,
              200);
    r = apply("ops",
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
              "  template:\n    spec:\n      containers:\n      - {name: app, image: nginx}\n");
    ASSERT_EQ(r.status, 409) << r.body;
    const std::string message = str(parse(r.body), "/message");
    EXPECT_EQ(message.rfind(
                  "Apply failed with 1 conflict: conflict with \"editor\" using apps/v1 at ", 0),
              0u)
        << message;
    EXPECT_NE(message.find(R"(: .spec.template.spec.containers[name="app"].image)"),
              std::string::npos)
        << message;
}

TEST_F(SimApi, CreateTwiceIsAlreadyExists) {
    create_deployment();
    const auto again = sim.request("POST", deployments, deployment_json);
    EXPECT_EQ(again.status, 409);
    EXPECT_EQ(str(parse(again.body), "/reason"), "AlreadyExists");
}

TEST_F(SimApi, StaleResourceVersionIsConflict) {
    const std::string rv = create_deployment();
    auto d = parse(sim.get(deployments + "/web").body);
    rapidjson::Pointer("/spec/replicas").Set(d, 3);
    const std::string body = sim::to_string(d); // carries the resourceVersion read above
    const auto first = sim.request("PUT", deployments + "/web", body);
    ASSERT_EQ(first.status, 200) << first.body;
    EXPECT_NE(rv, str(parse(first.body), "/metadata/resourceVersion"));
    const auto stale = sim.request("PUT", deployments + "/web", body);
    EXPECT_EQ(stale.status, 409);
    const auto status = parse(stale.body);
    EXPECT_EQ(str(status, "/reason"), "Conflict");
    EXPECT_EQ(str(status, "/message"), "Operation cannot be fulfilled on deployments.apps \"web\": "
                                       "the object has been modified; please apply your "
                                       "changes to the latest version and try again");
    // built-in kinds accept an update without a resourceVersion (unconditional)
    rapidjson::Pointer("/metadata/resourceVersion").Erase(d);
    EXPECT_EQ(sim.request("PUT", deployments + "/web", sim::to_string(d)).status, 200);
}

TEST_F(SimApi, GenerationCountsSpecChangesOnly) {
    create_deployment();
    auto patch = [&](const std::string& path, const std::string& body) {
        return parse(sim.request("PATCH", path, body, "application/merge-patch+json").body);
    };
    EXPECT_EQ(str(patch(deployments + "/web", R"({"metadata":{"labels":{"x":"y"}}})"),
                  "/metadata/generation"),
              "1");
    EXPECT_EQ(
        str(patch(deployments + "/web", R"({"spec":{"replicas":5}})"), "/metadata/generation"),
        "2");
    const auto status =
        patch(deployments + "/web/status", R"({"status":{"replicas":5},"spec":{"replicas":9}})");
    EXPECT_EQ(str(status, "/metadata/generation"), "2");
    EXPECT_EQ(str(status, "/spec/replicas"), "5"); // spec writes through /status are ignored
    EXPECT_EQ(str(status, "/status/replicas"), "5");
    const auto main = patch(deployments + "/web", R"({"status":{"replicas":1}})");
    EXPECT_EQ(str(main, "/status/replicas"),
              "5"); // status writes through the main endpoint are ignored
}

TEST_F(SimApi, ScaleSubresource) {
    create_deployment();
    const auto scale = parse(sim.get(deployments + "/web/scale").body);
    EXPECT_EQ(str(scale, "/kind"), "Scale");
    EXPECT_EQ(str(scale, "/apiVersion"), "autoscaling/v1");
    EXPECT_EQ(str(scale, "/spec/replicas"), "2");
    EXPECT_EQ(str(scale, "/status/replicas"), "0");
    EXPECT_EQ(str(scale, "/status/selector"), "app=web");

    const std::string stale =
        R"({"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web","resourceVersion":"1"},"spec":{"replicas":4}})";
    EXPECT_EQ(sim.request("PUT", deployments + "/web/scale", stale).status, 409);
    const std::string unconditional =
        R"({"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web"},"spec":{"replicas":4}})";
    EXPECT_EQ(str(parse(sim.request("PUT", deployments + "/web/scale", unconditional).body),
                  "/spec/replicas"),
              "4");
    const auto patched = sim.request("PATCH", deployments + "/web/scale",
                                     R"({"spec":{"replicas":0}})", "application/merge-patch+json");
    ASSERT_EQ(patched.status, 200) << patched.body;
    EXPECT_EQ(str(parse(patched.body), "/spec/replicas"), "<missing>"); // omitempty: 0 is left out
    EXPECT_EQ(str(parse(sim.get(deployments + "/web").body), "/spec/replicas"), "0");
}

TEST_F(SimApi, Patches) {
    create_deployment();
    const auto merged = sim.request("PATCH", deployments + "/web",
                                    R"({"metadata":{"labels":{"app":null,"tier":"fe"}}})",
                                    "application/merge-patch+json");
    const auto m = parse(merged.body);
    EXPECT_EQ(str(m, "/metadata/labels/app"), "<missing>");
    EXPECT_EQ(str(m, "/metadata/labels/tier"), "fe");
    const auto json_patch = sim.request(
        "PATCH", deployments + "/web",
        R"([{"op":"test","path":"/spec/replicas","value":2},{"op":"replace","path":"/spec/replicas","value":7}])",
        "application/json-patch+json");
    EXPECT_EQ(str(parse(json_patch.body), "/spec/replicas"), "7");
    const auto failed_test = sim.request("PATCH", deployments + "/web",
                                         R"([{"op":"test","path":"/spec/replicas","value":2}])",
                                         "application/json-patch+json");
    EXPECT_EQ(failed_test.status, 422);
    const auto unknown = sim.request("PATCH", deployments + "/web", "{}", "application/yaml");
    EXPECT_EQ(unknown.status, 415);
    // The message lists every patch type the kind accepts (strategic merge too, for built-ins).
    EXPECT_EQ(str(parse(unknown.body), "/message"),
              "the body of the request was in an unknown format - accepted media types include: "
              "application/json-patch+json, application/merge-patch+json, "
              "application/strategic-merge-patch+json, application/apply-patch+yaml");
}

// Fields with upstream's patch strategy `replace` (a PodDisruptionBudget's selector) are replaced
// whole by a strategic merge patch, not merged.
TEST_F(SimApi, StrategicMergeReplacesWhatUpstreamReplaces) {
    const std::string pdbs = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
    ASSERT_EQ(sim.request("POST", pdbs,
                          R"({"metadata":{"name":"p"},"spec":{"minAvailable":1,)"
                          R"("selector":{"matchLabels":{"app":"web","tier":"fe"}}}})")
                  .status,
              201);
    const auto r =
        sim.request("PATCH", pdbs + "/p", R"({"spec":{"selector":{"matchLabels":{"app":"api"}}}})",
                    "application/strategic-merge-patch+json");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(str(parse(r.body), "/spec/selector/matchLabels/app"), "api");
    EXPECT_EQ(str(parse(r.body), "/spec/selector/matchLabels/tier"), "<missing>");
    EXPECT_EQ(str(parse(r.body), "/spec/minAvailable"), "1");
}

TEST_F(SimApi, MergePatchesOfLargeMapsAreLinear) {
    // 60,000 labels, then a patch that removes every even one, changes every third and adds
    // 60,000 more: one lookup per member (the linear search made this ~10^10 steps).
    const int n = 60000;
    std::string labels;
    for (int i = 0; i < n; ++i)
        labels += (i ? "," : "") + std::string("\"k") + std::to_string(i) + "\":\"v\"";
    ASSERT_EQ(sim.request("POST", "/api/v1/namespaces/default/configmaps",
                          R"({"metadata":{"name":"big","labels":{)" + labels + "}}}")
                  .status,
              201);
    std::string patch;
    for (int i = 0; i < n; ++i) {
        patch += (i ? "," : "") + std::string("\"k") + std::to_string(i) + "\":";
        patch += i % 2 == 0 ? "null" : (i % 3 == 0 ? "\"w\"" : "\"v\"");
        patch += ",\"new" + std::to_string(i) + "\":\"x\"";
    }
    const auto patched =
        sim.request("PATCH", "/api/v1/namespaces/default/configmaps/big",
                    R"({"metadata":{"labels":{)" + patch + "}}}", "application/merge-patch+json");
    ASSERT_EQ(patched.status, 200) << patched.body.substr(0, 300);
    const auto doc = parse(patched.body);
    EXPECT_EQ(doc["metadata"]["labels"].MemberCount(), static_cast<unsigned>(n / 2 + n));
    EXPECT_EQ(str(doc, "/metadata/labels/k0"), "<missing>");
    EXPECT_EQ(str(doc, "/metadata/labels/k1"), "v");
    EXPECT_EQ(str(doc, "/metadata/labels/k3"), "w");
    EXPECT_EQ(str(doc, "/metadata/labels/new59999"), "x");
    // the same patch again leaves the same labels
    const auto again =
        sim.request("PATCH", "/api/v1/namespaces/default/configmaps/big",
                    R"({"metadata":{"labels":{)" + patch + "}}}", "application/merge-patch+json");
    ASSERT_EQ(again.status, 200);
    EXPECT_EQ(parse(again.body)["metadata"]["labels"].MemberCount(),
              static_cast<unsigned>(n / 2 + n));
}

TEST_F(SimApi, AListAtAVersionNotYetReachedIsTooLargeAndAWatchFromItWaits) {
    ASSERT_EQ(
        sim.request("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"a"}})")
            .status,
        201);
    // a list at a version far ahead waits (3 s, as the watch cache) and is then refused
    const auto ahead = sim.get("/api/v1/namespaces/default/configmaps?resourceVersion=99999999");
    EXPECT_EQ(ahead.status, 504);
    const auto status = parse(ahead.body);
    EXPECT_EQ(str(status, "/reason"), "Timeout");
    EXPECT_EQ(str(status, "/details/causes/0/reason"), "ResourceVersionTooLarge");
    EXPECT_NE(str(status, "/message").find("Too large resource version: 99999999"),
              std::string::npos);
    // "0" and Exact are answered at once
    EXPECT_EQ(sim.get("/api/v1/namespaces/default/configmaps?resourceVersion=0").status, 200);
}

TEST_F(SimApi, CustomResources) {
    ASSERT_EQ(
        sim.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd_json)
            .status,
        201);
    std::this_thread::sleep_for(50ms); // the Established condition is written right after
    const auto crd = parse(
        sim.get(
               "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.hpaplus.io")
            .body);
    EXPECT_EQ(str(crd, "/status/conditions/1/type"), "Established");
    EXPECT_EQ(str(parse(sim.get("/apis/example.hpaplus.io/v1").body), "/resources/0/name"),
              "widgets");

    const std::string widgets = "/apis/example.hpaplus.io/v1/namespaces/default/widgets";
    const auto created = sim.request(
        "POST", widgets,
        R"({"apiVersion":"example.hpaplus.io/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"replicas":3,"color":"blue",)"
        R"("parts":[{"name":"a","weight":1},{"name":"b","weight":2,"tag":"x"},{"name":"c"}],)"
        R"("checks":[{"type":"Synced","status":"True"},{"type":"Ready","status":"False"}]},"status":{"replicas":9}})");
    ASSERT_EQ(created.status, 201) << created.body;
    EXPECT_EQ(str(parse(created.body), "/status/replicas"),
              "<missing>"); // status is dropped on create
    // custom resources need a resourceVersion on update
    const auto unconditional = sim.request(
        "PUT", widgets + "/w1",
        R"({"apiVersion":"example.hpaplus.io/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{}})");
    EXPECT_EQ(unconditional.status, 422);
    EXPECT_EQ(str(parse(unconditional.body), "/reason"), "Invalid");
    // strategic merge patches are not for custom resources
    const auto strategic =
        sim.request("PATCH", widgets + "/w1", "{}", "application/strategic-merge-patch+json");
    EXPECT_EQ(strategic.status, 415);
    EXPECT_EQ(str(parse(strategic.body), "/message"),
              "the body of the request was in an unknown format - accepted media types include: "
              "application/json-patch+json, application/merge-patch+json, "
              "application/apply-patch+yaml");

    const auto table =
        parse(sim.request("GET", widgets, "", "",
                          "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
                  .body);
    EXPECT_EQ(str(table, "/kind"), "Table");
    EXPECT_EQ(str(table, "/columnDefinitions/0/name"), "Name");
    EXPECT_EQ(str(table, "/columnDefinitions/1/name"), "Replicas");
    EXPECT_EQ(str(table, "/rows/0/cells/0"), "w1");
    EXPECT_EQ(str(table, "/rows/0/cells/1"), "3");
    EXPECT_EQ(str(table, "/rows/0/cells/2"), "blue");
    // JSONPath as kube-apiserver's column printer takes it: indexes (from the end when negative),
    // filters, wildcards; the first match, or nothing.
    EXPECT_EQ(str(table, "/rows/0/cells/3"), "a");
    EXPECT_EQ(str(table, "/rows/0/cells/4"), "c");
    EXPECT_EQ(str(table, "/rows/0/cells/5"), "False");
    EXPECT_EQ(str(table, "/rows/0/cells/6"), "Synced");
    EXPECT_EQ(str(table, "/rows/0/cells/7"), "b");
    EXPECT_EQ(str(table, "/rows/0/cells/8"), "x");
    EXPECT_TRUE(table["rows"][0]["cells"][9].IsNull());

    EXPECT_EQ(str(parse(sim.get(widgets + "/w1/scale").body), "/spec/replicas"), "3");
    ASSERT_EQ(
        sim.request(
               "DELETE",
               "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.hpaplus.io")
            .status,
        200);
    EXPECT_EQ(sim.get(widgets).status, 404);
}

} // namespace
} // namespace hpaplus
