// The kinds every cluster serves beside the workloads the autoscaler drives: PriorityClasses and
// the Priority admission plugin, Jobs (their generated selector), DaemonSets and NetworkPolicies,
// defaulted, validated and printed as kube-apiserver does.
#include "../support/build_paths.hpp"
#include "../support/json_access.hpp"
#include "../support/sim_fixture.hpp"
#include "kube/yaml_json.hpp"
#include "sim/json_util.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;
using test::eventually;
using test::parse;
using test::str;

const std::string classes = "/apis/scheduling.k8s.io/v1/priorityclasses";
const std::string pods = "/api/v1/namespaces/default/pods";
const std::string jobs = "/apis/batch/v1/namespaces/default/jobs";
const std::string table = "application/json;as=Table;v=v1;g=meta.k8s.io";

std::string pod(const std::string& name, const std::string& spec_extra = "") {
    return R"({"metadata":{"name":")" + name + R"("},"spec":{)" + spec_extra +
           R"("containers":[{"name":"a","image":"nginx"}]}})";
}

std::string first_cause(const test::http_result& r) {
    return str(parse(r.body), "/details/causes/0/field") + ": " +
           str(parse(r.body), "/details/causes/0/message");
}

// The table's column names, in order.
std::vector<std::string> columns(const std::string& body) {
    std::vector<std::string> out;
    const auto table = parse(body);
    for (const auto& c : table["columnDefinitions"].GetArray())
        out.push_back(c["name"].GetString());
    return out;
}

TEST(SimKinds, PriorityClassesResolveAPodsPriorityAsThePriorityPluginDoes) {
    test::sim_fixture sim;
    // The two system classes exist from the start.
    const auto system = parse(sim.get(classes + "/system-node-critical").body);
    EXPECT_EQ(str(system, "/value"), "2000001000");
    EXPECT_EQ(str(parse(sim.get(classes + "/system-cluster-critical").body), "/value"),
              "2000000000");
    // A pod without a class and no global default: priority 0.
    auto r = sim.request("POST", pods, pod("plain"));
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/spec/priority"), "0");
    EXPECT_EQ(str(parse(r.body), "/spec/preemptionPolicy"), "PreemptLowerPriority");
    // A named class sets the priority and its preemption policy.
    ASSERT_EQ(sim.request("POST", classes,
                          R"({"metadata":{"name":"high"},"value":1000,"preemptionPolicy":"Never"})")
                  .status,
              201);
    r = sim.request("POST", pods, pod("important", R"("priorityClassName":"high",)"));
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/spec/priority"), "1000");
    EXPECT_EQ(str(parse(r.body), "/spec/preemptionPolicy"), "Never");
    // An update of the pod keeps what admission set.
    r = sim.request("PATCH", pods + "/important", R"({"metadata":{"labels":{"x":"y"}}})",
                    "application/merge-patch+json");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(str(parse(r.body), "/spec/priority"), "1000");
    // An unknown class, or a priority that is not the class's, is the plugin's 403.
    r = sim.request("POST", pods, pod("lost", R"("priorityClassName":"nope",)"));
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(str(parse(r.body), "/message"),
              "pods \"lost\" is forbidden: no PriorityClass with name nope was found");
    r = sim.request("POST", pods, pod("liar", R"("priorityClassName":"high","priority":5,)"));
    EXPECT_EQ(r.status, 403);
    EXPECT_NE(str(parse(r.body), "/message")
                  .find("the integer value of priority (5) must not be provided in pod spec; "
                        "priority admission controller computed 1000"),
              std::string::npos)
        << r.body;
    // A global default applies to pods that name no class; only one may exist.
    ASSERT_EQ(sim.request("POST", classes,
                          R"({"metadata":{"name":"low"},"value":10,"globalDefault":true})")
                  .status,
              201);
    r = sim.request("POST", pods, pod("defaulted"));
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/spec/priorityClassName"), "low");
    EXPECT_EQ(str(parse(r.body), "/spec/priority"), "10");
    r = sim.request("POST", classes,
                    R"({"metadata":{"name":"other"},"value":20,"globalDefault":true})");
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(str(parse(r.body), "/message"),
              "priorityclasses.scheduling.k8s.io \"other\" is forbidden: PriorityClass low is "
              "already marked as default. Only one default can exist");
    // ValidatePriorityClass: user classes stay at or below 1e9 and out of system-; value is fixed.
    r = sim.request("POST", classes, R"({"metadata":{"name":"huge"},"value":1000000001})");
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(first_cause(r),
              "value: Forbidden: maximum allowed value of a user defined priority is 1000000000");
    r = sim.request("POST", classes, R"({"metadata":{"name":"system-mine"},"value":1})");
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(first_cause(r),
              "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved "
              "for system use only. error: system-mine is not a known system priority class");
    r = sim.request("PATCH", classes + "/high", R"({"value":2000})",
                    "application/merge-patch+json");
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(first_cause(r), "value: Forbidden: may not be changed in an update.");
    r = sim.request("GET", classes, "", "", table);
    EXPECT_EQ(columns(r.body), (std::vector<std::string>{"Name", "Value", "Global-Default", "Age",
                                                         "PreemptionPolicy"}));
}

