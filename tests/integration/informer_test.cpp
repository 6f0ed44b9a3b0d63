// Integration tests: kube::informer against the simulated cluster — initial sync, live changes,
// pagination, relist after forced 410s, and recovery from dropped watches and a restarted server,
// including one whose store went back to an earlier state (resourceVersions going backwards).
#include "../support/corrupting_proxy.hpp"
#include "../support/json_access.hpp"
#include "../support/run_awaitable.hpp"
#include "../support/sim_fixture.hpp"
#include "kinds/records.hpp"
#include "kube/informer.hpp"
#include "sim/cluster.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

using test::paths::configmaps;

struct Informer : ::testing::Test {
    // Nothing writes but the test (no node heartbeat Lease): a store restored under the informer
    // stays behind its version, as on a quiet cluster.
    static sim::cluster_options quiet() {
        sim::cluster_options o;
        o.workload.node_lease_renewal = std::chrono::milliseconds(0);
        o.publish_root_ca = false; // the informer counts the ConfigMaps it made
        return o;
    }
    test::sim_fixture sim{quiet()};
    boost::asio::io_context io;
    std::unique_ptr<kube::api_client> client;
    std::unique_ptr<kube::informer> cache;
    std::unique_ptr<kube::mirror> copy; ///< a test's mirror of `cache` (on the same executor)
    std::vector<std::string> seen;      ///< "TYPE key" per notification

    kube::cluster_config sim_config() {
        return kube::parse_kubeconfig(sim.cluster().kubeconfig(), "").value();
    }

    /// `through`: a proxy's port to reach the server by (0: straight to it).
    void start(kube::informer_options options = {}, const std::string& collection = configmaps,
               std::uint16_t through = 0) {
        auto config = sim_config();
        if (through) {
            config.port = std::to_string(through);
            config.server = "http://127.0.0.1:" + config.port;
        }
        kube::client_options client_options;
        client_options.backoff_base = 10ms;
        client = std::make_unique<kube::api_client>(io.get_executor(), config, client_options);
        options.watch_timeout = 2s;
        options.initial_backoff = 50ms;
        cache = std::make_unique<kube::informer>(*client, collection, options);
        cache->on_change(
            [this](kube::change what, const kube::object_cptr& o, const kube::object_cptr&) {
                seen.push_back(std::string(kube::to_string(what)) + " " + o->key);
            });
        boost::asio::co_spawn(io, cache->run(), boost::asio::detached);
    }

    // Runs the client loop until `done` or 10 s.
    bool until(const std::function<bool()>& done) {
        const auto end = std::chrono::steady_clock::now() + 10s;
        while (std::chrono::steady_clock::now() < end) {
            io.run_for(20ms);
            if (done()) return true;
        }
        return done();
    }

    std::size_t size() { return cache->items()->size(); }

    void TearDown() override {
        cache->stop();
        io.run_for(3s); // the current watch ends at its timeout and the loop returns
    }
};

