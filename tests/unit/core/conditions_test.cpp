// core/kubernetes.hpp's condition list (upstream setCondition / removeCondition).
#include "core/kubernetes.hpp"

#include <gtest/gtest.h>

namespace hpaplus::core {
namespace {

const time_point t0 = time_point{} + std::chrono::seconds(1800000000);
const time_point t1 = t0 + std::chrono::seconds(30);

TEST(SetCondition, AddsInOrderAndMovesTheTimeOnlyWhenTheStatusFlips) {
    std::vector<condition> list;
    set_condition(list, "AbleToScale", condition_status::true_, "Ready", "ok", t0);
    set_condition(list, "ScalingActive", condition_status::true_, "ValidMetricFound",
                  "calculated from ", "cpu", t0);
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[1].message, "calculated from cpu");
    EXPECT_EQ(list[1].last_transition_time, t0);

    set_condition(list, "ScalingActive", condition_status::true_, "ValidMetricFound",
                  "calculated from ", "memory", t1);
    EXPECT_EQ(list[1].message, "calculated from memory");
    EXPECT_EQ(list[1].last_transition_time, t0) << "same status: the time stays";
    set_condition(list, "ScalingActive", condition_status::false_, "Failed", "gone", t1);
    EXPECT_EQ(list[1].reason, "Failed");
    EXPECT_EQ(list[1].message, "gone");
    EXPECT_EQ(list[1].last_transition_time, t1);
    remove_condition(list, "AbleToScale");
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0].type, "ScalingActive");
}

// A message made of the condition's own text (or another's, which a new one may move) comes out
// whole.
TEST(SetCondition, JoinsPiecesThatAreItsOwnOrAnothersText) {
    std::vector<condition> list;
    set_condition(list, "A", condition_status::true_, "R", "abcdefghijklmnopqrstuvwxyz", t0);
    const std::string_view own = list[0].message;
    set_condition(list, "A", condition_status::true_, "R", own.substr(13), own.substr(0, 13), t0);
    EXPECT_EQ(list[0].message, "nopqrstuvwxyzabcdefghijklm");
    const std::string_view other = list[0].message;
    set_condition(list, "B", condition_status::true_, "R", other, "!", t0);
    EXPECT_EQ(list[1].message, "nopqrstuvwxyzabcdefghijklm!");
    EXPECT_EQ(list[0].message, "nopqrstuvwxyzabcdefghijklm");
}

} // namespace
} // namespace hpaplus::core
