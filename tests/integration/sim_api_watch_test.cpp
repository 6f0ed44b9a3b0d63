// Integration tests: the simulated API server's watches (replay, resourceVersion, bookmarks,
// filters, compaction), namespaces' deletion, pagination and selectors, malformed requests, TLS.
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
using test::paths::deployments;

// Watches use ConfigMaps: no simulated controller writes them, so every event comes from the test.
using test::paths::configmaps;

std::string create_configmap(test::sim_fixture& sim, const std::string& name = "cfg") {
    const auto r = sim.request("POST", configmaps,
                               R"({"metadata":{"name":")" + name +
                                   R"(","labels":{"app":"web"}},"data":{"n":"1"}})");
    EXPECT_EQ(r.status, 201) << r.body;
    return str(parse(r.body), "/metadata/resourceVersion");
}

TEST_F(SimApi, WatchReplaysThenStreams) {
    create_configmap(sim);
    auto later = std::async(std::launch::async, [&] {
        std::this_thread::sleep_for(200ms);
        return sim
            .request("PATCH", configmaps + "/cfg", R"({"data":{"n":"3"}})",
                     "application/merge-patch+json")
            .status;
    });
    const auto lines = sim.watch(configmaps + "?watch=true&timeoutSeconds=5", 2, 5s);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(str(parse(lines[0]), "/type"), "ADDED");
    EXPECT_EQ(str(parse(lines[1]), "/type"), "MODIFIED");
    EXPECT_EQ(str(parse(lines[1]), "/object/data/n"), "3");
    EXPECT_EQ(later.get(), 200);
}

// The deprecated /watch/ paths: the same streams as ?watch=true (kube-apiserver still serves them,
// and Ruby's kubeclient watches only through them); a name selects that object.
TEST_F(SimApi, TheWatchPathsStreamAsWatchTrueDoes) {
    create_configmap(sim, "cfg");
    create_configmap(sim, "other");
    auto lines = sim.watch("/api/v1/watch/namespaces/default/configmaps?timeoutSeconds=2", 2, 3s);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(str(parse(lines[0]), "/type"), "ADDED");
    auto later = std::async(std::launch::async, [&] {
        std::this_thread::sleep_for(200ms);
        sim.request("PATCH", configmaps + "/other", R"({"data":{"n":"2"}})",
                    "application/merge-patch+json");
        return sim
            .request("PATCH", configmaps + "/cfg", R"({"data":{"n":"2"}})",
                     "application/merge-patch+json")
            .status;
    });
    lines = sim.watch("/api/v1/watch/namespaces/default/configmaps/cfg?timeoutSeconds=3", 2, 4s);
    ASSERT_EQ(lines.size(), 2u);
    for (const auto& line : lines)
        EXPECT_EQ(str(parse(line), "/object/metadata/name"), "cfg") << line;
    EXPECT_EQ(str(parse(lines[1]), "/type"), "MODIFIED");
    EXPECT_EQ(later.get(), 200);
    // Under a group, and across namespaces.
    EXPECT_EQ(sim.watch("/apis/apps/v1/watch/deployments?timeoutSeconds=1", 1, 2s).size(), 0u);
    EXPECT_EQ(sim.watch("/api/v1/watch/configmaps?timeoutSeconds=1", 2, 2s).size(), 2u);
    // A field selector that names another object: upstream's 400.
    const auto refused = sim.get("/api/v1/watch/namespaces/default/configmaps/cfg?fieldSelector="
                                 "metadata.name%3Dother");
    EXPECT_EQ(refused.status, 400);
    EXPECT_NE(refused.body.find("fieldSelector metadata.name=other does not match requested name "
                                "cfg"),
              std::string::npos)
        << refused.body;
}

TEST_F(SimApi, WatchFromResourceVersionSkipsReplay) {
    const std::string rv = create_configmap(sim);
    sim.request("PATCH", configmaps + "/cfg", R"({"data":{"n":"4"}})",
                "application/merge-patch+json");
    const auto lines =
        sim.watch(configmaps + "?watch=1&resourceVersion=" + rv + "&timeoutSeconds=1", 1, 3s);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(str(parse(lines[0]), "/type"), "MODIFIED");
}

