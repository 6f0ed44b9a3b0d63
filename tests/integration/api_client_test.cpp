// Integration tests: kube::api_client against the simulated cluster over HTTP and HTTPS, with
// injected faults. Every run of the client's io_context has a deadline.
#include "../support/json_access.hpp"
#include "../support/run_awaitable.hpp"
#include "../support/sim_fixture.hpp"
#include "kube/api_client.hpp"
#include "net/tls.hpp"

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <future>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;
using kube::errc;

// Runs one client request to completion (10 s at most).
kube::api_response run(kube::api_client& client, boost::asio::io_context& io, kube::api_request r) {
    return test::run_awaitable(io, client.send(std::move(r)));
}

kube::cluster_config config_of(test::sim_fixture& sim) {
    return kube::parse_kubeconfig(sim.cluster().kubeconfig(), "").value();
}

class ApiClient : public ::testing::TestWithParam<bool> {
  protected:
    test::sim_fixture sim{GetParam()};
    boost::asio::io_context io;
};

TEST_P(ApiClient, ReadsAndWrites) {
    kube::api_client client(io.get_executor(), config_of(sim));
    const auto list = run(client, io, {"GET", "/api/v1/namespaces", "", "application/json"});
    ASSERT_TRUE(list) << list.status.message;
    EXPECT_EQ(test::parse(list.body)["items"].Size(), 4u); // kube-node-lease, kube-*, default
    const auto created = run(client, io,
                             {"POST", "/api/v1/namespaces/default/configmaps",
                              R"({"metadata":{"name":"a"}})", "application/json"});
    ASSERT_TRUE(created) << created.status.message;
    EXPECT_EQ(created.http_status, 201);
    for (int i = 0; i < 5; ++i)
        EXPECT_TRUE(
            run(client, io,
                {"GET", "/api/v1/namespaces/default/configmaps/a", "", "application/json"}));
    EXPECT_EQ(client.attempts(), 7u); // no retries were needed
}

TEST_P(ApiClient, StatusErrorsBecomeCodes) {
    kube::api_client client(io.get_executor(), config_of(sim));
    const auto missing =
        run(client, io,
            {"GET", "/apis/apps/v1/namespaces/default/deployments/nope", "", "application/json"});
    EXPECT_EQ(missing.ec, errc::not_found);
    EXPECT_EQ(missing.status.reason, "NotFound");
    EXPECT_EQ(missing.status.message, "deployments.apps \"nope\" not found");
    const std::string cm = R"({"metadata":{"name":"b"}})";
    ASSERT_TRUE(
        run(client, io, {"POST", "/api/v1/namespaces/default/configmaps", cm, "application/json"}));
    EXPECT_EQ(
        run(client, io, {"POST", "/api/v1/namespaces/default/configmaps", cm, "application/json"})
            .ec,
        errc::already_exists);
    const auto stale =
        run(client, io,
            {"PUT", "/api/v1/namespaces/default/configmaps/b",
             R"({"metadata":{"name":"b","resourceVersion":"1"}})", "application/json"});
    EXPECT_EQ(stale.ec, errc::conflict);
    EXPECT_EQ(run(client, io,
                  {"POST", "/api/v1/namespaces/default/configmaps",
                   R"({"metadata":{"name":"Bad_Name"}})", "application/json"})
                  .ec,
              errc::invalid);
    EXPECT_EQ(run(client, io,
                  {"PATCH", "/api/v1/namespaces/default/configmaps/b", "{}", "application/yaml"})
                  .ec,
              errc::unsupported_media_type);
}

TEST_P(ApiClient, RetriesThrottledRequestsAfterRetryAfter) {
    kube::client_options options;
    options.max_retry_after = 20ms; // the server asks for 1 s; keep the test quick
    kube::api_client client(io.get_executor(), config_of(sim), options);
    sim.run_on_cluster([&] {
        sim.cluster().api().faults().add({"list", "configmaps", 1.0, 429, 0ms});
    }); // the simulator is single-threaded
    const auto r =
        run(client, io, {"GET", "/api/v1/namespaces/default/configmaps", "", "application/json"});
    EXPECT_EQ(r.ec, errc::too_many_requests);
    EXPECT_EQ(r.status.retry_after_seconds, 1);
    EXPECT_EQ(client.attempts(), 4u); // one try and three retries
}

TEST_P(ApiClient, RetriesServerErrorsOnlyForReads) {
    kube::client_options options;
    options.backoff_base = 1ms;
    kube::api_client client(io.get_executor(), config_of(sim), options);
    sim.run_on_cluster([&] {
        sim.cluster().api().faults().add({"*", "configmaps", 1.0, 503, 0ms});
    }); // the simulator is single-threaded
    EXPECT_EQ(
        run(client, io, {"GET", "/api/v1/namespaces/default/configmaps", "", "application/json"})
            .ec,
        errc::server_error);
    EXPECT_EQ(client.attempts(), 4u);
    EXPECT_EQ(run(client, io,
                  {"POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"c"}})",
                   "application/json"})
                  .ec,
              errc::server_error);
    EXPECT_EQ(client.attempts(), 5u); // a create is not retried after a 5xx: it may have happened
}

