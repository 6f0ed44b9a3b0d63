// sim/apiserver/faults.cpp — fault rules and their parsing.
#include "sim/apiserver/faults.hpp"

#include "net/json_parse.hpp"
#include "sim/json_util.hpp"

namespace hpaplus::sim {

fault_injector::fault_injector() : rng_(std::random_device{}()) {}

fault_injector::verdict fault_injector::judge(const std::string& verb,
                                              const std::string& resource) {
    verdict v;
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    for (const auto& r : rules_) {
        if (r.verb != "*" && r.verb != verb) continue;
        if (r.resource != "*" && r.resource != resource) continue;
        v.latency += r.latency;
        v.answer_latency += r.answer_latency;
        if (!v.error_code && r.error_rate > 0 && coin(rng_) < r.error_rate)
            v.error_code = r.error_code;
    }
    return v;
}

core::outcome<std::vector<fault_rule>> fault_injector::parse_rules(const std::string& text) {
    json_doc doc;
    if (!net::parse_json(doc, text).empty() || !doc.IsObject())
        return core::error_message("the body must be a JSON object {\"rules\": [...]}");
    const json* rules = find_path(doc, "rules");
    if (!rules || !rules->IsArray()) return core::error_message("\"rules\" must be an array");
    std::vector<fault_rule> out;
    for (const auto& r : rules->GetArray()) {
        if (!r.IsObject()) return core::error_message("each rule must be an object");
        fault_rule rule;
        if (const json* v = find_path(r, "verb"); v && v->IsString()) rule.verb = v->GetString();
        if (const json* v = find_path(r, "resource"); v && v->IsString())
            rule.resource = v->GetString();
        if (const json* v = find_path(r, "errorRate")) {
            if (!v->IsNumber() || v->GetDouble() < 0 || v->GetDouble() > 1)
                return core::error_message("errorRate must be a number from 0 to 1");
            rule.error_rate = v->GetDouble();
        }
        if (const json* v = find_path(r, "errorCode")) {
            if (!v->IsInt() || (v->GetInt() != 429 && v->GetInt() != 500 && v->GetInt() != 503 &&
                                v->GetInt() != 504))
                return core::error_message("errorCode must be 429, 500, 503 or 504");
            rule.error_code = v->GetInt();
        }
        if (const json* v = find_path(r, "latencyMs")) {
            if (!v->IsInt() || v->GetInt() < 0 || v->GetInt() > 60000)
                return core::error_message("latencyMs must be 0..60000");
            rule.latency = std::chrono::milliseconds(v->GetInt());
        }
        if (const json* v = find_path(r, "answerLatencyMs")) {
            if (!v->IsInt() || v->GetInt() < 0 || v->GetInt() > 60000)
                return core::error_message("answerLatencyMs must be 0..60000");
            rule.answer_latency = std::chrono::milliseconds(v->GetInt());
        }
        static const char* verbs[] = {"*",      "get",    "list",  "watch",
                                      "create", "update", "patch", "delete"};
        if (std::find(std::begin(verbs), std::end(verbs), rule.verb) == std::end(verbs))
            return core::error_message("unknown verb \"" + rule.verb + "\"");
        out.push_back(std::move(rule));
    }
    return out;
}

} // namespace hpaplus::sim
