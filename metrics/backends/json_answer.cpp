// metrics/backends/json_answer.cpp — reading a JSON answer (see the header).
#include "metrics/backends/json_answer.hpp"

#include "net/json_parse.hpp"

#include <rapidjson/pointer.h>

#include <cmath>
#include <cstdlib>

namespace hpaplus::metrics::json_answer {

backend_answer failed(answer_kind kind, std::string error) {
    backend_answer a;
    a.kind = kind;
    a.error = std::move(error);
    return a;
}

std::string parse(rapidjson::Document& doc, std::string_view body) {
    std::string why = net::parse_json(doc, body);
    if (why.starts_with("malformed")) return "the answer is not JSON (" + why + ")";
    return why;
}

const rapidjson::Value* at(const rapidjson::Value& root, const std::string& pointer) {
    if (pointer.empty()) return &root;
    return rapidjson::Pointer(pointer.c_str()).Get(root);
}

std::string text_of(const rapidjson::Value* v) {
    if (!v || v->IsNull()) return {};
    if (v->IsString()) return v->GetString();
    return "(not a string)";
}

std::optional<double> number(const rapidjson::Value* v) {
    if (!v) return std::nullopt;
    if (v->IsNumber()) return v->GetDouble();
    if (!v->IsString()) return std::nullopt;
    const char* text = v->GetString();
    char* end = nullptr;
    const double d = std::strtod(text, &end);
    if (end == text || *end != '\0') return std::nullopt;
    return d;
}

std::optional<core::time_point> timestamp(const rapidjson::Value* v) {
    if (!v) return std::nullopt;
    if (v->IsString()) {
        if (auto t = core::parse_rfc3339(v->GetString())) return *t;
    }
    // Unix seconds time_point can hold (1677 to 2262); converting others would be undefined.
    if (auto seconds = number(v); seconds && std::abs(*seconds) < 9.2e9)
        return core::time_point(std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::duration<double>(*seconds)));
    return std::nullopt;
}

bool add(backend_answer& a, std::string pod, std::optional<double> v,
         std::optional<core::time_point> at, double scale) {
    if (!v) {
        a = failed(answer_kind::bad_answer, "a value is not a number");
        return false;
    }
    if (!std::isfinite(*v)) {
        a = failed(answer_kind::bad_answer, "the value is " +
                                                std::string(std::isnan(*v) ? "NaN" : "infinite") +
                                                (pod.empty() ? "" : " for pod " + pod));
        return false;
    }
    const double scaled = *v * scale;
    if (!std::isfinite(scaled)) {
        a = failed(answer_kind::bad_answer, "the value " + std::to_string(*v) +
                                                " overflows once scaled" +
                                                (pod.empty() ? "" : " for pod " + pod));
        return false;
    }
    a.values.push_back({std::move(pod), scaled, at});
    return true;
}

std::string text_at(std::string_view body, const std::string& pointer) {
    rapidjson::Document doc;
    if (pointer.empty() || !parse(doc, body).empty()) return {};
    return text_of(at(doc, pointer));
}

} // namespace hpaplus::metrics::json_answer
