// metrics::shared_pod_metrics against the simulated cluster: objects of one namespace asking
// within the window share one PodMetricsList, each gets only the pods its selector selects, a
// read after the window is a new list, an object is not given a read it had already, another
// namespace has its own, an object naming its pods gets those of them its selector selects, in the
// list's order, expired reads are dropped a few at a time, a window of 0 sends one list per
// read, and lanes (--threads) take each other's finished reads through a pod_metrics_exchange.
#include "../support/run_awaitable.hpp"
#include "../support/sim_fixture.hpp"
#include "kube/config.hpp"
#include "metrics/shared_pod_metrics.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <thread>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

class SharedPodMetrics : public ::testing::Test {
  protected:
    void SetUp() override {
        for (const auto& [name, app] :
             {std::pair{"web-1", "web"}, std::pair{"web-2", "web"}, std::pair{"db-1", "db"}})
            ASSERT_EQ(sim.request("POST", "/api/v1/namespaces/default/pods",
                                  std::string(R"({"metadata":{"name":")") + name +
                                      R"(","labels":{"app":")" + app +
                                      R"("}},"spec":{"containers":[{"name":"c","image":"x"}]}})")
                          .status,
                      201);
        // The simulated kubelet starts them; metrics come once they run.
        ASSERT_TRUE(test::eventually(
            [&] {
                metrics::shared_pod_metrics unshared(io.get_executor(), client, 0ms);
                return names(test::run_awaitable(io, unshared.read("default", ""))).size() == 3;
            },
            20s));
    }
    static std::vector<std::string> names(const metrics::pod_metrics_answer& a) {
        std::vector<std::string> out;
        for (const auto* m : a.items)
            out.push_back(m->name);
        std::sort(out.begin(), out.end());
        return out;
    }

    test::sim_fixture sim;
    boost::asio::io_context io;
    kube::api_client client{io.get_executor(),
                            kube::parse_kubeconfig(sim.cluster().kubeconfig(), "").value()};
};

TEST_F(SharedPodMetrics, ObjectsOfANamespaceShareOneListWithinTheWindow) {
    metrics::shared_pod_metrics shared(io.get_executor(), client, 60s);
    // Two objects asking at once: one list, each its own pods.
    std::optional<metrics::pod_metrics_answer> web, db;
    boost::asio::co_spawn(io, shared.read("default", "app=web"),
                          [&](std::exception_ptr, metrics::pod_metrics_answer a) { web = a; });
    boost::asio::co_spawn(io, shared.read("default", "app in (db)"),
                          [&](std::exception_ptr, metrics::pod_metrics_answer a) { db = a; });
    io.restart();
    while ((!web || !db) && io.run_one_for(10s) > 0) {
    }
    ASSERT_TRUE(web && db);
    EXPECT_EQ(names(*web), (std::vector<std::string>{"web-1", "web-2"}));
    EXPECT_EQ(names(*db), std::vector<std::string>{"db-1"});
    EXPECT_EQ(shared.lists_sent(), 1u);
    // Later within the window: still that list. Another namespace: its own.
    EXPECT_EQ(names(test::run_awaitable(io, shared.read("default", ""))).size(), 3u);
    EXPECT_EQ(shared.lists_sent(), 1u);
    EXPECT_TRUE(test::run_awaitable(io, shared.read("kube-system", "")).items.empty());
    EXPECT_EQ(shared.lists_sent(), 2u);
}

TEST_F(SharedPodMetrics, AnObjectNamingItsPodsGetsThoseItsSelectorSelectsInTheListsOrder) {
    metrics::shared_pod_metrics shared(io.get_executor(), client, 60s);
    const auto in_order = [](const metrics::pod_metrics_answer& a) {
        std::vector<std::string> out;
        for (const auto* m : a.items)
            out.push_back(m->name);
        return out;
    };
    const auto all = in_order(test::run_awaitable(io, shared.read("default", "")));
    ASSERT_EQ(all.size(), 3u);
    // Named out of order, one twice, one the list lacks: the list's order, each pod once, no
    // unknown pod.
    const std::vector<std::string_view> named{all[2], "gone-1", all[0], all[2]};
    EXPECT_EQ(in_order(test::run_awaitable(io, shared.read("default", "", named))),
              (std::vector<std::string>{all[0], all[2]}));
    // A named pod the selector does not select is left out, as the server would have.
    std::vector<std::string> web = all;
    std::erase(web, "db-1");
    const std::vector<std::string_view> web_and_db{"db-1", "web-2", "web-1"};
    EXPECT_EQ(in_order(test::run_awaitable(io, shared.read("default", "app=web", web_and_db))),
              web);
    EXPECT_EQ(shared.lists_sent(), 1u);
}

