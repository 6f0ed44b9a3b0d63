// cli/replay/recording.cpp — the replay inputs, decoded strictly with the bounded JSON parser.
#include "cli/replay/recording.hpp"

#include "core/time.hpp"
#include "kinds/decode.hpp"
#include "kube/yaml_json.hpp"
#include "net/json_parse.hpp"
#include "policy/defaults.hpp"
#include "policy/validation.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <cmath>

namespace hpaplus::cli {

core::outcome<replay_autoscaler> decode_replay_autoscaler(std::string_view text) {
    auto documents = kube::yaml_documents_to_json(std::string(text));
    if (!documents) return core::error_message(documents.error().text);
    if (documents->size() != 1)
        return core::error_message("expected one autoscaler object, got " +
                                   std::to_string(documents->size()) + " documents");
    rapidjson::Document doc;
    if (auto why = net::parse_json(doc, documents->front()); !why.empty())
        return core::error_message("bad JSON: " + why);
    kube::json_decoder d;
    replay_autoscaler out;
    out.hpa = kinds::decode_autoscaler(d, kube::json_node{&doc, ""});
    if (!d.ok()) return core::error_message(d.error().to_string());
    out.config.scale_to_zero = kinds::is_hpaplus(kube::json_node{&doc, ""});
    policy::apply_defaults(out.hpa.spec);
    if (auto errors = policy::validate(out.hpa.spec); !errors.empty())
        return core::error_message(errors.front().field + ": " + errors.front().message);
    out.json = std::move(documents->front());
    return out;
}

core::outcome<policy::recorded_load> decode_recording(std::string_view text) {
    rapidjson::Document doc;
    if (auto why = net::parse_json(doc, text); !why.empty())
        return core::error_message("bad JSON: " + why);
    kube::json_decoder d;
    const kube::json_node root{&doc, ""};
    policy::recorded_load load;
    if (!d.object(root)) return core::error_message("the metrics file must be a JSON object");
    d.known_fields(root, {"start", "stepSeconds", "initialReplicas", "podResources", "series"});
    if (!root["start"].present()) d.fail(root["start"], "required field is missing");
    load.start = d.opt_time(root["start"]).value_or(core::time_point{});
    load.step = std::chrono::seconds(d.opt_int(root["stepSeconds"], 1, 86400).value_or(15));
    load.initial_replicas =
        static_cast<std::int32_t>(d.opt_int(root["initialReplicas"], 0, 100000).value_or(1));
    const kube::json_node resources = root["podResources"];
    if (d.object(resources)) {
        d.known_fields(resources, {"requests", "limits"});
        load.requests = d.resources(resources["requests"]);
        load.limits = d.resources(resources["limits"]);
    }
    const kube::json_node series = root["series"];
    if (!d.object(series)) d.fail(series, "required field is missing");
    if (!d.ok()) return core::error_message(d.error().to_string());
    for (const auto& member : series.value->GetObject()) {
        const std::string key(member.name.GetString(), member.name.GetStringLength());
        const kube::json_node values = series[key];
        const bool is_index =
            !key.empty() && key.size() < 4 &&
            std::all_of(key.begin(), key.end(), [](unsigned char c) { return std::isdigit(c); });
        if (!is_index) {
            d.fail(values, "series are keyed by spec.metrics index (\"0\", \"1\", ...)");
            break;
        }
        auto& out = load.series[std::stoul(key)];
        const std::size_t size = d.array(values);
        if (!d.ok()) break;
        if (!values.value->IsArray()) {
            d.fail(values, "must be an array of numbers (null for a missing sample)");
            break;
        }
        out.reserve(size);
        for (std::size_t i = 0; i < size && d.ok(); ++i) {
            const kube::json_node v = values.at(i);
            if (!v.present()) {
                out.emplace_back(std::nullopt);
                continue;
            }
            const auto number = d.opt_number(v);
            if (number && !std::isfinite(*number)) d.fail(v, "must be a finite number");
            out.push_back(number);
        }
    }
    if (!d.ok()) return core::error_message(d.error().to_string());
    if (load.duration() > max_recording)
        return core::error_message("series: the recording is longer than 35 days");
    if (load.duration().count() == 0)
        return core::error_message("series: no values (nothing to replay)");
    // decidable(start) leaves a year of room, more than max_recording: start + duration holds.
    if (!core::decidable(load.start) || !core::decidable(load.start + load.duration()))
        return core::error_message(
            "start: a recording of " + std::to_string(load.duration().count()) + " s from " +
            core::format_rfc3339(load.start) +
            " ends outside the times a decision can be taken at (" + core::decidable_span() + ")");
    return load;
}

} // namespace hpaplus::cli
