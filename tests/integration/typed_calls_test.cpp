// Integration tests: typed calls (scale, status, events, leases, lists) against the simulated
// cluster; informer lookups; the client-side rate limit; and a deliberately broken server whose
// malformed, oversized, hanging and garbled responses must give errors, never crashes.
#include "../support/json_access.hpp"
#include "../support/run_awaitable.hpp"
#include "../support/sim_fixture.hpp"
#include "kube/informer.hpp"
#include "kube/resources.hpp"
#include "net/http_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <gtest/gtest.h>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;
using kube::errc;
namespace r = kube::resources;

template <class T> T run(boost::asio::io_context& io, boost::asio::awaitable<T> work) {
    return test::run_awaitable(io, std::move(work));
}

const std::string deployment_manifest =
    R"({"metadata":{"name":"web","labels":{"app":"web"}},"spec":{"replicas":2,)"
    R"("selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},)"
    R"("spec":{"containers":[{"name":"app","image":"nginx"}]}}}})";

// Parameter: whether the simulated cluster serves HTTPS (with a CA made for the test).
struct TypedCalls : ::testing::TestWithParam<bool> {
    test::sim_fixture sim{GetParam()};
    boost::asio::io_context io;
    kube::api_client client{io.get_executor(),
                            kube::parse_kubeconfig(sim.cluster().kubeconfig(), "").value()};
};

TEST_P(TypedCalls, ScaleWithConflictRetry) {
    ASSERT_TRUE(run(io, kube::create(client, r::deployments, "default", deployment_manifest)));
    const auto got = run(io, kube::get(client, r::deployments, "default", "web"));
    const auto read = run(io, client.send({"GET", r::deployments.path("default", "web", "scale"),
                                           "", "application/json"}));
    auto scale = kube::parse_scale(read.body);
    ASSERT_TRUE(scale);
    EXPECT_EQ(scale->spec_replicas, 2);
    EXPECT_EQ(scale->selector, "app=web");
    // somebody else changes the deployment: our conditional write conflicts, a fresh read wins
    ASSERT_TRUE(run(io, kube::merge_patch(client, r::deployments, "default", "web",
                                          R"({"metadata":{"labels":{"x":"1"}}})")));
    const auto stale = run(
        io, kube::update(client, r::deployments, "default", "web",
                         kube::scale_body("web", "default", 5, scale->resource_version), "scale"));
    EXPECT_EQ(stale.ec, errc::conflict);
    // The simulated deployment controller writes the status on its own, as a real one does, so a
    // fresh read may itself be overtaken: retry on conflict, as client-go's RetryOnConflict does.
    kube::api_response written;
    for (int attempt = 0; attempt < 5; ++attempt) {
        const auto fresh = kube::parse_scale(
            run(io, client.send({"GET", r::deployments.path("default", "web", "scale"), "",
                                 "application/json"}))
                .body);
        ASSERT_TRUE(fresh);
        written =
            run(io, kube::update(client, r::deployments, "default", "web",
                                 kube::scale_body("web", "default", 5, fresh->resource_version),
                                 "scale"));
        if (written.ec != errc::conflict) break;
    }
    ASSERT_TRUE(written) << written.status.message;
    EXPECT_EQ(kube::parse_scale(written.body)->spec_replicas, 5);
    EXPECT_TRUE(got);
}

TEST_P(TypedCalls, StatusEventsAndLists) {
    ASSERT_TRUE(run(io, kube::create(client, r::deployments, "default", deployment_manifest)));
    const auto status =
        run(io, kube::merge_patch(client, r::deployments, "default", "web",
                                  R"({"status":{"observedGeneration":1}})", "status"));
    ASSERT_TRUE(status) << status.status.message;
    const std::string event = kube::event_body(
        "default", "Deployment", "web", "", "apps/v1", "Normal", "SuccessfulRescale",
        "New size: 5; reason: cpu above target", {"hpaplus", "node-1"}, "2026-01-01T00:00:00Z");
    const auto created = run(io, kube::create(client, r::events, "default", event));
    ASSERT_TRUE(created) << created.status.message;
    EXPECT_EQ(test::str(test::parse(created.body), "/metadata/name").rfind("web.", 0),
              0u); // generateName
    const auto events = test::parse(run(io, kube::list(client, r::events, "default")).body);
    ASSERT_EQ(events["items"].Size(), 1u);
    EXPECT_EQ(test::str(events, "/items/0/reason"), "SuccessfulRescale");
    EXPECT_EQ(test::str(events, "/items/0/involvedObject/name"), "web");
    const auto labelled =
        test::parse(run(io, kube::list(client, r::deployments, "default", "app=web", 1)).body);
    EXPECT_EQ(labelled["items"].Size(), 1u);
    EXPECT_TRUE(run(io, kube::remove(client, r::deployments, "default", "web")));
    EXPECT_EQ(run(io, kube::get(client, r::deployments, "default", "web")).ec, errc::not_found);
}

