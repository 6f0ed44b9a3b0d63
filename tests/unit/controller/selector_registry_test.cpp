// controller/hpaplus/selector_registry: the selectors AmbiguousSelector compares (upstream's
// hpaSelectors).
#include "controller/hpaplus/selector_registry.hpp"

#include <gtest/gtest.h>

namespace hpaplus::controller {
namespace {

TEST(SelectorRegistry, KeepsEachAutoscalersSelectorAndForgetsANullOne) {
    selector_registry registry;
    std::vector<std::string> told;
    registry.on_change([&](const std::string& ns, const std::string& name,
                           const selector_registry::selector_ptr& selector) {
        told.push_back(ns + "/" + name + (selector ? " put" : " erased"));
    });
    const auto web =
        std::make_shared<const core::label_selector>(core::parse_label_selector("app=web").value());
    registry.put("shop", "a", web);
    registry.put("shop", "b", web);
    policy::pod_info pod;
    pod.labels = core::label_map{{"app", "web"}};
    const std::vector<const policy::pod_info*> pods{&pod};
    ASSERT_EQ(registry.peers_picking("shop", "a", pods).size(), 1u);
    EXPECT_EQ(registry.peers_picking("shop", "a", pods)[0].name, "b");
    EXPECT_TRUE(registry.peers_picking("other", "a", pods).empty());

    const auto version = registry.version("shop");
    registry.put("shop", "b", web); // the same selector again: nothing changed
    EXPECT_EQ(registry.version("shop"), version);
    registry.put("shop", "b", nullptr); // no selector: b picks nothing any more
    EXPECT_TRUE(registry.peers_picking("shop", "a", pods).empty());
    EXPECT_GT(registry.version("shop"), version);
    registry.erase("shop", "a", false); // not told
    EXPECT_EQ(told, (std::vector<std::string>{"shop/a put", "shop/b put", "shop/b erased"}));
}

} // namespace
} // namespace hpaplus::controller
