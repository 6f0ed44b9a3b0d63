// A mirror follows its source across threads: the same objects (shared, not copied), every change
// in order, told to its handlers on its own thread.
#include "kube/object_cache.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace hpaplus::kube {
namespace {

// A cache changed by hand, as an informer changes it from watch events.
struct hand_cache final : object_cache {
    using object_cache::put;
    using object_cache::remove;
};

object_cptr object(const std::string& ns, const std::string& name, int version) {
    auto o = std::make_shared<cached_object>(ns, name);
    o->resource_version = std::to_string(version);
    o->labels = {{"app", name.substr(0, 1)}};
    return o;
}

class lane {
  public:
    lane() : work_(io_.get_executor()), thread_([this] { io_.run(); }) {}
    ~lane() {
        work_.reset();
        thread_.join();
    }
    boost::asio::any_io_executor executor() { return io_.get_executor(); }
    // Runs `f` on the lane's thread and waits for it.
    template <class F> auto on_lane(F f) {
        std::packaged_task<decltype(f())()> task(std::move(f));
        auto done = task.get_future();
        boost::asio::post(io_, [&task] { task(); });
        return done.get();
    }

  private:
    boost::asio::io_context io_;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
    std::thread thread_;
};

// The cache's keys are views into its objects: a new version replaces the entry's key with its own,
// so the old version may go (ASan in CI would see a key left pointing into it).
TEST(ObjectCache, EachVersionBringsItsOwnKey) {
    const cached_object pod("shop", "web-1"), node("", "node-a");
    EXPECT_EQ(pod.key, "shop/web-1");
    EXPECT_EQ(pod.namespace_(), "shop");
    EXPECT_EQ(pod.name(), "web-1");
    EXPECT_EQ(node.key, "/node-a");
    EXPECT_EQ(node.namespace_(), "");
    EXPECT_EQ(node.name(), "node-a");

    hand_cache cache;
    cache.put(object("shop", "web-1", 1));
    cache.put(object("shop", "web-2", 1));
    cache.put(object("shop", "web-1", 2)); // version 1 is gone now
    ASSERT_NE(cache.find("shop", "web-1"), nullptr);
    EXPECT_EQ(cache.find("shop", "web-1")->resource_version, "2");
    const auto items = cache.items();
    ASSERT_EQ(items->size(), 2u);
    EXPECT_EQ(items->begin()->first, "shop/web-1");
    cache.remove(object("shop", "web-1", 3));
    EXPECT_EQ(cache.find("shop", "web-1"), nullptr);
    EXPECT_EQ(cache.select("shop", {}).size(), 1u);
}

TEST(Mirror, FollowsItsSourceAcrossThreads) {
    hand_cache source;
    for (int i = 0; i < 100; ++i)
        source.put(object("before", "o" + std::to_string(i), 1));
    lane other;
    mirror copy(source, other.executor());
    std::thread::id told_on;
    std::size_t told = 0;
    std::string last_deleted;
    other.on_lane([&] {
        copy.on_change([&](change what, const object_cptr& o, const object_cptr& previous) {
            told_on = std::this_thread::get_id();
            ++told;
            if (what == change::deleted) {
                last_deleted = o->key;
                EXPECT_NE(previous, nullptr);
            }
        });
        return 0;
    });
    std::size_t source_told = 0;
    source.on_change([&](change, const object_cptr&, const object_cptr&) { ++source_told; });
    // Many changes while the other thread applies them: adds, updates, deletes, re-adds.
    for (int round = 0; round < 20; ++round) {
        for (int i = 0; i < 200; ++i)
            source.put(object("ns" + std::to_string(i % 7), "p" + std::to_string(i), round));
        for (int i = round % 3; i < 200; i += 3)
            source.remove(object("ns" + std::to_string(i % 7), "p" + std::to_string(i), round));
    }
    source.remove(object("before", "o7", 1));
    const auto expected = source.items();
    const auto [mirrored, ours, selected] = other.on_lane([&] {
        const auto all = copy.items();
        return std::tuple{all, std::this_thread::get_id(),
                          copy.select("ns3", core::parse_label_selector("app=p").value())};
    });
    ASSERT_EQ(mirrored->size(), expected->size());
    for (const auto& [key, o] : *expected) {
        const auto it = mirrored->find(key);
        ASSERT_NE(it, mirrored->end()) << key;
        EXPECT_EQ(it->second, o) << key; // the same object, not a copy
    }
    EXPECT_EQ(told_on, ours);
    EXPECT_EQ(told, source_told) << "every change told once";
    EXPECT_GT(told, 4000u);
    EXPECT_EQ(last_deleted, "before/o7");
    EXPECT_EQ(selected, source.select("ns3", core::parse_label_selector("app=p").value()));
}

} // namespace
} // namespace hpaplus::kube