TEST_F(Informer, SyncsThenFollowsChanges) {
    for (const char* n : {"a", "b"})
        sim.request("POST", configmaps, std::string(R"({"metadata":{"name":")") + n + R"("}})");
    start();
    ASSERT_TRUE(until([&] { return cache->synced() && size() == 2; }));
    sim.request("POST", configmaps, R"({"metadata":{"name":"c"}})");
    sim.request("PATCH", configmaps + "/a", R"({"data":{"x":"1"}})",
                "application/merge-patch+json");
    sim.request("DELETE", configmaps + "/b");
    ASSERT_TRUE(until([&] { return size() == 2 && cache->items()->count("default/c"); }));
    ASSERT_TRUE(until([&] {
        return test::str(test::parse(*cache->items()->at("default/a")->json_text()), "/data/x") ==
               "1";
    }));
    EXPECT_EQ(cache->lists(), 1u);
    EXPECT_NE(std::find(seen.begin(), seen.end(), "DELETED default/b"), seen.end());
    EXPECT_NE(std::find(seen.begin(), seen.end(), "MODIFIED default/a"), seen.end());
}

TEST_F(Informer, AKindNotServedYetIsAnEmptyCacheUntilItsCrdIsInstalled) {
    const std::string widgets = "/apis/example.hpaplus.io/v1/namespaces/default/widgets";
    kube::informer_options options;
    options.absent_means_empty = true;
    start(options, widgets);
    ASSERT_TRUE(until([&] { return cache->synced(); })) << cache->last_error();
    EXPECT_FALSE(cache->served());
    EXPECT_EQ(size(), 0u);
    EXPECT_NE(cache->last_error().find("not served"), std::string::npos) << cache->last_error();

    const auto crd = sim.request(
        "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        R"({"metadata":{"name":"widgets.example.hpaplus.io"},"spec":{"group":"example.hpaplus.io",)"
        R"("scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1",)"
        R"("served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",)"
        R"("x-kubernetes-preserve-unknown-fields":true}}}]}})");
    ASSERT_EQ(crd.status, 201) << crd.body;
    ASSERT_EQ(sim.request("POST", widgets,
                          R"({"apiVersion":"example.hpaplus.io/v1","kind":"Widget",)"
                          R"("metadata":{"name":"w"}})")
                  .status,
              201);
    ASSERT_TRUE(until([&] { return cache->served() && size() == 1; })) << cache->last_error();
    // Then it is watched like any other kind.
    ASSERT_EQ(sim.request("DELETE", widgets + "/w").status, 200);
    EXPECT_TRUE(until([&] { return size() == 0; }));
}

TEST_F(Informer, WithoutTheOptionAnUnservedKindNeverSyncs) {
    start({}, "/apis/example.hpaplus.io/v1/namespaces/default/widgets");
    ASSERT_TRUE(until([&] { return !cache->last_error().empty(); }));
    io.run_for(500ms); // a few retries
    EXPECT_FALSE(cache->synced());
    EXPECT_NE(cache->last_error().find("could not find the requested resource"), std::string::npos)
        << cache->last_error();
}

TEST_F(Informer, WaitsUntilSynced) {
    sim.request(
        "POST", "/sim/v1/faults",
        R"({"rules":[{"verb":"list","resource":"configmaps","errorRate":1,"errorCode":503}]})");
    start();
    const bool early = test::run_awaitable(io, cache->wait_synced(300ms));
    EXPECT_FALSE(early); // every list fails: not synced when the wait ends
    EXPECT_NE(cache->last_error(), "");
    sim.request("DELETE", "/sim/v1/faults");
    const bool later = test::run_awaitable(io, cache->wait_synced(8s));
    EXPECT_TRUE(later);
}

// Objects decoded as they enter the cache (client-go's SetTransform and typed listers) and no JSON
// kept: selection by labels still works, pods labelled alike hold one label set, pods alike hold
// one template (containers, requests), a change is decoded again, and a reader asking for another
// record type gets none.
TEST_F(Informer, DecodesPodsAsTheyArriveAndKeepsNoJson) {
    const auto pod = [](const std::string& name, const std::string& app, const std::string& cpu) {
        return R"({"metadata":{"name":")" + name + R"(","labels":{"app":")" + app +
               R"("}},"spec":{"containers":[{"name":"c","image":"x","resources":{"requests":{"cpu":")" +
               cpu + R"("}}}]}})";
    };
    sim.request("POST", test::paths::pods, pod("a", "web", "250m"));
    sim.request("POST", test::paths::pods, pod("b", "api", "500m"));
    sim.request("POST", test::paths::pods, pod("c", "api", "250m"));
    kube::informer_options options;
    options.decode = kinds::pod_decoder(false);
    start(options, test::paths::pods);
    ASSERT_TRUE(until([&] { return cache->synced() && size() == 3; }));
    const auto web = core::parse_label_selector("app=web").value();
    const auto picked = cache->select("default", web);
    ASSERT_EQ(picked.size(), 1u);
    const kube::cached_object& a = *picked[0];
    EXPECT_EQ(a.key, "default/a");
    EXPECT_EQ(a.json_text(), nullptr);
    EXPECT_EQ(a.as<kinds::cronhpa_record>(), nullptr);
    const auto* ra = a.as<kinds::pod_record>();
    ASSERT_TRUE(ra && ra->pod);
    EXPECT_FALSE(ra->view); // the vertical module's view only when asked for
    EXPECT_EQ(ra->pod->name, "a");
    EXPECT_EQ(ra->pod->labels.at("app"), "web");
    EXPECT_TRUE(ra->pod->labels.shares_with(a.labels)); // held once
    ASSERT_EQ(ra->pod->containers().size(), 1u);
    ASSERT_EQ(ra->pod->containers()[0].requests.size(), 1u);
    EXPECT_EQ(ra->pod->containers()[0].requests[0].first, "cpu");
    EXPECT_EQ(ra->pod->containers()[0].requests[0].second.milli_value(), 250);
    EXPECT_EQ(ra->pod->namespace_(), "default");
    const auto b_before = cache->find("default", "b");
    ASSERT_TRUE(b_before);
    EXPECT_FALSE(b_before->labels.shares_with(a.labels));
    // c's containers are a's (its labels are not): one template; b's requests differ.
    const auto* rc = cache->find("default", "c")->as<kinds::pod_record>();
    ASSERT_TRUE(rc && rc->pod);
    EXPECT_EQ(rc->pod->shared, ra->pod->shared);
    EXPECT_NE(b_before->as<kinds::pod_record>()->pod->shared, ra->pod->shared);

    sim.request("PATCH", test::paths::pods + "/b", R"({"metadata":{"labels":{"app":"web"}}})",
                "application/merge-patch+json");
    ASSERT_TRUE(until([&] { return cache->select("default", web).size() == 2; }));

    const auto b = cache->find("default", "b");
    const auto* rb = b ? b->as<kinds::pod_record>() : nullptr;
    ASSERT_TRUE(rb && rb->pod);
    EXPECT_EQ(rb->pod->labels.at("app"), "web");
    EXPECT_EQ(rb->pod->containers().at(0).requests.at(0).second.milli_value(), 500);
    // Pods labelled alike share one label set (the pods of a ReplicaSet), whether they came with
    // the list or a watch event.
    EXPECT_TRUE(rb->pod->labels.shares_with(ra->pod->labels));
    // A pod that comes with a watch event and is like b shares b's template.
    sim.request("POST", test::paths::pods, pod("d", "api", "500m"));
    ASSERT_TRUE(until([&] { return size() == 4; }));
    const auto* rd = cache->find("default", "d")->as<kinds::pod_record>();
    ASSERT_TRUE(rd && rd->pod);
    EXPECT_EQ(rd->pod->shared, rb->pod->shared);
}