TEST_P(TypedCalls, LeasesAreConditional) {
    kube::lease_info lease{
        "replica-a", 15, "2026-01-01T00:00:00.000000Z", "2026-01-01T00:00:00.000000Z", 0, ""};
    ASSERT_TRUE(run(io, kube::create(client, r::leases, "default",
                                     kube::lease_body("default", "hpaplus", lease))));
    auto read = kube::parse_lease(run(io, kube::get(client, r::leases, "default", "hpaplus")).body);
    ASSERT_TRUE(read);
    EXPECT_EQ(read->holder, "replica-a");
    EXPECT_EQ(read->duration_seconds, 15);
    auto taken = *read;
    taken.holder = "replica-b";
    taken.transitions = 1;
    ASSERT_TRUE(run(io, kube::update(client, r::leases, "default", "hpaplus",
                                     kube::lease_body("default", "hpaplus", taken))));
    // a second writer with the old version loses
    read->renew_time = "2026-01-01T00:00:05.000000Z";
    EXPECT_EQ(run(io, kube::update(client, r::leases, "default", "hpaplus",
                                   kube::lease_body("default", "hpaplus", *read)))
                  .ec,
              errc::conflict);
    EXPECT_EQ(
        kube::parse_lease(run(io, kube::get(client, r::leases, "default", "hpaplus")).body)->holder,
        "replica-b");
    // The LeaseList the shards count members in.
    const auto listed =
        kube::parse_lease_list(run(io, kube::list(client, r::leases, "default")).body);
    ASSERT_TRUE(listed);
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_EQ(listed->front().name, "hpaplus");
    EXPECT_EQ(listed->front().holder, "replica-b");
    EXPECT_FALSE(listed->front().resource_version.empty());
    // What is not a LeaseList of Leases is refused whole.
    for (const char* bad :
         {R"({"kind":"Lease"})", R"({"kind":"LeaseList","items":{}})",
          R"({"kind":"LeaseList","items":[7]})",
          R"({"kind":"LeaseList","items":[{"spec":{"holderIdentity":5}}]})", "[", ""})
        EXPECT_FALSE(kube::parse_lease_list(bad)) << bad;
    EXPECT_FALSE(
        kube::parse_lease_list(R"({"kind":"LeaseList","items":[)" + std::string(100000, '[')));
    EXPECT_TRUE(kube::parse_lease_list(R"({"kind":"LeaseList","items":null})"));
}

TEST_P(TypedCalls, InformerLookups) {
    sim.request("POST", "/api/v1/namespaces", R"({"metadata":{"name":"other"}})");
    for (const auto& [ns, name, app] :
         {std::tuple{"default", "a", "web"}, std::tuple{"default", "b", "api"},
          std::tuple{"other", "c", "web"}}) {
        const std::string body = std::string(R"({"metadata":{"name":")") + name +
                                 R"(","labels":{"app":")" + app +
                                 R"("}},"spec":{"containers":[{"name":"c","image":"x"}]}})";
        sim.request("POST", std::string("/api/v1/namespaces/") + ns + "/pods", body);
    }
    kube::informer_options options;
    options.watch_timeout = 1s;
    kube::informer pods(client, "/api/v1/pods", options);
    boost::asio::co_spawn(io, pods.run(), boost::asio::detached);
    const auto end = std::chrono::steady_clock::now() + 10s;
    while (!pods.synced() && std::chrono::steady_clock::now() < end)
        io.run_for(20ms);
    ASSERT_TRUE(pods.synced());
    const auto web = core::parse_label_selector("app=web").value();
    EXPECT_EQ(pods.select("default", web).size(), 1u);
    EXPECT_EQ(pods.select("", web).size(), 2u);
    EXPECT_EQ(pods.select("other", core::label_selector{}).size(), 1u);
    ASSERT_NE(pods.find("default", "b"), nullptr);
    EXPECT_EQ(pods.find("default", "b")->labels.at("app"), "api");
    EXPECT_EQ(pods.find("default", "zz"), nullptr);
    pods.stop();
    io.run_for(2s);
}