// A write that changes nothing is not stored, as on the API server: same resourceVersion, same
// managed fields, no watch event — whether a PATCH, a PUT of the object as read, or a status write.
TEST_F(SimApi, AWriteThatChangesNothingIsNotStored) {
    const std::string rv = create_configmap(sim);
    const auto before = sim.get(configmaps + "/cfg").body;
    const auto same = sim.request("PATCH", configmaps + "/cfg", R"({"data":{"n":"1"}})",
                                  "application/merge-patch+json");
    ASSERT_EQ(same.status, 200) << same.body;
    EXPECT_EQ(str(parse(same.body), "/metadata/resourceVersion"), rv);
    const auto put = sim.request("PUT", configmaps + "/cfg", before);
    ASSERT_EQ(put.status, 200) << put.body;
    EXPECT_EQ(str(parse(put.body), "/metadata/resourceVersion"), rv);
    EXPECT_EQ(sim.get(configmaps + "/cfg").body, before); // managed fields included
    create_deployment();
    const auto deployment = sim.get(deployments + "/web").body;
    const auto status = sim.request("PUT", deployments + "/web/status", deployment);
    ASSERT_EQ(status.status, 200) << status.body;
    EXPECT_EQ(str(parse(status.body), "/metadata/resourceVersion"),
              str(parse(deployment), "/metadata/resourceVersion"));

    sim.request("PATCH", configmaps + "/cfg", R"({"data":{"n":"2"}})",
                "application/merge-patch+json");
    const auto lines =
        sim.watch(configmaps + "?watch=1&resourceVersion=" + rv + "&timeoutSeconds=1", 5, 3s);
    ASSERT_EQ(lines.size(), 1u); // only the change
    EXPECT_EQ(str(parse(lines[0]), "/object/data/n"), "2");
}

// A namespace is created Active with the API server's finalizer, and deleted through Terminating:
// a watcher sees the phase change (with a deletionTimestamp) before the namespace goes, and what
// was in it goes too.
TEST_F(SimApi, ANamespaceIsDeletedThroughTerminating) {
    const std::string namespaces = "/api/v1/namespaces";
    const auto created = sim.request("POST", namespaces, R"({"metadata":{"name":"shop"}})");
    ASSERT_EQ(created.status, 201) << created.body;
    const auto ns = parse(created.body);
    EXPECT_EQ(str(ns, "/status/phase"), "Active");
    EXPECT_EQ(str(ns, "/spec/finalizers/0"), "kubernetes");
    const std::string rv = str(ns, "/metadata/resourceVersion");
    ASSERT_EQ(sim.request("POST", "/api/v1/namespaces/shop/configmaps",
                          R"({"metadata":{"name":"cfg"},"data":{"a":"b"}})")
                  .status,
              201);

    const auto deleted = sim.request("DELETE", namespaces + "/shop");
    ASSERT_EQ(deleted.status, 200) << deleted.body;
    EXPECT_EQ(str(parse(deleted.body), "/status/phase"), "Terminating");
    EXPECT_NE(str(parse(deleted.body), "/metadata/deletionTimestamp"), "<missing>");
    const auto lines = sim.watch(namespaces +
                                     "?watch=1&fieldSelector=metadata.name%3Dshop&"
                                     "resourceVersion=" +
                                     rv + "&timeoutSeconds=1",
                                 3, 3s);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(str(parse(lines[0]), "/type"), "MODIFIED");
    EXPECT_NE(str(parse(lines[0]), "/object/metadata/deletionTimestamp"), "<missing>");
    EXPECT_EQ(str(parse(lines[1]), "/object/status/phase"), "Terminating");
    EXPECT_EQ(str(parse(lines[2]), "/type"), "DELETED");
    EXPECT_EQ(sim.get(namespaces + "/shop").status, 404);
    EXPECT_EQ(sim.get("/api/v1/namespaces/shop/configmaps/cfg").status, 404);
}

TEST_F(SimApi, WatchFromCompactedVersionIsExpired) {
    const std::string rv = create_configmap(sim);
    sim.request("PATCH", configmaps + "/cfg", R"({"data":{"n":"4"}})",
                "application/merge-patch+json");
    sim.run_on_cluster([&] {
        sim.cluster().store().compact(*sim.cluster().store().find("", "v1", "configmaps"));
    });
    const auto lines = sim.watch(configmaps + "?watch=1&resourceVersion=" + rv, 1, 3s);
    ASSERT_EQ(lines.size(), 1u);
    const auto e = parse(lines[0]);
    EXPECT_EQ(str(e, "/type"), "ERROR");
    EXPECT_EQ(str(e, "/object/code"), "410");
    EXPECT_EQ(str(e, "/object/reason"), "Expired");
}

TEST_F(SimApi, FilteredWatchSeesObjectsLeaveAndEnter) {
    create_configmap(sim);
    auto edits = std::async(std::launch::async, [&] {
        std::this_thread::sleep_for(200ms);
        sim.request("PATCH", configmaps + "/cfg", R"({"metadata":{"labels":{"app":"other"}}})",
                    "application/merge-patch+json");
        sim.request("PATCH", configmaps + "/cfg", R"({"metadata":{"labels":{"app":"web"}}})",
                    "application/merge-patch+json");
    });
    const auto lines =
        sim.watch(configmaps + "?watch=1&labelSelector=app%3Dweb&timeoutSeconds=5", 3, 5s);
    edits.get();
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(str(parse(lines[0]), "/type"), "ADDED");
    EXPECT_EQ(str(parse(lines[1]), "/type"), "DELETED"); // left the selection
    EXPECT_EQ(str(parse(lines[2]), "/type"), "ADDED");   // came back
}