TEST(SimKinds, JobsGetTheirGeneratedSelectorDefaultsAndValidation) {
    test::sim_fixture sim;
    auto r = sim.request(
        "POST", jobs,
        R"({"metadata":{"name":"once"},"spec":{"template":{"spec":{"restartPolicy":"Never",)"
        R"("containers":[{"name":"a","image":"busybox"}]}}}})");
    ASSERT_EQ(r.status, 201) << r.body;
    const auto job = parse(r.body);
    const std::string uid = str(job, "/metadata/uid");
    EXPECT_EQ(str(job, "/spec/selector/matchLabels/batch.kubernetes.io~1controller-uid"), uid);
    EXPECT_EQ(str(job, "/spec/template/metadata/labels/controller-uid"), uid);
    EXPECT_EQ(str(job, "/spec/template/metadata/labels/batch.kubernetes.io~1job-name"), "once");
    EXPECT_EQ(str(job, "/spec/template/metadata/labels/job-name"), "once");
    EXPECT_EQ(str(job, "/metadata/labels/job-name"), "once");
    EXPECT_EQ(str(job, "/spec/completions"), "1");
    EXPECT_EQ(str(job, "/spec/parallelism"), "1");
    EXPECT_EQ(str(job, "/spec/backoffLimit"), "6");
    EXPECT_EQ(str(job, "/spec/completionMode"), "NonIndexed");
    EXPECT_EQ(str(job, "/spec/suspend"), "false");
    EXPECT_EQ(str(job, "/spec/podReplacementPolicy"), "TerminatingOrFailed");
    // The create answers the status the strategy reset: the type's zero value.
    ASSERT_TRUE(job.HasMember("status"));
    EXPECT_TRUE(job["status"].IsObject() && job["status"].ObjectEmpty());
    const auto budget =
        parse(sim.request("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
                          R"({"metadata":{"name":"b"},"spec":{"minAvailable":1}})")
                  .body);
    EXPECT_EQ(str(budget, "/status/disruptionsAllowed"), "0");
    EXPECT_EQ(str(budget, "/status/expectedPods"), "0");
    // A pod template left at restartPolicy Always (the pod default) is refused.
    r = sim.request("POST", jobs,
                    R"({"metadata":{"name":"forever"},"spec":{"template":{"spec":{)"
                    R"("containers":[{"name":"a","image":"busybox"}]}}}})");
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(first_cause(r), "spec.template.spec.restartPolicy: Unsupported value: \"Always\": "
                              "supported values: \"OnFailure\", \"Never\"");
    // completions are fixed once set; the selector too.
    r = sim.request("PATCH", jobs + "/once", R"({"spec":{"completions":3}})",
                    "application/merge-patch+json");
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(first_cause(r), "spec.completions: Invalid value: 3: field is immutable");
    r = sim.request("GET", jobs, "", "", table);
    EXPECT_EQ(columns(r.body),
              (std::vector<std::string>{"Name", "Status", "Completions", "Duration", "Age",
                                        "Containers", "Images", "Selector"}));
    const auto jobs_table = parse(r.body);
    const auto cells = jobs_table["rows"][0]["cells"].GetArray();
    EXPECT_EQ(std::string(cells[1].GetString()), "Running");
    EXPECT_EQ(std::string(cells[2].GetString()), "0/1");
}

