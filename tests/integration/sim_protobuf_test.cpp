// The simulated API server reads client-go's protobuf bodies ("k8s\0" + runtime.Unknown) as the
// real one does: typed DELETEs with DeleteOptions, Leases (leader election), Events (the event
// recorder), Services, Pods, Evictions and Scales; and answers in protobuf to a client that asks
// for it first. The bodies are built and read here by a small encoder and reader written apart
// from the server's, with the field numbers of upstream's generated.proto.
#include "../support/json_access.hpp"
#include "../support/sim_fixture.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;
using test::eventually;
using test::parse;
using test::str;

// A protobuf message under construction: fields appended in any order.
struct pb {
    std::string bytes;

    static std::string varint(std::uint64_t v) {
        std::string out;
        do {
            std::uint8_t b = v & 0x7f;
            v >>= 7;
            if (v) b |= 0x80;
            out.push_back(static_cast<char>(b));
        } while (v);
        return out;
    }
    pb& number(int field, std::uint64_t v) {
        bytes += varint(static_cast<std::uint64_t>(field) << 3) + varint(v);
        return *this;
    }
    pb& text(int field, const std::string& s) {
        bytes += varint((static_cast<std::uint64_t>(field) << 3) | 2) + varint(s.size()) + s;
        return *this;
    }
    pb& sub(int field, const pb& m) { return text(field, m.bytes); }
    pb& entry(int field, const std::string& key, const std::string& value) {
        return sub(field, pb{}.text(1, key).text(2, value));
    }
};

// A message read back: each field's varint or bytes, by number, in order.
struct read_fields {
    std::multimap<int, std::string> bytes;
    std::multimap<int, std::uint64_t> numbers;

    explicit read_fields(std::string_view data) {
        std::size_t at = 0;
        auto varint = [&] {
            std::uint64_t v = 0;
            for (int shift = 0; at < data.size(); shift += 7) {
                const auto b = static_cast<std::uint8_t>(data[at++]);
                v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
                if (!(b & 0x80)) break;
            }
            return v;
        };
        while (at < data.size()) {
            const std::uint64_t tag = varint();
            const int number = static_cast<int>(tag >> 3);
            if ((tag & 7) == 0) {
                numbers.emplace(number, varint());
            } else if ((tag & 7) == 2) {
                const auto n = varint();
                bytes.emplace(number, std::string(data.substr(at, n)));
                at += n;
            } else {
                ADD_FAILURE() << "wire type " << (tag & 7);
                return;
            }
        }
    }
    std::string text(int number) const {
        const auto it = bytes.find(number);
        return it == bytes.end() ? "<missing>" : it->second;
    }
    read_fields sub(int number) const { return read_fields(text(number)); }
};

// The envelope: magic, then Unknown{typeMeta{apiVersion, kind}, raw}.
std::string envelope(const std::string& api_version, const std::string& kind, const pb& raw) {
    return std::string("k8s\0", 4) +
           pb{}.sub(1, pb{}.text(1, api_version).text(2, kind)).text(2, raw.bytes).bytes;
}

const std::string protobuf = "application/vnd.kubernetes.protobuf";
const std::string ns = "/api/v1/namespaces/default";