TEST_P(TypedCalls, ClientSideRateLimit) {
    kube::client_options options;
    // A token every 500 ms: far longer than a request takes, even over TLS under sanitizers (at
    // 20 qps a slow TLS request outlasted the 50 ms refill and was not throttled).
    options.qps = 2;
    options.burst = 1;
    kube::api_client limited(
        io.get_executor(), kube::parse_kubeconfig(sim.cluster().kubeconfig(), "").value(), options);
    for (int i = 0; i < 3; ++i)
        EXPECT_TRUE(run(io, kube::get(limited, r::deployments, "default", "x")).ec ==
                    errc::not_found);
    EXPECT_GE(limited.throttled(), 2u); // the second and third request waited for a token
}

// A server that answers wrongly on purpose.
INSTANTIATE_TEST_SUITE_P(Transport, TypedCalls, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "https" : "http"; });

struct BrokenServer : ::testing::Test {
    boost::asio::io_context server_io;
    std::unique_ptr<net::http_server> server;
    std::thread thread;
    boost::asio::io_context io;

    BrokenServer() {
        server = std::make_unique<net::http_server>(
            server_io.get_executor(), net::http_server_options{},
            [this](net::http_request& r, net::http_responder& out) { return answer(r, out); });
        server->start();
        thread = std::thread([this] { server_io.run(); });
    }
    ~BrokenServer() override {
        server->stop();
        server_io.stop();
        thread.join();
    }

    // GCC 12 destroys temporaries made inside a coroutine body for a co_await call twice, so this
    // coroutine names every argument it passes on.
    boost::asio::awaitable<void> answer(net::http_request& r, net::http_responder& out) {
        net::http_response response;
        if (r.path == "/watch") {
            std::string type = "application/json";
            co_await out.begin_stream(200, std::move(type));
            const std::string garbled = "garbage line\n{\"type\":\"ADDED\"}\n";
            co_await out.send_chunk(garbled);
            const std::string good = R"({"type":"ADDED","object":{"metadata":{"name":"ok"}}})"
                                     "\n";
            co_await out.send_chunk(good);
            co_await out.end_stream();
            co_return;
        }
        if (r.path == "/garbage")
            response.body = "{not json at all";
        else if (r.path == "/huge")
            response.body.assign(2u << 20, 'x');
        else if (r.path == "/status-not-json") {
            response.status = 500;
            response.content_type = "text/html";
            response.body = "<html>oops</html>";
        } else if (r.path == "/hang") {
            boost::asio::steady_timer t(server_io, 5s);
            co_await t.async_wait(boost::asio::use_awaitable);
            response.body = "{}";
        } else
            response.status = 404;
        co_await out.send(std::move(response));
    }
};

TEST_F(BrokenServer, MalformedResponsesAreErrorsNotCrashes) {
    kube::client_options options;
    options.max_body_bytes = 1u << 20;
    options.request_timeout = 300ms;
    options.max_retries = 0;
    kube::cluster_config cfg;
    cfg.server = server->url();
    kube::split_server(cfg.server, cfg.scheme, cfg.host, cfg.port);
    kube::api_client c{io.get_executor(), cfg, options};
    const auto get = [&](const std::string& path) {
        kube::api_request request;
        request.method = "GET";
        request.target = path;
        return run(io, c.send(std::move(request)));
    };
    const auto garbage = get("/garbage");
    EXPECT_TRUE(garbage); // the transport is fine; the body just is not a Scale
    EXPECT_FALSE(kube::parse_scale(garbage.body));
    EXPECT_FALSE(kube::parse_lease(garbage.body));
    const auto huge = get("/huge");
    EXPECT_EQ(huge.ec, errc::too_large); // over max_body_bytes: said so, not "cannot connect"
    EXPECT_EQ(huge.status.message,
              "the answer is larger than the client's limit: body limit exceeded");
    const auto html = get("/status-not-json");
    EXPECT_EQ(html.ec, errc::server_error);
    EXPECT_EQ(html.status.message, "HTTP 500");
    EXPECT_EQ(get("/hang").ec, errc::timeout);
    std::vector<std::string> names;
    kube::api_client::event_handler h = [&](std::string_view, std::string_view object) {
        names.push_back(test::str(test::parse(std::string(object)), "/metadata/name"));
        return true;
    };
    std::string target = "/watch";
    const auto w = run(io, c.watch(std::move(target), std::move(h), 2s));
    // A garbled line ends the watch, as client-go's decoder error does (issue 69): the caller lists
    // again, so no event is lost behind a skipped one.
    EXPECT_EQ(w.ec, errc::undecodable);
    EXPECT_NE(w.status.message.find("does not decode (malformed JSON at offset 0"),
              std::string::npos)
        << w.status.message;
    EXPECT_TRUE(names.empty());
}

} // namespace
} // namespace hpaplus
