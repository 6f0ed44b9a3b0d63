// HPAPlusCheckpoint (kinds/prediction_checkpoint): a Recorded prediction history written and read
// back, gaps as nulls, the newest values kept, and hostile objects refused with a reason.
#include "kinds/prediction_checkpoint.hpp"

#include <gtest/gtest.h>

namespace hpaplus::kinds {
namespace {

using namespace std::chrono_literals;

const core::time_point t0 = core::time_point{} + std::chrono::seconds(1'800'000'000);

std::string object_with(const std::string& status) {
    return R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1","kind":"HPAPlusCheckpoint",)"
           R"("metadata":{"name":"web"},"status":)" +
           status + "}";
}

TEST(PredictionCheckpoint, RoundTripsWithGapsAsNulls) {
    prediction_history h{"cpu", 1min, {{t0 + 5s, 80}, {t0 + 60s, 81.5}, {t0 + 180s + 30s, 90}}};
    const std::string status = encode_prediction_checkpoint_status(h, t0 + 4min);
    EXPECT_NE(status.find(R"("values":[80.0,81.5,null,90.0])"), std::string::npos) << status;
    EXPECT_NE(status.find(R"("step":"1m0s")"), std::string::npos) << status;
    const auto back = decode_prediction_checkpoint(object_with(status));
    ASSERT_TRUE(back) << back.error().text;
    EXPECT_EQ(back->metric, "cpu");
    EXPECT_EQ(back->step, 1min);
    ASSERT_EQ(back->samples.size(), 3u);
    // Each value at the start of its step.
    EXPECT_EQ(back->samples[0].time, t0);
    EXPECT_EQ(back->samples[2].time, t0 + 3min);
    EXPECT_EQ(back->samples[2].value, 90);
}

// Issue 69 (3): the owners are decoded so the controller can tell its own checkpoint from one
// someone else made; only HPAPlus owners count.
TEST(PredictionCheckpoint, DecodesTheHpaPlusOwnersUids) {
    const auto status = encode_prediction_checkpoint_status({"cpu", 1min, {{t0, 80}}}, t0);
    const auto owned = decode_prediction_checkpoint(
        R"({"kind":"HPAPlusCheckpoint","metadata":{"name":"web","ownerReferences":[)"
        R"({"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"d-1"},)"
        R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1","kind":"HPAPlus","name":"web",)"
        R"("uid":"u-1"}]},"status":)" +
        status + "}");
    ASSERT_TRUE(owned) << owned.error().text;
    EXPECT_EQ(owned->owner_uids, std::vector<std::string>{"u-1"});
    const auto orphan = decode_prediction_checkpoint(object_with(status));
    ASSERT_TRUE(orphan) << orphan.error().text;
    EXPECT_TRUE(orphan->owner_uids.empty());
    EXPECT_FALSE(decode_prediction_checkpoint(
        R"({"metadata":{"ownerReferences":{"kind":"HPAPlus"}},"status":)" + status + "}"))
        << "ownerReferences must be a list";
}

TEST(PredictionCheckpoint, KeepsTheNewestValuesWhenThereAreTooMany) {
    prediction_history h{
        "cpu", 1s, {{t0, 1}, {t0 + std::chrono::seconds(max_checkpoint_values), 2}}};
    const auto back =
        decode_prediction_checkpoint(object_with(encode_prediction_checkpoint_status(h, t0)));
    ASSERT_TRUE(back) << back.error().text;
    ASSERT_EQ(back->samples.size(), 1u) << "the oldest falls out of the window";
    EXPECT_EQ(back->samples[0].value, 2);
}

TEST(PredictionCheckpoint, RefusesWhatCannotBeAHistory) {
    std::string too_many = "[1";
    for (std::size_t i = 0; i < max_checkpoint_values; ++i)
        too_many += ",1";
    too_many += "]";
    const struct {
        const char* what;
        std::string object;
        const char* says;
    } rows[] = {
        {"not JSON", "{", ""},
        {"no status", R"({"kind":"HPAPlusCheckpoint"})", "no status"},
        {"no step", object_with(R"({"metric":"cpu","start":"2026-01-01T00:00:00Z","values":[1]})"),
         "positive step"},
        {"values without a start", object_with(R"({"metric":"cpu","step":"1m","values":[1]})"),
         "required with values"},
        {"a string value",
         object_with(
             R"({"metric":"cpu","step":"1m","start":"2026-01-01T00:00:00Z","values":["x"]})"),
         "expected a number"},
        {"too many values",
         object_with(R"({"metric":"cpu","step":"1m","start":"2026-01-01T00:00:00Z","values":)" +
                     too_many + "}"),
         "more than 131072 values"},
        {"a step that ends past the representable times",
         object_with(
             R"({"metric":"cpu","step":"2562047h","start":"2026-01-01T00:00:00Z","values":[1,2,3]})"),
         "representable"},
    };
    for (const auto& r : rows) {
        const auto h = decode_prediction_checkpoint(r.object);
        ASSERT_FALSE(h) << r.what;
        EXPECT_NE(h.error().text.find(r.says), std::string::npos)
            << r.what << ": " << h.error().text;
    }
}

} // namespace
} // namespace hpaplus::kinds