TEST_F(SharedPodMetrics, AReadAfterTheWindowIsANewList) {
    metrics::shared_pod_metrics shared(io.get_executor(), client, 100ms);
    (void)test::run_awaitable(io, shared.read("default", "app=web"));
    std::this_thread::sleep_for(150ms);
    EXPECT_EQ(names(test::run_awaitable(io, shared.read("default", "app=web"))).size(), 2u);
    EXPECT_EQ(shared.lists_sent(), 2u);
}

TEST_F(SharedPodMetrics, AnObjectIsNotGivenTheReadItHadAlready) {
    metrics::shared_pod_metrics shared(io.get_executor(), client, 60s);
    const auto first = test::run_awaitable(io, shared.read("default", "app=web"));
    EXPECT_EQ(first.shared_read, 1u);
    // The same object again within the window (it reconciles more often): a read of its own...
    const auto again = test::run_awaitable(io, shared.read("default", "app=web", {}, 1));
    EXPECT_EQ(again.shared_read, 2u);
    EXPECT_EQ(names(again), (std::vector<std::string>{"web-1", "web-2"}));
    EXPECT_EQ(shared.lists_sent(), 2u);
    // ...which another object, that had neither, shares.
    EXPECT_EQ(test::run_awaitable(io, shared.read("default", "app=db")).shared_read, 2u);
    EXPECT_EQ(shared.lists_sent(), 2u);
}

TEST_F(SharedPodMetrics, ExpiredReadsAreDroppedAFewAtATime) {
    // A window long enough for four reads on a slow (sanitized) build.
    metrics::shared_pod_metrics shared(io.get_executor(), client, 2s);
    for (const char* ns : {"default", "ns-1", "ns-2", "ns-3"})
        (void)test::run_awaitable(io, shared.read(ns, ""));
    EXPECT_EQ(shared.namespaces_held(), 4u);
    std::this_thread::sleep_for(2100ms);
    // Each read drops at most two expired namespaces, the oldest first ("default", replaced by
    // its new read, and "ns-1"), so that dropping never holds the thread for long...
    EXPECT_EQ(names(test::run_awaitable(io, shared.read("default", ""))).size(), 3u);
    EXPECT_EQ(shared.namespaces_held(), 3u);
    // ...and the next reads drop the rest.
    (void)test::run_awaitable(io, shared.read("default", ""));
    EXPECT_EQ(shared.namespaces_held(), 1u);
    EXPECT_EQ(shared.lists_sent(), 5u);
}

// Two lanes (--threads) sharing their reads, each with its own executor and client.
class SharedPodMetricsLanes : public SharedPodMetrics {
  protected:
    std::shared_ptr<metrics::pod_metrics_exchange> exchange =
        std::make_shared<metrics::pod_metrics_exchange>(60s);
    metrics::shared_pod_metrics first_lane{io.get_executor(), client, 60s, exchange};
    boost::asio::io_context other_io;
    kube::api_client other_client{other_io.get_executor(),
                                  kube::parse_kubeconfig(sim.cluster().kubeconfig(), "").value()};
    metrics::shared_pod_metrics second_lane{other_io.get_executor(), other_client, 60s, exchange};
};

