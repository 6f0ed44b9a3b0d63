// cli/recommend_command.cpp — `hpaplus recommend`: decode the recorded history, feed it in time
// order through the controller's container windows and histograms (vertical/recommender), then
// recommend, write the conditions and encode the status exactly as the controller does.
#include "cli/recommend_command.hpp"

#include "cli/evaluate/decision_json.hpp"
#include "cli/read_input.hpp"
#include "cli/recommend/usage_history.hpp"
#include "controller/vpaplus/recommendation_status.hpp"
#include "kinds/vpaplus.hpp"
#include "kube/encode.hpp"
#include "vertical/recommender/estimator.hpp"

#include <cstdio>

namespace hpaplus::cli {
namespace {

constexpr const char* recommend_usage =
    "Usage: hpaplus recommend FILE|-\n"
    "\n"
    "Runs the VPAPlus recommender once, offline, on a recorded usage history (JSON or YAML: now, "
    "a\n"
    "VPAPlus as vpa, samples [{time, pod, container, cpu, memory, cpuRequest}] and ooms\n"
    "[{time, pod, container, memory}]) and prints the recommendation, the conditions and each\n"
    "container's history as JSON. The controller's recommender code runs; the numbers are the\n"
    "upstream VPA recommender's. See docs/vertical.md, \"Check it offline\".\n"
    "\n"
    "Exit codes: 0 recommended, 2 bad usage or bad input (one line on stderr naming the field).\n";

rapidjson::Value time_or_null(const std::optional<core::time_point>& t, kube::json_allocator& a) {
    if (!t) return rapidjson::Value(rapidjson::kNullType);
    return kube::json_string(core::format_rfc3339(*t), a);
}

} // namespace

recommend_result recommend_document(std::string_view input) {
    auto recorded = decode_recorded_history(input, true);
    if (!recorded) return {2, {}, recorded.error().text};
    const core::time_point now = *recorded->now;
    usage_histories histories;
    for (const auto& r : recorded->feed)
        histories.feed(r);

    kinds::vpaplus_status status;
    status.recommendations = histories.recommend(now, recorded->vpa.policies);
    const auto& history = histories.by_name;
    const auto& config = histories.config;
    controller::set_recommendation_conditions(
        status.conditions, status.recommendations, !history.empty(),
        vertical::lowest_confidence(history, status.recommendations, config), now);

    // The status as the controller encodes it; its recommendation and conditions are the answer.
    rapidjson::Document encoded;
    encoded.Parse(kinds::encode_vpaplus_status(status).c_str());
    rapidjson::Document out(rapidjson::kObjectType);
    auto& a = out.GetAllocator();
    out.AddMember("recommendation", rapidjson::Value(encoded["recommendation"], a), a);
    out.AddMember("conditions", rapidjson::Value(encoded["conditions"], a), a);
    rapidjson::Value containers(rapidjson::kArrayType);
    for (const auto& [name, aggregate] : history) {
        rapidjson::Value c(rapidjson::kObjectType);
        c.AddMember("containerName", kube::json_string(name, a), a);
        c.AddMember("totalSamples", static_cast<std::uint64_t>(aggregate.total_samples()), a);
        c.AddMember("firstSample", time_or_null(aggregate.first_sample(), a), a);
        c.AddMember("lastSample", time_or_null(aggregate.last_sample(), a), a);
        c.AddMember("confidenceDays", vertical::confidence_of(aggregate, config), a);
        containers.PushBack(c, a);
    }
    out.AddMember("history", containers, a);
    return {0, pretty_json(out), {}};
}

int run_recommend(int argc, char** argv) {
    if (argc >= 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
        std::fputs(recommend_usage, stdout);
        return 0;
    }
    if (argc != 2) {
        std::fputs(recommend_usage, stderr);
        return 2;
    }
    const auto text = read_input(argv[1]);
    if (!text) {
        std::fprintf(stderr, "hpaplus recommend: %s: %s\n", argv[1], text.error().text.c_str());
        return 2;
    }
    const recommend_result result = recommend_document(*text);
    if (result.exit_code != 0) {
        std::fprintf(stderr, "hpaplus recommend: %s: %s\n", argv[1], result.error.c_str());
        return result.exit_code;
    }
    std::fwrite(result.output.data(), 1, result.output.size(), stdout);
    return 0;
}

} // namespace hpaplus::cli