TEST(SimProtobuf, ATypedDeleteCarriesItsDeleteOptions) {
    test::sim_fixture sim;
    ASSERT_EQ(sim.request("POST", ns + "/configmaps", R"({"metadata":{"name":"c"}})").status, 201);
    const std::string uid = str(parse(sim.get(ns + "/configmaps/c").body), "/metadata/uid");
    // Preconditions with another uid: 409, as the real server answers.
    auto r = sim.request("DELETE", ns + "/configmaps/c",
                         envelope("v1", "DeleteOptions",
                                  pb{}.sub(2, pb{}.text(1, "not-" + uid)).text(4, "Background")),
                         protobuf);
    EXPECT_EQ(r.status, 409) << r.body;
    r = sim.request("DELETE", ns + "/configmaps/c",
                    envelope("v1", "DeleteOptions",
                             pb{}.number(1, 0).sub(2, pb{}.text(1, uid)).text(4, "Foreground")),
                    protobuf);
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(sim.get(ns + "/configmaps/c").status, 404);
    // The same options under another group version (client-go's apps/v1 clientset).
    ASSERT_EQ(sim.request("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases",
                          R"({"metadata":{"name":"l"}})")
                  .status,
              201);
    r = sim.request("DELETE", "/apis/coordination.k8s.io/v1/namespaces/default/leases/l",
                    envelope("coordination.k8s.io/v1", "DeleteOptions", pb{}.text(4, "Orphan")),
                    protobuf);
    EXPECT_EQ(r.status, 200) << r.body;
}

TEST(SimProtobuf, LeasesEventsAndServicesAreWrittenAsJsonWouldWriteThem) {
    test::sim_fixture sim;
    // 2026-01-02T03:04:05.123456789Z as a MicroTime: kept to the microsecond.
    const pb micro = pb{}.number(1, 1767323045).number(2, 123456789);
    auto r = sim.request(
        "POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases",
        envelope("coordination.k8s.io/v1", "Lease",
                 pb{}.sub(1, pb{}.text(1, "leader"))
                     .sub(2, pb{}.text(1, "me").number(2, 15).sub(4, micro).number(5, 0))),
        protobuf);
    ASSERT_EQ(r.status, 201) << r.body;
    auto doc = parse(r.body);
    EXPECT_EQ(str(doc, "/spec/holderIdentity"), "me");
    EXPECT_EQ(str(doc, "/spec/leaseDurationSeconds"), "15");
    EXPECT_EQ(str(doc, "/spec/renewTime"), "2026-01-02T03:04:05.123456Z");
    EXPECT_EQ(str(doc, "/spec/leaseTransitions"), "0"); // a pointer: zero is kept
    EXPECT_EQ(str(doc, "/spec/acquireTime"), "<missing>");

    r = sim.request("POST", ns + "/events",
                    envelope("v1", "Event",
                             pb{}.sub(1, pb{}.text(1, "web.1"))
                                 .sub(2, pb{}.text(1, "Pod").text(2, "default").text(3, "web"))
                                 .text(3, "Started")
                                 .text(4, "container started")
                                 .sub(5, pb{}.text(1, "kubelet").text(2, "node-1"))
                                 .sub(6, pb{}.number(1, 1767323045))
                                 .sub(7, pb{}.number(1, 1767323045))
                                 .number(8, 2)
                                 .text(9, "Normal")),
                    protobuf);
    ASSERT_EQ(r.status, 201) << r.body;
    doc = parse(r.body);
    EXPECT_EQ(str(doc, "/involvedObject/name"), "web");
    EXPECT_EQ(str(doc, "/source/host"), "node-1");
    EXPECT_EQ(str(doc, "/count"), "2");
    EXPECT_EQ(str(doc, "/lastTimestamp"), "2026-01-02T03:04:05Z");

    r = sim.request(
        "POST", ns + "/services",
        envelope("v1", "Service",
                 pb{}.sub(1, pb{}.text(1, "front"))
                     .sub(2, pb{}.sub(1, pb{}.text(1, "http").text(2, "TCP").number(3, 80).sub(
                                             4, pb{}.number(1, 0).number(2, 8080)))
                                 .entry(2, "app", "web")
                                 .text(4, "ClusterIP"))),
        protobuf);
    ASSERT_EQ(r.status, 201) << r.body;
    doc = parse(r.body);
    EXPECT_EQ(str(doc, "/spec/ports/0/targetPort"), "8080");
    EXPECT_EQ(str(doc, "/spec/selector/app"), "web");
    EXPECT_EQ(str(doc, "/spec/type"), "ClusterIP");
}