TEST_F(SharedPodMetricsLanes, ALaneTakesTheReadAnotherLaneFinishedWithinTheWindow) {
    // Each lane on a thread of its own, as with --threads.
    const auto on_second_lane = [&](const char* selector, std::uint64_t after_read) {
        metrics::pod_metrics_answer answer;
        std::thread lane([&] {
            answer = test::run_awaitable(other_io,
                                         second_lane.read("default", selector, {}, after_read));
        });
        lane.join();
        return answer;
    };

    const auto first = test::run_awaitable(io, first_lane.read("default", "app=web"));
    const auto taken = on_second_lane("app=db", 0);
    EXPECT_EQ(names(taken), std::vector<std::string>{"db-1"});
    EXPECT_EQ(taken.shared_read, first.shared_read);
    EXPECT_EQ(first_lane.lists_sent(), 1u);
    EXPECT_EQ(second_lane.lists_sent(), 0u);
    // An object that had that read reads afresh; its read, numbered after the first across both
    // lanes, is what the first lane gives its own object that had the first.
    const auto again = on_second_lane("app=web", first.shared_read);
    EXPECT_EQ(again.shared_read, first.shared_read + 1);
    EXPECT_EQ(second_lane.lists_sent(), 1u);
    const auto back =
        test::run_awaitable(io, first_lane.read("default", "", {}, first.shared_read));
    EXPECT_EQ(back.shared_read, again.shared_read);
    EXPECT_EQ(names(back).size(), 3u);
    EXPECT_EQ(first_lane.lists_sent(), 1u);
    EXPECT_EQ(exchange->namespaces_held(), 1u);
}

TEST_F(SharedPodMetricsLanes, ALaneWaitsForTheReadAnotherLaneIsMaking) {
    // The list answers after 300 ms: the first lane's read is surely in flight when the second
    // lane asks (without it, a fast answer could land within the poll below).
    ASSERT_EQ(sim.request("POST", "/sim/v1/faults",
                          R"({"rules":[{"verb":"list","resource":"pods","latencyMs":300}]})")
                  .status,
              200);
    std::optional<metrics::pod_metrics_answer> first;
    boost::asio::co_spawn(io, first_lane.read("default", "app=web"),
                          [&](std::exception_ptr, metrics::pod_metrics_answer a) { first = a; });
    io.restart();
    io.poll(); // the first lane's read is on its way
    ASSERT_FALSE(first);
    metrics::pod_metrics_answer second;
    std::thread lane(
        [&] { second = test::run_awaitable(other_io, second_lane.read("default", "app=db")); });
    while (!first && io.run_one_for(10s) > 0) {
    }
    lane.join();
    ASSERT_TRUE(first);
    EXPECT_EQ(names(second), std::vector<std::string>{"db-1"});
    EXPECT_EQ(second.shared_read, first->shared_read);
    EXPECT_EQ(first_lane.lists_sent(), 1u);
    EXPECT_EQ(second_lane.lists_sent(), 0u);
}

TEST_F(SharedPodMetrics, ALaneDoesNotTakeAnotherLanesReadPastTheWindow) {
    const auto exchange = std::make_shared<metrics::pod_metrics_exchange>(100ms);
    metrics::shared_pod_metrics first_lane(io.get_executor(), client, 100ms, exchange);
    metrics::shared_pod_metrics second_lane(io.get_executor(), client, 100ms, exchange);
    (void)test::run_awaitable(io, first_lane.read("default", "app=web"));
    std::this_thread::sleep_for(150ms);
    EXPECT_EQ(names(test::run_awaitable(io, second_lane.read("default", "app=web"))).size(), 2u);
    EXPECT_EQ(second_lane.lists_sent(), 1u);
}

TEST_F(SharedPodMetrics, AWindowOfZeroSendsOneListPerRead) {
    metrics::shared_pod_metrics unshared(io.get_executor(), client, 0ms);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(names(test::run_awaitable(io, unshared.read("default", "app=db"))),
                  std::vector<std::string>{"db-1"});
    EXPECT_EQ(unshared.lists_sent(), 3u);
}

TEST_F(SharedPodMetrics, AnErrorReachesEveryObjectThatShared) {
    metrics::shared_pod_metrics shared(io.get_executor(), client, 60s);
    ASSERT_EQ(
        sim.request(
               "PUT", "/sim/v1/faults",
               R"({"rules":[{"verb":"list","resource":"pods","errorRate":1,"errorCode":503}]})")
            .status,
        200);
    const auto a = test::run_awaitable(io, shared.read("default", "app=web"));
    EXPECT_FALSE(a.error.empty());
    const auto b = test::run_awaitable(io, shared.read("default", "app=db"));
    EXPECT_EQ(b.error, a.error);
    EXPECT_EQ(shared.lists_sent(), 1u);
}

} // namespace
} // namespace hpaplus
