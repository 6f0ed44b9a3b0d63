// kinds/prediction_checkpoint.cpp — HPAPlusCheckpoint's status, encoded and decoded.
#include "kinds/prediction_checkpoint.hpp"

#include "core/duration.hpp"
#include "kube/encode.hpp"
#include "kube/json_decoder.hpp"
#include "net/json_parse.hpp"

#include <rapidjson/document.h>

#include <cmath>
#include <limits>

namespace hpaplus::kinds {

std::string encode_prediction_checkpoint_status(const prediction_history& h, core::time_point now) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("metric", kube::json_string(h.metric, a), a);
    doc.AddMember("step", kube::json_string(core::format_go_duration(h.step), a), a);
    rapidjson::Value values(rapidjson::kArrayType);
    if (!h.samples.empty() && h.step.count() > 0) {
        const auto bucket = [&](core::time_point t) { return t.time_since_epoch() / h.step; };
        const auto last = bucket(h.samples.back().time);
        const auto first = std::max(bucket(h.samples.front().time),
                                    last - static_cast<std::int64_t>(max_checkpoint_values) + 1);
        doc.AddMember(
            "start",
            kube::json_string(core::format_rfc3339_nano(core::time_point{} + h.step * first), a),
            a);
        values.Reserve(static_cast<rapidjson::SizeType>(last - first + 1), a);
        auto next = first;
        for (const auto& s : h.samples) {
            const auto b = bucket(s.time);
            if (b < next) continue; // older than the values kept, or a second one in a step
            for (; next < b; ++next)
                values.PushBack(rapidjson::Value(), a);
            values.PushBack(std::isfinite(s.value) ? rapidjson::Value(s.value) : rapidjson::Value(),
                            a);
            ++next;
        }
    }
    doc.AddMember("values", values, a);
    doc.AddMember("lastUpdateTime", kube::json_string(core::format_rfc3339(now), a), a);
    return kube::to_json_text(doc);
}

core::outcome<prediction_history> decode_prediction_checkpoint(std::string_view object) {
    rapidjson::Document doc;
    if (std::string why = net::parse_json(doc, object); !why.empty())
        return core::error_message(why);
    kube::json_decoder d;
    const kube::json_node status = kube::json_node{&doc, ""}["status"];
    if (!status.present() || !d.object(status)) return core::error_message("it has no status");
    prediction_history h;
    h.metric = d.string(status["metric"]);
    h.step = d.opt_duration(status["step"]).value_or(std::chrono::nanoseconds(0));
    const auto start = d.opt_time(status["start"]);
    const kube::json_node values = status["values"];
    const std::size_t size = d.array(values);
    if (size > max_checkpoint_values)
        d.fail(values, "more than " + std::to_string(max_checkpoint_values) + " values");
    if (d.ok() && h.step.count() <= 0) d.fail(status["step"], "a positive step is required");
    if (d.ok() && size > 0 && !start) d.fail(status["start"], "required with values");
    // The last value's time must be a time: no overflow, however long the step or late the start.
    constexpr std::int64_t latest = std::numeric_limits<std::int64_t>::max();
    if (d.ok() && size > 0 &&
        (h.step.count() > latest / 2 / static_cast<std::int64_t>(size) ||
         start->time_since_epoch().count() > latest / 2 ||
         start->time_since_epoch().count() < -latest / 2))
        d.fail(status["start"], "the values would end past the representable times");
    for (std::size_t k = 0; d.ok() && k < size; ++k) {
        const kube::json_node v = values.at(k);
        if (!v.present()) continue; // null: no sample in that step
        const auto value = d.opt_number(v);
        if (value && std::isfinite(*value))
            h.samples.push_back({*start + h.step * static_cast<std::int64_t>(k), *value});
        else if (d.ok())
            d.fail(v, "a number or null is required");
    }
    const kube::json_node owners = kube::json_node{&doc, ""}["metadata"]["ownerReferences"];
    const std::size_t owner_count = owners.present() ? d.array(owners) : 0;
    for (std::size_t k = 0; d.ok() && k < owner_count; ++k) {
        const kube::json_node o = owners.at(k);
        if (d.object(o) && d.opt_string(o["kind"]).value_or("") == "HPAPlus")
            h.owner_uids.push_back(d.opt_string(o["uid"]).value_or(""));
    }
    if (!d.ok()) return core::error_message(d.error().to_string());
    return core::success(std::move(h));
}

} // namespace hpaplus::kinds
