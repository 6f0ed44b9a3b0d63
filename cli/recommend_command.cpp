// cli/recommend_command.cpp — `hpaplus recommend`: decode the recorded history, feed it in time
// order through the controller's container windows and histograms (vertical/recommender), then
// recommend, write the conditions and encode the status exactly as the controller does.
#include "cli/recommend_command.hpp"

#include "cli/read_input.hpp"
#include "kube/api/vpaplus.hpp"
#include "kube/encode.hpp"
#include "kube/json_decoder.hpp"
#include "kube/yaml_json.hpp"
#include "vertical/recommendation_status.hpp"
#include "vertical/recommender/estimator.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cstdio>
#include <map>

namespace hpaplus::cli {
namespace {

using kube::json_decoder;
using kube::json_node;

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

/// One usage sample or OOM kill of the input, in the order it is fed.
struct recorded {
    core::time_point time;
    bool oom = false; ///< at equal times usage samples go first
    std::string pod;
    std::string container;
    std::optional<std::int64_t> cpu_milli;
    std::optional<std::int64_t> memory_bytes;
};

// A usage amount: CPU in millicores and memory in bytes, both rounded up as upstream's metrics
// client reads PodMetrics (MilliValue(), Value()).
std::optional<std::int64_t> amount(json_decoder& d, const json_node& n, bool milli) {
    const auto q = d.opt_quantity(n);
    if (!q) return std::nullopt;
    return milli ? q->milli_value() : q->value();
}

recorded decode_recorded(json_decoder& d, const json_node& n, bool oom) {
    recorded r;
    r.oom = oom;
    if (!d.object(n)) return r;
    if (oom)
        d.known_fields(n, {"time", "pod", "container", "memory"});
    else
        d.known_fields(n, {"time", "pod", "container", "cpu", "memory", "cpuRequest"});
    for (const char* required : {"time", "container"})
        if (!n[required].present()) d.fail(n[required], "required field is missing");
    if (oom && !n["memory"].present()) d.fail(n["memory"], "required field is missing");
    r.time = d.opt_time(n["time"]).value_or(core::time_point{});
    r.pod = d.opt_string(n["pod"]).value_or("");
    r.container = d.opt_string(n["container"]).value_or("");
    if (!oom) r.cpu_milli = amount(d, n["cpu"], true);
    r.memory_bytes = amount(d, n["memory"], false);
    // Accepted and checked, never weighted: upstream's recommender weighs every CPU sample alike.
    if (!oom) d.opt_quantity(n["cpuRequest"]);
    return r;
}

std::vector<recorded> decode_list(json_decoder& d, const json_node& list, bool oom) {
    std::vector<recorded> out;
    for (std::size_t i = 0, size = d.array(list); i < size && d.ok(); ++i)
        out.push_back(decode_recorded(d, list.at(i), oom));
    return out;
}

rapidjson::Value time_or_null(const std::optional<core::time_point>& t, kube::json_allocator& a) {
    if (!t) return rapidjson::Value(rapidjson::kNullType);
    return kube::json_string(core::format_rfc3339(*t), a);
}

std::string pretty(const rapidjson::Value& v) {
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
    writer.SetIndent(' ', 2);
    v.Accept(writer);
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

// JSON as it is, or the one document of a YAML file as JSON.
std::optional<std::string> parse_input(std::string_view input, rapidjson::Document& doc) {
    const auto first = input.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && (input[first] == '{' || input[first] == '[')) {
        if (auto err = kube::parse_json(doc, input, "")) return "bad JSON: " + err->message;
        return std::nullopt;
    }
    auto documents = kube::yaml_documents_to_json(std::string(input));
    if (!documents) return "bad YAML: " + documents.error().text;
    if (documents->size() != 1)
        return "expected one document, got " + std::to_string(documents->size());
    if (auto err = kube::parse_json(doc, documents->front(), "")) return err->message;
    return std::nullopt;
}

// One line of at most 400 bytes, whatever the input put into the message (a field name with a
// newline in it, a huge string): control bytes are written as \xNN.
recommend_result bad_input(const std::string& message) {
    std::string line;
    for (const char c : message.substr(0, 400)) {
        if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) {
            line += c;
            continue;
        }
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(c));
        line += escaped;
    }
    if (message.size() > 400) line += "...";
    return {2, {}, line};
}

} // namespace

recommend_result recommend_document(std::string_view input) {
    rapidjson::Document doc;
    if (auto why = parse_input(input, doc)) return bad_input(*why);
    json_decoder d;
    const json_node root{&doc, ""};
    if (!d.object(root)) return bad_input(d.error().to_string());
    d.known_fields(root, {"now", "vpa", "samples", "ooms"});
    for (const char* required : {"now", "vpa"})
        if (!root[required].present()) d.fail(root[required], "required field is missing");
    const core::time_point now = d.opt_time(root["now"]).value_or(core::time_point{});
    const kube::vpaplus vpa = kube::decode_vpaplus(d, root["vpa"]);
    std::vector<recorded> feed = decode_list(d, root["samples"], false);
    const std::vector<recorded> ooms = decode_list(d, root["ooms"], true);
    if (!d.ok()) return bad_input(d.error().to_string());

    // Time order; at equal times usage before OOMs, then file order.
    feed.insert(feed.end(), ooms.begin(), ooms.end());
    std::stable_sort(feed.begin(), feed.end(), [](const recorded& a, const recorded& b) {
        return a.time != b.time ? a.time < b.time : a.oom < b.oom;
    });
    const vertical::recommender_config config;
    std::map<std::string, vertical::container_aggregate> history; // by container name
    std::map<std::string, vertical::container_window> windows;    // by pod/container
    for (const auto& r : feed) {
        auto& aggregate = history.try_emplace(r.container, config).first->second;
        auto& window = windows[r.pod + "/" + r.container];
        if (r.oom) {
            window.record_oom(aggregate, *r.memory_bytes, r.time, config);
            continue;
        }
        if (r.cpu_milli) window.add_cpu(aggregate, *r.cpu_milli, r.time);
        if (r.memory_bytes) window.add_memory(aggregate, *r.memory_bytes, r.time, config);
    }
    std::erase_if(history, [&](const auto& kv) { return kv.second.expired(now, config); });

    kube::vpaplus_status status;
    status.recommendations = vertical::recommend_containers(history, vpa.policies, config);
    vertical::set_recommendation_conditions(
        status.conditions, status.recommendations, !history.empty(),
        vertical::lowest_confidence(history, status.recommendations, config), now);

    // The status as the controller encodes it; its recommendation and conditions are the answer.
    rapidjson::Document encoded;
    encoded.Parse(kube::encode_vpaplus_status(status).c_str());
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
    return {0, pretty(out), {}};
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