TEST(SimKinds, DaemonSetsAndNetworkPoliciesAreDefaultedAndValidated) {
    test::sim_fixture sim;
    const std::string daemonsets = "/apis/apps/v1/namespaces/default/daemonsets";
    auto r = sim.request(
        "POST", daemonsets,
        R"({"metadata":{"name":"agent"},"spec":{"selector":{"matchLabels":{"app":"agent"}},)"
        R"("template":{"metadata":{"labels":{"app":"agent"}},"spec":{"nodeSelector":{"os":"linux"},)"
        R"("containers":[{"name":"a","image":"agent:1"}]}}}})");
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/spec/updateStrategy/type"), "RollingUpdate");
    EXPECT_EQ(str(parse(r.body), "/spec/updateStrategy/rollingUpdate/maxUnavailable"), "1");
    EXPECT_EQ(str(parse(r.body), "/spec/revisionHistoryLimit"), "10");
    r = sim.request(
        "POST", daemonsets,
        R"({"metadata":{"name":"bad"},"spec":{"selector":{"matchLabels":{"app":"x"}},)"
        R"("template":{"metadata":{"labels":{"app":"x"}},"spec":{"restartPolicy":"Never",)"
        R"("containers":[{"name":"a","image":"agent:1"}]}}}})");
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(first_cause(r), "spec.template.spec.restartPolicy: Unsupported value: \"Never\": "
                              "supported values: \"Always\"");
    r = sim.request("GET", daemonsets, "", "", table);
    EXPECT_EQ(columns(r.body), (std::vector<std::string>{
                                   "Name", "Desired", "Current", "Ready", "Up-to-date", "Available",
                                   "Node Selector", "Age", "Containers", "Images", "Selector"}));
    EXPECT_EQ(std::string(parse(r.body)["rows"][0]["cells"][6].GetString()), "os=linux");

    const std::string policies = "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies";
    r = sim.request(
        "POST", policies,
        R"({"metadata":{"name":"db"},"spec":{"podSelector":{"matchLabels":{"app":"db"}},)"
        R"("egress":[{"ports":[{"port":5432}]}]}})");
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/spec/policyTypes/0"), "Ingress");
    EXPECT_EQ(str(parse(r.body), "/spec/policyTypes/1"), "Egress");
    EXPECT_EQ(str(parse(r.body), "/spec/egress/0/ports/0/protocol"), "TCP");
    r = sim.request(
        "POST", policies,
        R"({"metadata":{"name":"odd"},"spec":{"podSelector":{},"policyTypes":["Sideways"]}})");
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(first_cause(r), "spec.policyTypes[0]: Unsupported value: \"Sideways\": supported "
                              "values: \"Ingress\", \"Egress\"");
    r = sim.request("GET", policies, "", "", table);
    EXPECT_EQ(columns(r.body), (std::vector<std::string>{"Name", "Pod-Selector", "Age"}));
    EXPECT_EQ(std::string(parse(r.body)["rows"][0]["cells"][1].GetString()), "app=db");
}