TEST_F(SimApi, WatchBookmarksAndTimeout) {
    const std::string rv = create_configmap(sim);
    const auto start = std::chrono::steady_clock::now();
    const auto lines = sim.watch(
        configmaps + "?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=" + rv, 10,
        5s);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(str(parse(lines[0]), "/type"), "BOOKMARK");
    EXPECT_NE(str(parse(lines[0]), "/object/metadata/resourceVersion"), "<missing>");
    EXPECT_LT(std::chrono::steady_clock::now() - start, 4s); // the stream ended at timeoutSeconds
}

TEST_F(SimApi, PaginationAndSelectors) {
    for (int i = 0; i < 5; ++i) {
        const std::string body = R"({"metadata":{"name":"cm)" + std::to_string(i) +
                                 R"(","labels":{"parity":")" + (i % 2 ? "odd" : "even") +
                                 R"("}},"data":{"i":")" + std::to_string(i) + R"("}})";
        ASSERT_EQ(sim.request("POST", "/api/v1/namespaces/default/configmaps", body).status, 201);
    }
    std::set<std::string> names;
    std::string next;
    int pages = 0;
    std::vector<std::string> remaining; // remainingItemCount of each page
    do {
        const auto page = parse(sim.get("/api/v1/namespaces/default/configmaps?limit=2" +
                                        (next.empty() ? "" : "&continue=" + next))
                                    .body);
        for (const auto& item : page["items"].GetArray())
            names.insert(item["metadata"]["name"].GetString());
        remaining.push_back(str(page, "/metadata/remainingItemCount"));
        next = str(page, "/metadata/continue");
        if (next == "<missing>") next.clear();
        ++pages;
    } while (!next.empty() && pages < 10);
    EXPECT_EQ(names.size(), 5u);
    EXPECT_EQ(pages, 3);
    EXPECT_EQ(remaining, (std::vector<std::string>{"3", "1", "<missing>"}));
    // Across namespaces: every page says how many are left of the whole collection.
    ASSERT_EQ(sim.request("POST", "/api/v1/namespaces", R"({"metadata":{"name":"other"}})").status,
              201);
    for (int i = 0; i < 3; ++i)
        ASSERT_EQ(sim.request("POST", "/api/v1/namespaces/other/configmaps",
                              R"({"metadata":{"name":"o)" + std::to_string(i) + R"("}})")
                      .status,
                  201);
    const auto all = parse(sim.get("/api/v1/configmaps").body)["items"].Size();
    ASSERT_GE(all, 8u);
    std::size_t seen = 0;
    next.clear();
    do {
        const auto page = parse(
            sim.get("/api/v1/configmaps?limit=3" + (next.empty() ? "" : "&continue=" + next)).body);
        seen += page["items"].Size();
        next = str(page, "/metadata/continue");
        if (next == "<missing>") {
            next.clear();
            EXPECT_EQ(str(page, "/metadata/remainingItemCount"), "<missing>");
        } else {
            EXPECT_EQ(str(page, "/metadata/remainingItemCount"), std::to_string(all - seen));
        }
    } while (!next.empty() && seen < 100);
    EXPECT_EQ(seen, all);
    EXPECT_EQ(sim.get("/api/v1/configmaps?limit=3&continue=12").status, 400);
    // Each number of a token whole and in range, as the limit: no count that overflows to a wrong
    // estimate, no version with something after it.
    const std::string token =
        str(parse(sim.get("/api/v1/configmaps?limit=3").body), "/metadata/continue");
    const auto first = token.find(':'), second = token.find(':', first + 1);
    ASSERT_NE(second, std::string::npos) << token;
    const std::string rv = token.substr(0, first), key = token.substr(second + 1);
    EXPECT_EQ(sim.get("/api/v1/configmaps?limit=3&continue=" + token).status, 200);
    for (const std::string& bad :
         {rv + ":99999999999999999999999:" + key, rv + "x:3:" + key, rv + ":3x:" + key,
          rv + ":-3:" + key, "99999999999999999999999:3:" + key})
        EXPECT_EQ(sim.get("/api/v1/configmaps?limit=3&continue=" + bad).status, 400) << bad;
    EXPECT_EQ(sim.get("/api/v1/configmaps?limit=99999999999999999999999").status, 400);
    // Not with a selector (the server cannot count what the selector would keep).
    EXPECT_EQ(str(parse(sim.get("/api/v1/namespaces/default/configmaps?limit=1&"
                                "labelSelector=parity%3Dodd")
                            .body),
                  "/metadata/remainingItemCount"),
              "<missing>");
    EXPECT_EQ(parse(sim.get("/api/v1/namespaces/default/configmaps?labelSelector=parity%3Dodd")
                        .body)["items"]
                  .Size(),
              2u);
    EXPECT_EQ(
        parse(sim.get("/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dcm3")
                  .body)["items"]
            .Size(),
        1u);
    EXPECT_EQ(sim.get("/api/v1/namespaces/default/configmaps?labelSelector=parity%20in%20(").status,
              400);
    // deletecollection answers the list of what it deleted.
    const auto deleted =
        sim.request("DELETE", "/api/v1/namespaces/default/configmaps?labelSelector=parity%3Dodd");
    ASSERT_EQ(deleted.status, 200) << deleted.body;
    const auto gone = parse(deleted.body);
    EXPECT_EQ(str(gone, "/kind"), "ConfigMapList");
    ASSERT_EQ(gone["items"].Size(), 2u);
    EXPECT_EQ(str(gone, "/items/0/metadata/labels/parity"), "odd");
    EXPECT_EQ(parse(sim.get("/api/v1/namespaces/default/configmaps").body)["items"].Size(), 3u);
}

