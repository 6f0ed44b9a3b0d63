// `hpaplus replay --vertical`: the recommendation replayed over a recording is the one
// `hpaplus recommend` gives at each step, and the requests' cost adds up sample by sample.
#include "../../support/build_paths.hpp"
#include "../../support/golden_files.hpp"
#include "cli/recommend/usage_history.hpp"
#include "cli/recommend_command.hpp"
#include "cli/replay/requests.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace hpaplus::cli {
namespace {

using namespace std::chrono_literals;

const std::string checkout = std::string(HPAPLUS_SOURCE_DIR) + "/examples/recommend/checkout.yaml";

TEST(ReplayRequests, EachStepsTargetIsWhatRecommendGivesThenAndTheCostAddsUp) {
    const auto history = decode_recorded_history(test::read_file(checkout), false);
    ASSERT_TRUE(history) << history.error().text;
    const auto r = replay_requests(*history, 1h);
    ASSERT_EQ(r.containers.size(), 2u);
    const auto& app = r.containers[0];
    ASSERT_EQ(app.container, "app");
    // 3 days from the first sample: a recommendation each hour, the first after one hour.
    EXPECT_EQ(app.targets.size(), 72u);
    EXPECT_EQ(app.targets.front().at, r.from + 1h);
    // Two pods, one sample each 10 minutes (433 each), every one counting 600 s: 500m requested
    // is 433 × 2 × 600 s × 0.5 core = 72.1667 core-hours; 1Gi is 144.333 GiB-hours.
    EXPECT_NEAR(app.cpu_requested, 433 * 2 * 600 * 0.5 / 3600, 1e-9);
    EXPECT_NEAR(app.memory_requested, 433 * 2 * 600 * 1.0 / 3600, 1e-9);
    EXPECT_TRUE(app.cpu_recommended_known && app.memory_recommended_known);
    // envoy: cpu is not controlled, so with VPAPlus it keeps the request it had.
    const auto& envoy = r.containers[1];
    EXPECT_DOUBLE_EQ(envoy.cpu_recommended, envoy.cpu_requested);
    EXPECT_EQ(envoy.targets.back().cpu_milli, 0);

    // The step's target is `hpaplus recommend` at that instant on the samples before it.
    for (const std::size_t k : {std::size_t{0}, std::size_t{30}, app.targets.size() - 1}) {
        const core::time_point at = app.targets[k].at;
        std::string samples, ooms;
        for (const auto& u : history->feed) {
            if (u.time >= at) break;
            const std::string item = "{\"time\": \"" + core::format_rfc3339_nano(u.time) +
                                     "\", \"pod\": \"" + u.pod + "\", \"container\": \"" +
                                     u.container + "\", \"memory\": \"" +
                                     std::to_string(*u.memory_bytes) + "\"";
            if (u.oom)
                ooms += (ooms.empty() ? "" : ",") + item + "}";
            else
                samples += (samples.empty() ? "" : ",") + item + ", \"cpu\": \"" +
                           std::to_string(*u.cpu_milli) + "m\"}";
        }
        const std::string input =
            "{\"now\": \"" + core::format_rfc3339(at) +
            "\", \"vpa\": {\"apiVersion\": \"autoscaling.hpaplus.io/v1alpha1\", \"kind\": "
            "\"VPAPlus\", \"metadata\": {\"name\": \"checkout\"}, \"spec\": {\"targetRef\": "
            "{\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\", \"name\": \"checkout\"}, "
            "\"resourcePolicy\": {\"containerPolicies\": [{\"containerName\": \"app\", "
            "\"minAllowed\": {\"cpu\": \"100m\", \"memory\": \"256Mi\"}, \"maxAllowed\": {\"cpu\": "
            "\"4\", \"memory\": \"8Gi\"}}, {\"containerName\": \"envoy\", \"controlledResources\": "
            "[\"memory\"]}]}}}, \"samples\": [" +
            samples + "], \"ooms\": [" + ooms + "]}";
        const auto result = recommend_document(input);
        ASSERT_EQ(result.exit_code, 0) << result.error;
        rapidjson::Document out;
        out.Parse(result.output.c_str());
        const auto& target = out["recommendation"]["containerRecommendations"][0]["target"];
        EXPECT_EQ(core::quantity::parse(target["cpu"].GetString())->milli_value(),
                  app.targets[k].cpu_milli)
            << "step " << k;
        EXPECT_EQ(core::quantity::parse(target["memory"].GetString())->value(),
                  app.targets[k].memory_bytes)
            << "step " << k;
    }
    EXPECT_NE(requests_html(r).find("Requests with VPAPlus"), std::string::npos);
    rapidjson::Document json;
    json.Parse(requests_json(r).c_str());
    ASSERT_FALSE(json.HasParseError()) << requests_json(r);
    EXPECT_EQ(json["containers"].Size(), 2u);
}

} // namespace
} // namespace hpaplus::cli