// The by_target index answers "who aims at this workload" without a scan, and follows a change of
// target, a deletion, and a mirror on another executor.
TEST_F(Informer, IndexesAutoscalersByTheirTarget) {
    const auto hpa = [](const std::string& name, const std::string& target) {
        return R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":")" +
               name +
               R"("},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":")" +
               target + R"("},"minReplicas":1,"maxReplicas":5}})";
    };
    const std::string hpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
    ASSERT_EQ(sim.request("POST", hpas, hpa("one", "web")).status, 201);
    ASSERT_EQ(sim.request("POST", hpas, hpa("two", "web")).status, 201);
    ASSERT_EQ(sim.request("POST", hpas, hpa("three", "api")).status, 201);
    kube::informer_options options;
    options.decode = kinds::autoscaler_decoder(true);
    start(options, hpas);
    kinds::index_by_target(*cache);
    ASSERT_TRUE(until([&] { return cache->synced() && size() == 3; }));
    copy = std::make_unique<kube::mirror>(*cache, io.get_executor());
    kinds::index_by_target(*copy);
    const core::object_reference web{"Deployment", "web", "apps/v1"};
    const core::object_reference api{"Deployment", "api", "apps/v1"};
    const auto names = [&](const kube::object_cache& c, const core::object_reference& ref) {
        std::string out;
        for (const auto& o : c.by_index(kinds::by_target, kinds::target_key("default", ref)))
            out += std::string(o->name()) + " ";
        return out;
    };
    EXPECT_EQ(names(*cache, web), "one two ");
    EXPECT_EQ(names(*cache, api), "three ");
    EXPECT_EQ(names(*copy, web), "one two ");
    EXPECT_EQ(names(*cache, {"Deployment", "web", ""}), "one two "); // the key has no apiVersion
    EXPECT_EQ(names(*cache, {"StatefulSet", "web", "apps/v1"}), "");

    sim.request("PATCH", hpas + "/two", R"({"spec":{"scaleTargetRef":{"name":"api"}}})",
                "application/merge-patch+json");
    sim.request("DELETE", hpas + "/three", "");
    ASSERT_TRUE(until([&] { return names(*copy, api) == "two "; }));
    EXPECT_EQ(names(*cache, web), "one ");
    EXPECT_EQ(names(*cache, api), "two ");
    EXPECT_EQ(names(*copy, web), "one ");
}