// The DaemonSet controller: a pod on each node the nodeSelector matches, pinned there by node
// affinity with the daemon tolerations; a new template replaces it (RollingUpdate); a selector no
// node matches leaves none.
TEST(SimKinds, DaemonSetsRunAPodOnEachMatchingNode) {
    test::sim_fixture sim;
    const std::string daemonsets = "/apis/apps/v1/namespaces/default/daemonsets";
    const auto agent = [](const std::string& image, const std::string& os) {
        return R"({"metadata":{"name":"agent"},"spec":{"selector":{"matchLabels":{"app":"agent"}},)"
               R"("template":{"metadata":{"labels":{"app":"agent"}},"spec":{"nodeSelector":)"
               R"({"kubernetes.io/os":")" +
               os + R"("},"containers":[{"name":"a","image":")" + image + R"("}]}}}})";
    };
    ASSERT_EQ(sim.request("POST", daemonsets, agent("agent:1", "linux")).status, 201);
    const auto agent_pods = [&] {
        return parse(sim.get(pods + "?labelSelector=app%3Dagent").body);
    };
    ASSERT_TRUE(eventually(
        [&] {
            const auto set = parse(sim.get(daemonsets + "/agent").body);
            return str(set, "/status/numberReady") == "1" &&
                   str(set, "/status/desiredNumberScheduled") == "1";
        },
        10s));
    auto list = agent_pods();
    ASSERT_EQ(list["items"].Size(), 1u);
    const auto& pod = list["items"][0];
    EXPECT_EQ(str(pod, "/spec/nodeName"), "sim-node-1");
    EXPECT_EQ(str(pod, "/metadata/ownerReferences/0/kind"), "DaemonSet");
    EXPECT_EQ(str(pod, "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
                       "nodeSelectorTerms/0/matchFields/0/values/0"),
              "sim-node-1");
    EXPECT_EQ(str(pod, "/spec/tolerations/0/key"), "node.kubernetes.io/not-ready");
    EXPECT_EQ(str(pod, "/spec/tolerations/0/operator"), "Exists");
    const std::string first_hash = str(pod, "/metadata/labels/controller-revision-hash");
    const auto revision = parse(
        sim.get("/apis/apps/v1/namespaces/default/controllerrevisions/agent-" + first_hash).body);
    EXPECT_EQ(str(revision, "/revision"), "1");
    // A new template: the pod is replaced by one of the new revision.
    ASSERT_EQ(
        sim.request("PUT", daemonsets + "/agent",
                    [&] {
                        auto doc = parse(agent("agent:2", "linux"));
                        const auto current = parse(sim.get(daemonsets + "/agent").body);
                        doc["metadata"].AddMember(
                            "resourceVersion",
                            rapidjson::Value(str(current, "/metadata/resourceVersion").c_str(),
                                             doc.GetAllocator()),
                            doc.GetAllocator());
                        return sim::to_string(doc);
                    }())
            .status,
        200);
    ASSERT_TRUE(eventually(
        [&] {
            const auto set = parse(sim.get(daemonsets + "/agent").body);
            const auto now = agent_pods();
            return str(set, "/status/updatedNumberScheduled") == "1" &&
                   str(set, "/status/numberReady") == "1" && now["items"].Size() == 1 &&
                   str(now["items"][0], "/spec/containers/0/image") == "agent:2";
        },
        15s));
    // No node runs windows: no pod.
    auto r = sim.request(
        "PATCH", daemonsets + "/agent",
        R"({"spec":{"template":{"spec":{"nodeSelector":{"kubernetes.io/os":"windows"}}}}})",
        "application/merge-patch+json");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_TRUE(eventually(
        [&] {
            const auto set = parse(sim.get(daemonsets + "/agent").body);
            return str(set, "/status/desiredNumberScheduled") == "0" &&
                   agent_pods()["items"].Empty();
        },
        15s));
}

// examples/sim/cluster-kinds.yaml applies as on a real cluster: the StatefulSet's pods take their
// class's priority, its template is revision 1, and the other kinds are stored as defaulted.
TEST(SimKinds, TheExampleAppliesWithPrioritiesAndRevisions) {
    test::sim_fixture sim;
    std::ifstream file(std::string(HPAPLUS_SOURCE_DIR) + "/examples/sim/cluster-kinds.yaml");
    std::stringstream yaml;
    yaml << file.rdbuf();
    const auto documents = kube::yaml_documents_to_json(yaml.str());
    ASSERT_TRUE(documents) << documents.error().text;
    const std::map<std::string, std::string> collection_of{
        {"PriorityClass", classes},
        {"StatefulSet", "/apis/apps/v1/namespaces/default/statefulsets"},
        {"Job", jobs},
        {"DaemonSet", "/apis/apps/v1/namespaces/default/daemonsets"},
        {"NetworkPolicy", "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies"}};
    for (const auto& document : *documents) {
        const std::string kind = str(parse(document), "/kind");
        ASSERT_TRUE(collection_of.count(kind)) << kind;
        const auto r = sim.request("POST", collection_of.at(kind), document);
        ASSERT_EQ(r.status, 201) << r.body;
    }
    ASSERT_TRUE(eventually(
        [&] {
            const auto list = parse(sim.get(pods + "?labelSelector=app%3Ddb").body);
            return list["items"].Size() == 2;
        },
        20s));
    const auto db = parse(sim.get(pods + "/db-0").body);
    EXPECT_EQ(str(db, "/spec/priority"), "100000");
    EXPECT_EQ(str(db, "/spec/preemptionPolicy"), "Never");
    const std::string revision = str(db, "/metadata/labels/controller-revision-hash");
    const auto history =
        parse(sim.get("/apis/apps/v1/namespaces/default/controllerrevisions/" + revision).body);
    EXPECT_EQ(str(history, "/revision"), "1");
    EXPECT_EQ(str(parse(sim.get(jobs + "/nightly-report").body), "/spec/backoffLimit"), "6");
    EXPECT_EQ(str(parse(sim.get("/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/"
                                "db-from-web")
                            .body),
                  "/spec/ingress/0/ports/0/protocol"),
              "TCP");
}

} // namespace
} // namespace hpaplus
