// The board between /debug/objects and the workers: an answer goes to the requests for that
// object only, a request is answered once, and no more than max_waiting wait at once.
#include "controller/runtime/debug_snapshots.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace hpaplus::controller {
namespace {

TEST(DebugSnapshots, NothingIsWantedWhileNobodyAsks) {
    debug_snapshots board;
    EXPECT_FALSE(board.wanted("HPAPlus", "default", "web"));
}

TEST(DebugSnapshots, AnAnswerGoesToTheRequestsForThatObjectOnly) {
    debug_snapshots board;
    const auto any_kind = board.ask("", "default", "web");
    const auto native = board.ask("HorizontalPodAutoscaler", "default", "web");
    const auto other = board.ask("", "default", "api");
    EXPECT_TRUE(board.wanted("HPAPlus", "default", "web"));
    EXPECT_FALSE(board.wanted("HPAPlus", "shop", "web"));

    board.answer("HPAPlus", "default", "web", "{\"now\": 1}");
    EXPECT_EQ(board.take(any_kind), "{\"now\": 1}");
    EXPECT_EQ(board.take(any_kind), std::nullopt); // answered once, then gone
    EXPECT_EQ(board.take(native), std::nullopt);   // another kind's pass
    EXPECT_EQ(board.take(other), std::nullopt);
    EXPECT_TRUE(board.wanted("HorizontalPodAutoscaler", "default", "web"));
    EXPECT_FALSE(board.wanted("HPAPlus", "default", "web"));

    board.cancel(native);
    board.cancel(other);
    EXPECT_FALSE(board.wanted("HorizontalPodAutoscaler", "default", "web"));
    EXPECT_FALSE(board.wanted("HPAPlus", "default", "api"));
}

TEST(DebugSnapshots, NoMoreThanMaxWaitingWaitAtOnce) {
    debug_snapshots board;
    std::vector<std::uint64_t> tickets;
    for (std::size_t i = 0; i < debug_snapshots::max_waiting; ++i)
        tickets.push_back(board.ask("", "default", "web"));
    EXPECT_EQ(board.ask("", "default", "web"), 0u);
    board.cancel(tickets.front());
    EXPECT_NE(board.ask("", "default", "web"), 0u);
}

TEST(DebugSnapshots, AWorkerOnAnotherThreadAnswers) {
    debug_snapshots board;
    const auto ticket = board.ask("", "default", "web");
    std::thread worker([&] {
        while (!board.wanted("HPAPlus", "default", "web"))
            std::this_thread::yield();
        board.answer("HPAPlus", "default", "web", "input");
    });
    std::optional<std::string> answer;
    while (!(answer = board.take(ticket)))
        std::this_thread::yield();
    worker.join();
    EXPECT_EQ(answer, "input");
}

} // namespace
} // namespace hpaplus::controller