TEST_F(Informer, ListsInPages) {
    for (int i = 0; i < 7; ++i)
        sim.request("POST", configmaps,
                    R"({"metadata":{"name":"cm)" + std::to_string(i) + R"("}})");
    kube::informer_options options;
    options.page_size = 2;
    start(options);
    ASSERT_TRUE(until([&] { return cache->synced(); }));
    EXPECT_EQ(size(), 7u);
}

TEST_F(Informer, RelistsAfterExpiryWithoutLosingChanges) {
    sim.request("POST", configmaps, R"({"metadata":{"name":"a"}})");
    start();
    ASSERT_TRUE(until([&] { return cache->synced() && size() == 1; }));
    sim.request("POST", "/sim/v1/faults/expire?resource=configmaps");
    sim.request("POST", configmaps, R"({"metadata":{"name":"after"}})");
    ASSERT_TRUE(until([&] { return cache->lists() >= 2 && size() == 2; }));
    EXPECT_TRUE(cache->items()->count("default/after"));
}

TEST_F(Informer, RecoversFromDroppedWatches) {
    start();
    ASSERT_TRUE(until([&] { return cache->synced(); }));
    sim.request("POST", "/sim/v1/faults/drop-watches");
    sim.request("POST", configmaps, R"({"metadata":{"name":"late"}})");
    ASSERT_TRUE(until([&] { return cache->items()->count("default/late") == 1; }));
}

// Issue 69 (6): a watch event that does not decode ends the watch, as client-go's does, and the
// informer lists again, as client-go's reflector does: the deletion it hid is applied. (It used to
// be skipped; the next event moved the version past it, and the deletion was never delivered.)
TEST_F(Informer, AGarbledDeletedEventEndsTheWatchAndTheNextListAppliesIt) {
    ASSERT_EQ(sim.request("POST", configmaps, R"({"metadata":{"name":"doomed"}})").status, 201);
    test::corrupting_proxy proxy(static_cast<std::uint16_t>(std::stoi(sim_config().port)),
                                 R"({"type":"DELETED",)", R"({"type":"DELETED"})");
    start({}, configmaps, proxy.port());
    ASSERT_TRUE(until([&] { return cache->synced() && size() == 1; }));
    ASSERT_EQ(sim.request("DELETE", configmaps + "/doomed").status, 200);
    ASSERT_EQ(sim.request("POST", configmaps, R"({"metadata":{"name":"after"}})").status, 201);
    ASSERT_TRUE(until([&] { return cache->items()->count("default/after") == 1; }));
    EXPECT_TRUE(until([&] { return cache->items()->count("default/doomed") == 0; }))
        << "the deletion was lost: " << cache->last_error();
    EXPECT_EQ(proxy.corrupted(), 1);
    EXPECT_NE(std::find(seen.begin(), seen.end(), "DELETED default/doomed"), seen.end());
    EXPECT_EQ(cache->lists(), 2u) << "listed again after the watch ended on the garbled line";
}

