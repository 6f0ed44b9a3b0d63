// controller/vpaplus/history.hpp: the PromQL selector of a workload's containers.
#include "controller/vpaplus/history.hpp"

#include <gtest/gtest.h>

namespace hpaplus::controller {
namespace {

TEST(PrometheusHistory, SelectsTheWorkloadsPodsAndRealContainers) {
    EXPECT_EQ(history_selector("shop", "web"),
              R"({namespace="shop",pod=~"web-.+",container!="",container!="POD"})");
    // A dot in the name is a literal dot in the regex (escaped for PromQL's string, too).
    EXPECT_EQ(history_selector("a", "api.v2"),
              R"({namespace="a",pod=~"api\\.v2-.+",container!="",container!="POD"})");
}

} // namespace
} // namespace hpaplus::controller
