// metrics/backends/monitor.cpp — type monitor (see the header).
#include "metrics/backends/monitor.hpp"

#include "metrics/backends/json_answer.hpp"
#include "metrics/backends/types.hpp"

#include <rapidjson/pointer.h>

namespace hpaplus::metrics {
namespace {

using json_answer::add;
using json_answer::at;
using json_answer::failed;
using json_answer::number;
using json_answer::parse;
using json_answer::text_of;
using json_answer::timestamp;
using kube::json_decoder;
using kube::json_node;

const std::vector<std::string_view>& request_placeholders() {
    static const std::vector<std::string_view> names = [] {
        auto all = query_placeholders();
        all.push_back("query");
        return all;
    }();
    return names;
}

void check_pointer(json_decoder& d, const json_node& at, const std::string& pointer) {
    if (pointer.empty()) return;
    if (pointer.front() != '/' || !rapidjson::Pointer(pointer.c_str()).IsValid())
        d.fail(at, "\"" + pointer + "\" is not a JSON pointer (RFC 6901, e.g. /data/0/value)");
}

void decode_response(json_decoder& d, const json_node& n, response_mapping& r) {
    if (!n.present()) {
        d.fail(n, "required for a monitor backend (where the value is in the answer)");
        return;
    }
    if (!d.object(n)) return;
    d.known_fields(n, {"items", "value", "pod", "error", "timestamp"});
    r.items = d.opt_string(n["items"]).value_or("");
    r.value = d.string(n["value"]);
    r.pod = d.opt_string(n["pod"]).value_or("");
    r.error = d.opt_string(n["error"]).value_or("");
    r.timestamp = d.opt_string(n["timestamp"]).value_or("");
    check_pointer(d, n["items"], r.items);
    check_pointer(d, n["value"], r.value);
    check_pointer(d, n["pod"], r.pod);
    check_pointer(d, n["error"], r.error);
    check_pointer(d, n["timestamp"], r.timestamp);
}

void check_template(json_decoder& d, const json_node& at, const std::string& text) {
    if (auto r = check_placeholders(text, request_placeholders()); !r) d.fail(at, r.error().text);
}

value_encoding body_encoding(const std::string& content_type) {
    if (content_type.find("json") != std::string::npos) return value_encoding::json;
    if (content_type.find("x-www-form-urlencoded") != std::string::npos)
        return value_encoding::percent;
    return value_encoding::raw;
}

class monitor final : public backend_type {
  public:
    std::string_view name() const override { return "monitor"; }

    void decode_fields(json_decoder& d, const json_node& entry, backend_config& b) const override {
        if (const auto language = d.opt_string(entry["queryLanguage"])) {
            if (*language == "PromQL")
                b.query_language = value_encoding::promql;
            else if (*language == "InfluxQL")
                b.query_language = value_encoding::influxql;
            else if (*language != "None")
                d.fail(entry["queryLanguage"], "must be PromQL, InfluxQL or None");
        }
        b.method = d.opt_string(entry["method"]).value_or("GET");
        if (b.method != "GET" && b.method != "POST" && b.method != "PUT")
            d.fail(entry["method"], "must be GET, POST or PUT");
        b.body = d.opt_string(entry["body"]).value_or("");
        b.content_type =
            d.opt_string(entry["contentType"]).value_or(b.body.empty() ? "" : "application/json");
        check_template(d, entry["url"], b.url);
        check_template(d, entry["body"], b.body);
        decode_response(d, entry["response"], b.response);
    }

    core::outcome<kube::api_request> request(const backend_config& b, const std::string&,
                                             const std::string& query,
                                             template_values values) const override {
        values.emplace_back("query", query);
        auto url = expand(b.url, values, value_encoding::percent);
        if (!url) return url.error();
        auto body = expand(b.body, values, body_encoding(b.content_type));
        if (!body) return body.error();
        kube::api_request r;
        r.method = b.method;
        r.target = split_origin(*url).second;
        if (r.target.empty()) r.target = "/";
        r.body = std::move(*body);
        r.content_type = b.content_type;
        return r;
    }

    backend_answer read(const backend_config& b, std::string_view body) const override {
        return parse_monitor(body, b.response, b.scale);
    }

    std::string error_text(const backend_config& b, std::string_view body) const override {
        return monitor_error(body, b.response.error);
    }
};

} // namespace

const backend_type& monitor_type() {
    static const monitor type;
    return type;
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

std::string monitor_error(std::string_view body, const std::string& pointer) {
    return json_answer::text_at(body, pointer);
}

} // namespace hpaplus::metrics