TEST_F(SimApi, MalformedRequestsGetStatusErrors) {
    auto reason = [](const test::http_result& r) { return str(parse(r.body), "/reason"); };
    const auto bad_json = sim.request("POST", deployments, "{not json");
    EXPECT_EQ(bad_json.status, 400);
    EXPECT_EQ(reason(bad_json), "BadRequest");
    const auto wrong_kind = sim.request(
        "POST", deployments, R"({"apiVersion":"apps/v1","kind":"Pod","metadata":{"name":"x"}})");
    EXPECT_EQ(wrong_kind.status, 400);
    const auto bad_name = sim.request("POST", deployments, R"({"metadata":{"name":"Not_Valid"}})");
    EXPECT_EQ(bad_name.status, 422);
    EXPECT_EQ(reason(bad_name), "Invalid");
    const auto no_name = sim.request("POST", deployments, R"({"metadata":{}})");
    EXPECT_EQ(no_name.status, 422);
    const auto missing_ns =
        sim.request("POST", "/apis/apps/v1/namespaces/nope/deployments", deployment_json);
    EXPECT_EQ(missing_ns.status, 404);
    EXPECT_EQ(str(parse(missing_ns.body), "/message"), "namespaces \"nope\" not found");
    EXPECT_EQ(sim.get("/apis/apps/v1/namespaces/default/gadgets").status, 404);
    EXPECT_EQ(sim.get("/nothing/here").status, 404);
    EXPECT_EQ(sim.request("POST", deployments + "/web/scale", "{}").status, 404);
    const auto protobuf = sim.request("POST", deployments, std::string("k8s\0garbage", 11),
                                      "application/vnd.kubernetes.protobuf");
    EXPECT_EQ(protobuf.status, 415);
    const auto huge = sim.request("POST", deployments, std::string(17u << 20, ' '));
    EXPECT_EQ(huge.status, 413);
    // 100,000 levels of nesting: refused before parsing, on every verb that takes a body.
    ASSERT_EQ(sim.request("POST", deployments, deployment_json).status, 201);
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    for (const char* verb : {"POST", "PUT", "PATCH"}) {
        const auto r = sim.request(
            verb, std::string(verb) == "POST" ? deployments : deployments + "/web", deep,
            std::string(verb) == "PATCH" ? "application/merge-patch+json" : "application/json");
        EXPECT_EQ(r.status, 400) << verb;
        EXPECT_NE(str(parse(r.body), "/message").find("nesting deeper than 512 levels"),
                  std::string::npos)
            << verb << ": " << r.body;
    }
    EXPECT_EQ(sim.get("/api/v1/namespaces/default/pods?watch=1&resourceVersion=abc").status, 400);
    // and the server is still fine
    EXPECT_EQ(sim.get("/api/v1/namespaces").status, 200);
}

TEST(SimApiTls, ServesHttpsWithItsOwnCa) {
    test::sim_fixture sim(true);
    EXPECT_EQ(sim.url().rfind("https://", 0), 0u);
    const auto r = sim.get("/api/v1/namespaces");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(parse(r.body)["items"].Size(), 4u); // default, kube-node-lease, kube-public, -system
    // the client's kubeconfig reader understands what the simulated cluster writes
    const auto config = kube::parse_kubeconfig(sim.cluster().kubeconfig(), "");
    ASSERT_TRUE(config) << config.error().text;
    EXPECT_EQ(config->server, sim.url());
    EXPECT_EQ(config->ca_pem, sim.cluster().tls()->ca_cert_pem);
    EXPECT_EQ(config->token, "hpaplus-sim");
}

} // namespace
} // namespace hpaplus