TEST(SimProtobuf, ScalesAndEvictionsAndMalformedBodies) {
    test::sim_fixture sim;
    const std::string deployments = "/apis/apps/v1/namespaces/default/deployments";
    ASSERT_EQ(
        sim.request("POST", deployments,
                    R"({"metadata":{"name":"web"},"spec":{"replicas":1,"selector":)"
                    R"({"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":)"
                    R"({"app":"web"}},"spec":{"containers":[{"name":"a","image":"nginx"}]}}}})")
            .status,
        201);
    auto r = sim.request(
        "PUT", deployments + "/web/scale",
        envelope("autoscaling/v1", "Scale",
                 pb{}.sub(1, pb{}.text(1, "web").text(3, "default")).sub(2, pb{}.number(1, 3))),
        protobuf);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(str(parse(sim.get(deployments + "/web").body), "/spec/replicas"), "3");
    std::string pod;
    ASSERT_TRUE(eventually([&] {
        const auto list = parse(sim.get(ns + "/pods?labelSelector=app%3Dweb").body);
        if (list["items"].Empty()) return false;
        pod = list["items"][0]["metadata"]["name"].GetString();
        return true;
    }));
    r = sim.request(
        "POST", ns + "/pods/" + pod + "/eviction",
        envelope("policy/v1", "Eviction",
                 pb{}.sub(1, pb{}.text(1, pod).text(3, "default")).sub(2, pb{}.number(1, 0))),
        protobuf);
    EXPECT_EQ(r.status, 201) << r.body;
    // A Time beyond year 2262 (our nanosecond clock), a body cut short, a kind not decoded: 415
    // with what went wrong.
    r = sim.request(
        "POST", ns + "/events",
        envelope("v1", "Event", pb{}.sub(1, pb{}.text(1, "e")).sub(6, pb{}.number(1, 1ull << 62))),
        protobuf);
    EXPECT_EQ(r.status, 415);
    EXPECT_EQ(str(parse(r.body), "/message"), "the protobuf body of Event is malformed");
    // A field with another wire type than its own (a name sent as a number) is malformed.
    r = sim.request("POST", ns + "/configmaps",
                    envelope("v1", "ConfigMap", pb{}.sub(1, pb{}.number(1, 7))), protobuf);
    EXPECT_EQ(r.status, 415);
    EXPECT_EQ(str(parse(r.body), "/message"), "the protobuf body of ConfigMap is malformed");
    const std::string whole = envelope("v1", "Service", pb{}.sub(1, pb{}.text(1, "x")));
    r = sim.request("POST", ns + "/services", whole.substr(0, whole.size() - 1), protobuf);
    EXPECT_EQ(r.status, 415) << r.body;
    r = sim.request(
        "POST", "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies",
        envelope("networking.k8s.io/v1", "NetworkPolicy", pb{}.sub(1, pb{}.text(1, "d"))),
        protobuf);
    EXPECT_EQ(r.status, 415);
    EXPECT_NE(str(parse(r.body), "/message").find("networking.k8s.io/v1 NetworkPolicy"),
              std::string::npos);
}

// A container as client-go encodes it: the probe's handler and a volume's source are embedded
// messages (inline in JSON), every non-pointer field is written even when zero, the status is an
// empty message.
pb web_container() {
    return pb{}
        .text(1, "app")
        .text(2, "nginx:1.27")
        .sub(8, pb{})
        .sub(9, pb{}.text(1, "config").text(3, "/etc/app").text(4, ""))
        .sub(11,
             pb{}.sub(1, pb{}.sub(
                             2, pb{}.text(1, "/healthz").sub(2, pb{}.number(1, 0).number(2, 8080))))
                 .number(4, 5))
        .number(16, 0)
        .text(20, "");
}
pb web_template() {
    return pb{}
        .sub(1, pb{}.entry(11, "app", "web"))
        .sub(2, pb{}.sub(1, pb{}.text(1, "config")
                                .sub(2, pb{}.sub(19, pb{}.sub(1, pb{}.text(1, "web-config")))))
                    .sub(2, web_container())
                    .text(3, "Never")
                    .sub(14, pb{}));
}

