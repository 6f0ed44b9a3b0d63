// metrics/backends/prometheus.cpp — type prometheus (see the header).
#include "metrics/backends/prometheus.hpp"

#include "metrics/backends/json_answer.hpp"
#include "metrics/backends/types.hpp"
#include "net/http_message.hpp"

#include <cmath>
#include <cstdio>

namespace hpaplus::metrics {
namespace {

using json_answer::add;
using json_answer::at;
using json_answer::failed;
using json_answer::number;
using json_answer::parse;
using json_answer::text_of;
using json_answer::timestamp;

std::string unix_seconds(core::time_point t) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f",
                  std::chrono::duration<double>(t.time_since_epoch()).count());
    return buf;
}

class prometheus final : public backend_type {
  public:
    std::string_view name() const override { return "prometheus"; }

    void decode_fields(kube::json_decoder& d, const kube::json_node& entry,
                       backend_config& b) const override {
        d.known_fields(entry, {"name", "type", "url", "headers", "auth", "tls", "podLabel",
                               "window", "scale", "timeoutSeconds", "coalesceSeconds",
                               "maxResponseBytes", "circuitBreaker"});
        b.query_language = value_encoding::promql;
        if (b.url.find("{{") != std::string::npos)
            d.fail(entry["url"], "a prometheus url is the server's base URL, not a template");
    }

    // POST keeps long queries out of the URL; `timeout` lets Prometheus give up too.
    core::outcome<kube::api_request> request(const backend_config& b, const std::string& base_path,
                                             const std::string& query,
                                             template_values) const override {
        kube::api_request r;
        r.method = "POST";
        r.target = base_path + "/api/v1/query";
        r.body = "query=" + net::percent_encode(query) + "&timeout=" + seconds_text(b.timeout);
        r.content_type = "application/x-www-form-urlencoded";
        return r;
    }

    backend_answer read(const backend_config& b, std::string_view body) const override {
        return parse_prometheus(body, b.pod_label, b.scale);
    }

    std::string error_text(const backend_config&, std::string_view body) const override {
        return prometheus_error(body);
    }

    // An instant query answers its evaluation time; timestamp() gives a raw series' own sample
    // time (and, over a function's result, the evaluation time: computed now, it is fresh).
    std::string sample_time_query(const std::string& query) const override {
        return "timestamp(" + query + ")";
    }

    bool has_history() const override { return true; }

    kube::api_request range_request(const backend_config& b, const std::string& base_path,
                                    const std::string& query, core::time_point start,
                                    core::time_point end,
                                    std::chrono::seconds step) const override {
        kube::api_request r;
        r.method = "POST";
        r.target = base_path + "/api/v1/query_range";
        r.body = "query=" + net::percent_encode(query) + "&start=" + unix_seconds(start) +
                 "&end=" + unix_seconds(end) + "&step=" + std::to_string(step.count()) +
                 "&timeout=" + seconds_text(b.timeout);
        r.content_type = "application/x-www-form-urlencoded";
        return r;
    }

    range_answer read_range(std::string_view body) const override {
        return parse_prometheus_matrix(body);
    }
};

} // namespace

const backend_type& prometheus_type() {
    static const prometheus type;
    return type;
}

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

} // namespace hpaplus::metrics
