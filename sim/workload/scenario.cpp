// sim/workload/scenario.cpp — scenario files.
#include "sim/workload/scenario.hpp"

#include "core/quantity.hpp"
#include "net/json_parse.hpp"
#include "sim/json_util.hpp"

#include <algorithm>

namespace hpaplus::sim {

core::outcome<scenario> parse_scenario(std::string_view text) {
    json_doc doc;
    if (std::string e = net::parse_json(doc, text); !e.empty()) return core::error_message(e);
    if (!doc.IsObject())
        return core::error_message("a scenario is a JSON object with \"objects\" and \"load\"");
    for (const auto& m : doc.GetObject()) {
        const std::string key = m.name.GetString();
        if (key != "objects" && key != "load" && key != "repeatSeconds")
            return core::error_message(key + ": unknown field");
    }
    scenario out;
    if (const json* objects = find_path(doc, "objects")) {
        if (!objects->IsArray()) return core::error_message("objects: expected an array");
        for (rapidjson::SizeType i = 0; i < objects->Size(); ++i) {
            const json& o = (*objects)[i];
            const std::string where = "objects[" + std::to_string(i) + "]";
            if (!o.IsObject()) return core::error_message(where + ": expected an object");
            if (string_at(o, "apiVersion").empty() || string_at(o, "kind").empty())
                return core::error_message(where + ": apiVersion and kind are required");
            out.objects.push_back(to_string(o));
        }
    }
    if (const json* load = find_path(doc, "load")) {
        if (!load->IsArray()) return core::error_message("load: expected an array");
        for (rapidjson::SizeType i = 0; i < load->Size(); ++i) {
            const json& s = (*load)[i];
            const std::string where = "load[" + std::to_string(i) + "]";
            if (!s.IsObject()) return core::error_message(where + ": expected an object");
            load_step step;
            const json* at = find_path(s, "at");
            if (!at || !at->IsNumber() || at->GetDouble() < 0 || at->GetDouble() > 86400)
                return core::error_message(where + ".at: seconds from 0 to 86400 are required");
            step.at = std::chrono::milliseconds(static_cast<std::int64_t>(at->GetDouble() * 1000));
            if (const std::string ns = string_at(s, "namespace"); !ns.empty()) step.namespace_ = ns;
            step.deployment = string_at(s, "deployment");
            if (step.deployment.empty())
                return core::error_message(where + ".deployment: required");
            step.cpu = string_at(s, "cpu");
            if (!core::quantity::parse(step.cpu))
                return core::error_message(where +
                                           ".cpu: a quantity such as \"1500m\" is required");
            out.load.push_back(std::move(step));
        }
        std::stable_sort(out.load.begin(), out.load.end(),
                         [](const load_step& a, const load_step& b) { return a.at < b.at; });
    }
    if (const json* repeat = find_path(doc, "repeatSeconds")) {
        const auto last = out.load.empty() ? std::chrono::milliseconds(0) : out.load.back().at;
        if (!repeat->IsNumber() ||
            !(repeat->GetDouble() * 1000 > static_cast<double>(last.count())) ||
            repeat->GetDouble() < 1 || repeat->GetDouble() > 86400)
            return core::error_message("repeatSeconds: seconds after the last load step's \"at\", "
                                       "from 1 to 86400");
        out.repeat =
            std::chrono::milliseconds(static_cast<std::int64_t>(repeat->GetDouble() * 1000));
    }
    return out;
}

} // namespace hpaplus::sim