TEST(SimProtobuf, WorkloadsJobsAndPriorityClassesAsClientGoSendsThem) {
    test::sim_fixture sim;
    const std::string apps = "/apis/apps/v1/namespaces/default";
    const pb selector = pb{}.entry(1, "app", "web");
    // A Job with its pointer fields (parallelism 2, suspend false written) and the empty status.
    auto r =
        sim.request("POST", "/apis/batch/v1/namespaces/default/jobs",
                    envelope("batch/v1", "Job",
                             pb{}.sub(1, pb{}.text(1, "once"))
                                 .sub(2, pb{}.number(1, 2).sub(6, web_template()).number(10, 0))
                                 .sub(3, pb{})),
                    protobuf);
    ASSERT_EQ(r.status, 201) << r.body;
    auto job = parse(r.body);
    EXPECT_EQ(str(job, "/spec/parallelism"), "2");
    EXPECT_EQ(str(job, "/spec/suspend"), "false");
    EXPECT_EQ(str(job, "/spec/template/spec/restartPolicy"), "Never");
    EXPECT_EQ(str(job, "/spec/template/spec/containers/0/readinessProbe/httpGet/path"), "/healthz");
    EXPECT_EQ(str(job, "/spec/template/spec/containers/0/readinessProbe/httpGet/port"), "8080");
    EXPECT_EQ(str(job, "/spec/template/spec/containers/0/readinessProbe/periodSeconds"), "5");
    EXPECT_EQ(str(job, "/spec/template/spec/containers/0/volumeMounts/0/mountPath"), "/etc/app");
    EXPECT_EQ(str(job, "/spec/template/spec/volumes/0/configMap/name"), "web-config");
    EXPECT_EQ(str(job, "/spec/selector/matchLabels/batch.kubernetes.io~1controller-uid"),
              str(job, "/metadata/uid"));
    // A StatefulSet with its update strategy and partition, a ReplicaSet and a DaemonSet.
    const pb always =
        pb{}.sub(1, pb{}.entry(11, "app", "web")).sub(2, pb{}.sub(2, web_container()));
    r = sim.request(
        "POST", apps + "/statefulsets",
        envelope("apps/v1", "StatefulSet",
                 pb{}.sub(1, pb{}.text(1, "db"))
                     .sub(2, pb{}.number(1, 0)
                                 .sub(2, selector)
                                 .sub(3, always)
                                 .text(5, "db")
                                 .text(6, "Parallel")
                                 .sub(7, pb{}.text(1, "RollingUpdate").sub(2, pb{}.number(1, 1))))),
        protobuf);
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/spec/replicas"), "0"); // a pointer: zero kept
    EXPECT_EQ(str(parse(r.body), "/spec/updateStrategy/rollingUpdate/partition"), "1");
    EXPECT_EQ(str(parse(r.body), "/spec/podManagementPolicy"), "Parallel");
    r = sim.request("POST", apps + "/replicasets",
                    envelope("apps/v1", "ReplicaSet",
                             pb{}.sub(1, pb{}.text(1, "rs"))
                                 .sub(2, pb{}.number(1, 0).sub(2, selector).sub(3, always))),
                    protobuf);
    ASSERT_EQ(r.status, 201) << r.body;
    r = sim.request(
        "POST", apps + "/daemonsets",
        envelope(
            "apps/v1", "DaemonSet",
            pb{}.sub(1, pb{}.text(1, "agent"))
                .sub(2, pb{}.sub(1, selector).sub(2, always).sub(3, pb{}.text(1, "OnDelete")))),
        protobuf);
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/spec/updateStrategy/type"), "OnDelete");
    r = sim.request("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
                    envelope("scheduling.k8s.io/v1", "PriorityClass",
                             pb{}.sub(1, pb{}.text(1, "batch-low")).number(2, 100).text(4, "low")),
                    protobuf);
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/value"), "100");
    EXPECT_EQ(str(parse(r.body), "/preemptionPolicy"), "PreemptLowerPriority");
    // A field the decoder does not keep, carrying a value, is refused rather than dropped; the
    // same field at zero is what Go's encoder writes for an unset one and passes.
    r = sim.request(
        "POST", apps + "/replicasets",
        envelope(
            "apps/v1", "ReplicaSet",
            pb{}.sub(1, pb{}.text(1, "rs2"))
                .sub(2, pb{}.sub(2, selector)
                            .sub(3, pb{}.sub(2, pb{}.sub(18, pb{}.sub(1, pb{}.text(9, "x"))))))),
        protobuf);
    EXPECT_EQ(r.status, 415) << r.body;
    EXPECT_EQ(str(parse(r.body), "/message"),
              "the protobuf body of ReplicaSet: field 18 of spec.template.spec is not decoded by "
              "the simulated cluster; send application/json");
    // A status written through the status subresource would need it decoded: refused.
    r = sim.request("PUT", apps + "/replicasets/rs/status",
                    envelope("apps/v1", "ReplicaSet",
                             pb{}.sub(1, pb{}.text(1, "rs"))
                                 .sub(2, pb{}.sub(2, selector).sub(3, always))
                                 .sub(3, pb{}.number(1, 3))),
                    protobuf);
    EXPECT_EQ(r.status, 415) << r.body;
    // events.k8s.io/v1 Events, what client-go's newer recorder writes.
    r = sim.request(
        "POST", "/apis/events.k8s.io/v1/namespaces/default/events",
        envelope("events.k8s.io/v1", "Event",
                 pb{}.sub(1, pb{}.text(1, "e1"))
                     .sub(2, pb{}.number(1, 1700000000).number(2, 5000))
                     .text(4, "hpaplus/controller")
                     .text(5, "hpaplus-0")
                     .text(6, "Scale")
                     .text(7, "SuccessfulRescale")
                     .sub(8, pb{}.text(1, "Deployment").text(2, "default").text(3, "web"))
                     .text(10, "New size: 4")
                     .text(11, "Normal")),
        protobuf);
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(str(parse(r.body), "/regarding/name"), "web");
    EXPECT_EQ(str(parse(r.body), "/note"), "New size: 4");
}