// The same line garbled every time it is sent: a resumed watch would meet it forever; the list
// after the watch ended on it applies the deletion all the same.
TEST_F(Informer, AnEventGarbledEveryTimeIsAppliedByTheList) {
    ASSERT_EQ(sim.request("POST", configmaps, R"({"metadata":{"name":"doomed"}})").status, 201);
    test::corrupting_proxy proxy(static_cast<std::uint16_t>(std::stoi(sim_config().port)),
                                 R"({"type":"DELETED",)", R"({"type":"DELETED"})", 0);
    start({}, configmaps, proxy.port());
    ASSERT_TRUE(until([&] { return cache->synced() && size() == 1; }));
    ASSERT_EQ(sim.request("DELETE", configmaps + "/doomed").status, 200);
    EXPECT_TRUE(until([&] { return cache->items()->count("default/doomed") == 0; }))
        << cache->last_error();
    EXPECT_GE(proxy.corrupted(), 1);
    EXPECT_GE(cache->lists(), 2u);
}

TEST_F(Informer, SurvivesARestartedServer) {
    start();
    ASSERT_TRUE(until([&] { return cache->synced(); }));
    sim.request("POST", "/sim/v1/restart?downSeconds=1");
    std::this_thread::sleep_for(1500ms);
    ASSERT_TRUE(until([&] {
        try {
            return sim.request("POST", configmaps, R"({"metadata":{"name":"back"}})").status == 201;
        } catch (const std::exception&) {
            return false;
        }
    }));
    ASSERT_TRUE(until([&] { return cache->items()->count("default/back") == 1; }));
}

TEST_F(Informer, ForgetsWhatAServerRestoredFromABackupNoLongerHas) {
    sim.request("POST", configmaps, R"({"metadata":{"name":"kept"}})");
    sim.request("POST", "/sim/v1/snapshot");
    start();
    ASSERT_TRUE(until([&] { return cache->synced() && size() == 1; }));
    sim.request("POST", configmaps, R"({"metadata":{"name":"lost"}})");
    ASSERT_TRUE(until([&] { return cache->items()->count("default/lost") == 1; }));
    // The server comes back with the backup: "lost" never existed and its versions went back. A
    // watch from our version would be accepted and stay silent; the informer asks for the
    // current version first, sees it went back, and lists from scratch.
    sim.request("POST", "/sim/v1/restart?downSeconds=0&restore=snapshot");
    ASSERT_TRUE(until([&] { return cache->items()->count("default/lost") == 0; }));
    EXPECT_EQ(cache->items()->count("default/kept"), 1u);
    EXPECT_GE(cache->lists(), 2u);
    EXPECT_NE(std::find(seen.begin(), seen.end(), "DELETED default/lost"), seen.end());
}

TEST_F(Informer, ForgetsWhatAStoreRestoredUnderAnOpenWatchNoLongerHas) {
    sim.request("POST", configmaps, R"({"metadata":{"name":"kept"}})");
    std::optional<sim::store_snapshot> backup;
    sim.run_on_cluster([&] { backup = sim.cluster().store().snapshot(); });
    start();
    ASSERT_TRUE(until([&] { return cache->synced() && size() == 1; }));
    sim.request("POST", configmaps, R"({"metadata":{"name":"lost"}})");
    ASSERT_TRUE(until([&] { return cache->items()->count("default/lost") == 1; }));
    // The store goes back under the open watch, and no connection ends: the watch ends cleanly at
    // its timeout, and the next one, from our version, is accepted and says nothing at all (not
    // even a bookmark) — which makes the informer ask for the current version and list.
    sim.run_on_cluster([&] { sim.cluster().store().restore(*backup); });
    ASSERT_TRUE(until([&] { return cache->items()->count("default/lost") == 0; }));
    EXPECT_EQ(cache->items()->count("default/kept"), 1u);
    EXPECT_GE(cache->lists(), 2u);
}

} // namespace
} // namespace hpaplus
