// metrics/backend_answer.cpp — decoding Prometheus and monitor answers.
#include "metrics/backend_answer.hpp"

#include "net/json_parse.hpp"

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include <cmath>
#include <cstdlib>

namespace hpaplus::metrics {
namespace {

backend_answer failed(answer_kind kind, std::string error) {
    backend_answer a;
    a.kind = kind;
    a.error = std::move(error);
    return a;
}

// A number, or a numeric string (Prometheus sends "1.5", "NaN", "+Inf").
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

// Adds one value, refusing what no autoscaler can use.
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

// "" or what is wrong with the body as JSON: too large, too deep, or not JSON at all.
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

} // namespace

backend_answer parse_prometheus(std::string_view body, const std::string& pod_label, double scale) {
    rapidjson::Document doc;
    if (auto e = parse(doc, body); !e.empty()) return failed(answer_kind::bad_answer, e);
    if (!doc.IsObject()) return failed(answer_kind::bad_answer, "the answer is not a JSON object");
    if (auto error = prometheus_error(body); !error.empty())
        return failed(answer_kind::bad_answer, error);
    const rapidjson::Value* type = at(doc, "/data/resultType");
    const rapidjson::Value* result = at(doc, "/data/result");
    if (!type || !type->IsString() || !result)
        return failed(answer_kind::bad_answer, "the answer has no data.resultType/data.result");
    const std::string_view kind = type->GetString();
    backend_answer a;
    if (kind == "scalar") {
        if (!result->IsArray() || result->Size() != 2)
            return failed(answer_kind::bad_answer, "a scalar result is not [time, value]");
        add(a, {}, number(&(*result)[1]), timestamp(&(*result)[0]), scale);
        return a;
    }
    if (kind != "vector")
        return failed(answer_kind::bad_answer,
                      "the query returned a " + std::string(kind) +
                          "; an instant vector or scalar is needed (no range selector)");
    if (!result->IsArray()) return failed(answer_kind::bad_answer, "data.result is not an array");
    if (result->Empty()) return failed(answer_kind::no_data, "the query returned no series");
    for (const auto& series : result->GetArray()) {
        const rapidjson::Value* value = series.IsObject() ? at(series, "/value") : nullptr;
        if (!value || !value->IsArray() || value->Size() != 2)
            return failed(answer_kind::bad_answer, "a series has no [time, value]");
        std::string pod;
        if (const auto labels = series.FindMember("metric");
            labels != series.MemberEnd() && labels->value.IsObject()) {
            const auto p = labels->value.FindMember(pod_label.c_str());
            if (p != labels->value.MemberEnd() && p->value.IsString()) pod = p->value.GetString();
        }
        if (!add(a, std::move(pod), number(&(*value)[1]), timestamp(&(*value)[0]), scale)) return a;
    }
    return a;
}

range_answer parse_prometheus_matrix(std::string_view body) {
    range_answer out;
    rapidjson::Document doc;
    if (auto e = parse(doc, body); !e.empty() || !doc.IsObject()) {
        out.error = e.empty() ? "the answer is not a JSON object" : e;
        return out;
    }
    if (auto error = prometheus_error(body); !error.empty()) {
        out.error = error;
        return out;
    }
    const rapidjson::Value* type = at(doc, "/data/resultType");
    const rapidjson::Value* result = at(doc, "/data/result");
    if (!type || !type->IsString() || std::string_view(type->GetString()) != "matrix" || !result ||
        !result->IsArray()) {
        out.error = "the answer is not a matrix (data.resultType/data.result)";
        return out;
    }
    for (const auto& s : result->GetArray()) {
        range_series series;
        if (const rapidjson::Value* labels = s.IsObject() ? at(s, "/metric") : nullptr;
            labels && labels->IsObject())
            for (const auto& l : labels->GetObject())
                if (l.value.IsString())
                    series.labels.emplace(l.name.GetString(), l.value.GetString());
        const rapidjson::Value* values = s.IsObject() ? at(s, "/values") : nullptr;
        if (!values || !values->IsArray()) {
            out.error = "a series has no values";
            out.series.clear();
            return out;
        }
        for (const auto& v : values->GetArray()) {
            if (!v.IsArray() || v.Size() != 2) continue;
            const auto when = timestamp(&v[0]);
            const auto value = number(&v[1]);
            if (when && value && std::isfinite(*value)) series.points.emplace_back(*when, *value);
        }
        out.series.push_back(std::move(series));
    }
    return out;
}

backend_answer parse_monitor(std::string_view body, const response_mapping& m, double scale) {
    rapidjson::Document doc;
    if (auto e = parse(doc, body); !e.empty()) return failed(answer_kind::bad_answer, e);
    if (!m.error.empty()) {
        if (auto error = text_of(at(doc, m.error)); !error.empty())
            return failed(answer_kind::bad_answer, "the monitor says: " + error);
    }
    const rapidjson::Value* items = at(doc, m.items);
    if (!items || items->IsNull())
        return failed(answer_kind::no_data, "nothing at " + (m.items.empty() ? "/" : m.items));
    auto one = [&](const rapidjson::Value& item, backend_answer& a) {
        std::string pod;
        // A result without a pod name is fine for Object and External metrics; per-pod
        // metrics refuse it later (backend_reading).
        if (!m.pod.empty()) {
            if (const rapidjson::Value* p = at(item, m.pod); p && p->IsString())
                pod = p->GetString();
        }
        const rapidjson::Value* value = at(item, m.value);
        if (!value || value->IsNull()) {
            a = failed(answer_kind::no_data, "a result has no value at " + m.value);
            return false;
        }
        return add(a, std::move(pod), number(value),
                   m.timestamp.empty() ? std::nullopt : timestamp(at(item, m.timestamp)), scale);
    };
    backend_answer a;
    if (m.items.empty() || !items->IsArray()) {
        one(*items, a);
        return a;
    }
    if (items->Empty()) return failed(answer_kind::no_data, m.items + " is empty");
    for (const auto& item : items->GetArray())
        if (!one(item, a)) break;
    return a;
}

std::string prometheus_error(std::string_view body) {
    rapidjson::Document doc;
    if (!parse(doc, body).empty() || !doc.IsObject()) return {};
    const auto status = doc.FindMember("status");
    if (status == doc.MemberEnd() || !status->value.IsString() ||
        std::string_view(status->value.GetString()) != "error")
        return {};
    std::string out = text_of(at(doc, "/errorType"));
    const std::string error = text_of(at(doc, "/error"));
    return out.empty() ? error : out + ": " + error;
}

std::string monitor_error(std::string_view body, const std::string& pointer) {
    rapidjson::Document doc;
    if (pointer.empty() || !parse(doc, body).empty()) return {};
    return text_of(at(doc, pointer));
}

const char* to_string(answer_kind kind) {
    switch (kind) {
    case answer_kind::values:
        return "values";
    case answer_kind::no_data:
        return "no data";
    case answer_kind::unavailable:
        return "unavailable";
    case answer_kind::bad_answer:
        return "bad answer";
    }
    return "?";
}

} // namespace hpaplus::metrics
