// cli/recommend/usage_history.cpp — decoding a recorded usage history, feeding it.
#include "cli/recommend/usage_history.hpp"

#include "kube/json_decoder.hpp"
#include "kube/yaml_json.hpp"

#include <algorithm>
#include <cstdio>

namespace hpaplus::cli {
namespace {

using kube::json_decoder;
using kube::json_node;

// Times from 1970 to 2200: any two are less than 292 years (an int64 of nanoseconds) apart.
std::optional<core::time_point> in_range_time(json_decoder& d, const json_node& n) {
    const auto t = d.opt_time(n);
    if (!t) return t;
    if (*t < core::time_point{} ||
        *t >= core::time_point{} + std::chrono::hours(24) * (365 * 230 + 56)) {
        d.fail(n, "out of range (1970 to 2200)");
        return std::nullopt;
    }
    return t;
}

// A usage amount: CPU in millicores and memory in bytes, both rounded up as upstream's metrics
// client reads PodMetrics (MilliValue(), Value()).
std::optional<std::int64_t> amount(json_decoder& d, const json_node& n, bool milli) {
    const auto q = d.opt_quantity(n);
    if (!q) return std::nullopt;
    return milli ? q->milli_value() : q->value();
}

recorded_usage decode_usage(json_decoder& d, const json_node& n, bool oom) {
    recorded_usage r;
    r.oom = oom;
    if (!d.object(n)) return r;
    if (oom)
        d.known_fields(n, {"time", "pod", "container", "memory"});
    else
        d.known_fields(
            n, {"time", "pod", "container", "cpu", "memory", "cpuRequest", "memoryRequest"});
    for (const char* required : {"time", "container"})
        if (!n[required].present()) d.fail(n[required], "required field is missing");
    if (oom && !n["memory"].present()) d.fail(n["memory"], "required field is missing");
    r.time = in_range_time(d, n["time"]).value_or(core::time_point{});
    r.pod = d.opt_string(n["pod"]).value_or("");
    r.container = d.opt_string(n["container"]).value_or("");
    r.memory_bytes = amount(d, n["memory"], false);
    if (!oom) {
        r.cpu_milli = amount(d, n["cpu"], true);
        r.cpu_request_milli = amount(d, n["cpuRequest"], true);
        r.memory_request_bytes = amount(d, n["memoryRequest"], false);
    }
    return r;
}

void decode_list(json_decoder& d, const json_node& list, bool oom,
                 std::vector<recorded_usage>& out) {
    for (std::size_t i = 0, size = d.array(list); i < size && d.ok(); ++i)
        out.push_back(decode_usage(d, list.at(i), oom));
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
core::error_message one_line(const std::string& message) {
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
    return line;
}

} // namespace

core::outcome<recorded_history> decode_recorded_history(std::string_view text, bool now_required) {
    rapidjson::Document doc;
    if (auto why = parse_input(text, doc)) return one_line(*why);
    json_decoder d;
    const json_node root{&doc, ""};
    if (!d.object(root)) return one_line(d.error().to_string());
    d.known_fields(root, {"now", "vpa", "samples", "ooms"});
    if (now_required && !root["now"].present()) d.fail(root["now"], "required field is missing");
    if (!root["vpa"].present()) d.fail(root["vpa"], "required field is missing");
    recorded_history h;
    h.now = in_range_time(d, root["now"]);
    h.vpa = kinds::decode_vpaplus(d, root["vpa"]);
    decode_list(d, root["samples"], false, h.feed);
    decode_list(d, root["ooms"], true, h.feed);
    if (!d.ok()) return one_line(d.error().to_string());
    std::stable_sort(h.feed.begin(), h.feed.end(),
                     [](const recorded_usage& a, const recorded_usage& b) {
                         return a.time != b.time ? a.time < b.time : a.oom < b.oom;
                     });
    return h;
}

void usage_histories::feed(const recorded_usage& r) {
    auto& aggregate = by_name.try_emplace(r.container, config).first->second;
    auto& window = windows[r.pod + "/" + r.container];
    if (r.oom) {
        window.record_oom(aggregate, *r.memory_bytes, r.time, config);
        return;
    }
    if (r.cpu_milli) window.add_cpu(aggregate, *r.cpu_milli, r.time);
    if (r.memory_bytes) window.add_memory(aggregate, *r.memory_bytes, r.time, config);
}

std::vector<vertical::container_recommendation>
usage_histories::recommend(core::time_point now,
                           const std::vector<vertical::container_policy>& policies) {
    std::erase_if(by_name, [&](const auto& kv) { return kv.second.expired(now, config); });
    return vertical::recommend_containers(by_name, policies, config);
}

} // namespace hpaplus::cli