// A client that asks for protobuf first (client-go's typed clients, kubectl's typed commands)
// gets it for what the tables describe entirely — objects, lists, Status errors — and JSON for the
// rest (an object whose status they do not describe), which such clients read as well.
TEST(SimProtobuf, AnswersInProtobufWhenAskedFirstAndTheTablesDescribeTheAnswer) {
    test::sim_fixture sim;
    const std::string first = protobuf + ", application/json";
    ASSERT_EQ(sim.request("POST", ns + "/configmaps",
                          R"({"metadata":{"name":"c","labels":{"k":"v"}},"data":{"a":"b"}})")
                  .status,
              201);
    auto r = sim.request("GET", ns + "/configmaps/c", "", "", first);
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.headers["content-type"], protobuf);
    ASSERT_EQ(r.body.substr(0, 4), std::string("k8s\0", 4));
    const read_fields unknown(std::string_view(r.body).substr(4));
    EXPECT_EQ(unknown.sub(1).text(1), "v1");
    EXPECT_EQ(unknown.sub(1).text(2), "ConfigMap");
    const read_fields config_map = unknown.sub(2);
    const read_fields meta = config_map.sub(1);
    EXPECT_EQ(meta.text(1), "c");
    EXPECT_EQ(meta.text(3), "default");
    EXPECT_EQ(meta.sub(11).text(1), "k"); // labels: map entries {key, value}
    EXPECT_EQ(meta.sub(11).text(2), "v");
    EXPECT_FALSE(meta.sub(8).numbers.empty()); // creationTimestamp: seconds
    EXPECT_EQ(meta.sub(17).text(2), "Update"); // managedFields: the operation, and fieldsV1
    EXPECT_EQ(meta.sub(17).sub(7).text(1).substr(0, 2), "{\""); // as the JSON text it holds
    EXPECT_EQ(config_map.sub(2).text(1), "a");
    EXPECT_EQ(config_map.sub(2).text(2), "b");
    // A list: {metadata = ListMeta, items}.
    r = sim.request("GET", ns + "/configmaps", "", "", first);
    EXPECT_EQ(r.headers["content-type"], protobuf);
    const read_fields list = read_fields(std::string_view(r.body).substr(4)).sub(2);
    EXPECT_FALSE(list.sub(1).text(2).empty()); // resourceVersion
    EXPECT_GE(list.bytes.count(2), 1u);
    // An error is a Status.
    r = sim.request("GET", ns + "/configmaps/nope", "", "", first);
    EXPECT_EQ(r.status, 404);
    ASSERT_EQ(r.headers["content-type"], protobuf);
    const read_fields status = read_fields(std::string_view(r.body).substr(4)).sub(2);
    EXPECT_EQ(status.text(2), "Failure");
    EXPECT_EQ(status.text(4), "NotFound");
    EXPECT_EQ(status.numbers.find(6)->second, 404u);
    // A pod with the status its kubelet reports (PodStatus, ContainerStatus, container states).
    ASSERT_EQ(
        sim.request("POST", ns + "/pods",
                    R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"x"}]}})")
            .status,
        201);
    ASSERT_TRUE(eventually(
        [&] { return str(parse(sim.get(ns + "/pods/p").body), "/status/phase") == "Running"; }));
    r = sim.request("GET", ns + "/pods/p", "", "", first);
    ASSERT_EQ(r.headers["content-type"], protobuf);
    const read_fields pod_status = read_fields(std::string_view(r.body).substr(4)).sub(2).sub(3);
    EXPECT_EQ(pod_status.text(1), "Running");
    EXPECT_EQ(pod_status.text(5), "10.0.0.1");                   // hostIP
    EXPECT_EQ(pod_status.sub(12).text(1), pod_status.text(6));   // podIPs[0].ip = podIP
    EXPECT_EQ(pod_status.sub(8).text(1), "a");                   // containerStatuses[0].name
    EXPECT_FALSE(pod_status.sub(8).sub(2).sub(2).bytes.empty()); // state.running.startedAt
    // What the tables do not describe entirely is JSON: a Node's status.
    r = sim.request("GET", "/api/v1/nodes/sim-node-1", "", "", first);
    EXPECT_EQ(r.headers["content-type"], "application/json");
    EXPECT_EQ(str(parse(r.body), "/metadata/name"), "sim-node-1");
    r = sim.request("GET", ns + "/configmaps/c", "", "", "application/json, " + protobuf);
    EXPECT_EQ(r.headers["content-type"], "application/json");
    // A TokenReview both ways (what an aggregated server or webhook sends): the spec decoded, the
    // review's status encoded.
    r = sim.request("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                    envelope("authentication.k8s.io/v1", "TokenReview",
                             pb{}.sub(1, pb{}).sub(2, pb{}.text(1, "not-a-token")).sub(3, pb{})),
                    protobuf, first);
    ASSERT_EQ(r.status, 201) << r.body;
    ASSERT_EQ(r.headers["content-type"], protobuf) << r.body;
    const read_fields review = read_fields(std::string_view(r.body).substr(4)).sub(2);
    EXPECT_EQ(review.sub(2).text(1), "not-a-token");
    EXPECT_FALSE(review.sub(3).numbers.count(1) && review.sub(3).numbers.find(1)->second != 0)
        << "authenticated with a made-up token";
}

} // namespace
} // namespace hpaplus