TEST_P(ApiClient, TimesOut) {
    kube::client_options options;
    options.request_timeout = 100ms;
    options.max_retries = 0;
    kube::api_client client(io.get_executor(), config_of(sim), options);
    sim.run_on_cluster([&] {
        sim.cluster().api().faults().add({"get", "namespaces", 0.0, 503, 500ms});
    }); // the simulator is single-threaded
    EXPECT_EQ(run(client, io, {"GET", "/api/v1/namespaces/default", "", "application/json"}).ec,
              errc::timeout);
}

// Runs one watch to completion (10 s at most), recording "TYPE name" per event.
kube::api_response watch(kube::api_client& client, boost::asio::io_context& io,
                         const std::string& target, std::vector<std::string>& events,
                         std::size_t stop_after = 1000) {
    auto handler = [&](std::string_view type, std::string_view object) {
        const auto doc = test::parse(std::string(object));
        events.push_back(std::string(type) + " " + test::str(doc, "/metadata/name"));
        return events.size() < stop_after;
    };
    kube::api_client::event_handler h =
        handler; // named: GCC 12 mishandles temporaries passed to coroutines
    return test::run_awaitable(io, client.watch(target, std::move(h), 5s));
}

using test::paths::configmaps;

TEST_P(ApiClient, WatchReplaysThenStreamsUntilTheTimeout) {
    kube::api_client client(io.get_executor(), config_of(sim));
    ASSERT_TRUE(run(client, io,
                    {"POST", configmaps, R"({"metadata":{"name":"first"}})", "application/json"}));
    auto later = std::async(std::launch::async, [&] {
        std::this_thread::sleep_for(300ms);
        sim.request("POST", configmaps, R"({"metadata":{"name":"second"}})");
    });
    std::vector<std::string> events;
    const auto r = watch(client, io, configmaps + "?watch=true&timeoutSeconds=1", events);
    later.get();
    EXPECT_TRUE(r) << r.status.message; // ended cleanly at timeoutSeconds
    EXPECT_EQ(events, (std::vector<std::string>{"ADDED first", "ADDED second"}));
}

TEST_P(ApiClient, WatchFromAnExpiredVersionIsGone) {
    kube::api_client client(io.get_executor(), config_of(sim));
    const auto created =
        run(client, io, {"POST", configmaps, R"({"metadata":{"name":"a"}})", "application/json"});
    const std::string rv = test::str(test::parse(created.body), "/metadata/resourceVersion");
    sim.run_on_cluster([&] {
        sim.cluster().store().compact(*sim.cluster().store().find("", "v1", "configmaps"));
    });
    std::vector<std::string> events;
    const auto r = watch(client, io, configmaps + "?watch=true&resourceVersion=" + rv, events);
    EXPECT_EQ(r.ec, errc::gone);
    EXPECT_EQ(r.status.code, 410);
    EXPECT_TRUE(events.empty());
}

TEST_P(ApiClient, WatchStopsWhenTheHandlerSaysSo) {
    kube::api_client client(io.get_executor(), config_of(sim));
    for (const char* name : {"x", "y", "z"})
        ASSERT_TRUE(
            run(client, io,
                {"POST", configmaps, std::string(R"({"metadata":{"name":")") + name + R"("}})",
                 "application/json"}));
    std::vector<std::string> events;
    const auto r = watch(client, io, configmaps + "?watch=true", events, 2);
    EXPECT_TRUE(r);
    EXPECT_EQ(events.size(), 2u);
}

TEST_P(ApiClient, DroppedWatchIsAnError) {
    kube::api_client client(io.get_executor(), config_of(sim));
    auto dropper = std::async(std::launch::async, [&] {
        std::this_thread::sleep_for(500ms);
        sim.request("POST", "/sim/v1/faults/drop-watches");
    });
    const auto list = run(client, io, {"GET", configmaps, "", "application/json"});
    const std::string rv = test::str(test::parse(list.body), "/metadata/resourceVersion");
    std::vector<std::string> events;
    const auto r = watch(client, io, configmaps + "?watch=true&resourceVersion=" + rv, events);
    dropper.get();
    EXPECT_EQ(r.ec, errc::connection_failed) << r.status.message;
}

INSTANTIATE_TEST_SUITE_P(Transport, ApiClient, ::testing::Values(false, true),
                         [](const auto& info) {
                             return info.param ? std::string("Https") : std::string("Http");
                         });

TEST(ApiClientTls, RejectsAServerSignedByAnotherCa) {
    test::sim_fixture sim(true);
    boost::asio::io_context io;
    auto config = config_of(sim);
    config.ca_pem = net::make_self_signed({"127.0.0.1"}).ca_cert_pem; // somebody else's CA
    kube::client_options options;
    options.max_retries = 0;
    kube::api_client client(io.get_executor(), config, options);
    EXPECT_EQ(run(client, io, {"GET", "/api", "", "application/json"}).ec, errc::connection_failed);
}

TEST(ApiClientDown, ConnectionRefused) {
    boost::asio::io_context io;
    kube::cluster_config config;
    config.server = "http://127.0.0.1:1";
    kube::split_server(config.server, config.scheme, config.host, config.port);
    kube::client_options options;
    options.backoff_base = 1ms;
    kube::api_client client(io.get_executor(), config, options);
    const auto r = run(client, io, {"GET", "/api", "", "application/json"});
    EXPECT_EQ(r.ec, errc::connection_failed);
    EXPECT_NE(r.status.message.find("127.0.0.1:1"), std::string::npos) << r.status.message;
}

} // namespace
} // namespace hpaplus
