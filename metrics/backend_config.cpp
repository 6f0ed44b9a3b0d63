// metrics/backend_config.cpp — reading and checking the metric backends file.
#include "metrics/backend_config.hpp"

#include "kube/config.hpp"
#include "kube/json_decoder.hpp"
#include "kube/yaml_json.hpp"
#include "metrics/backends/backend_type.hpp"
#include "metrics/query_template.hpp"

#include <algorithm>
#include <cmath>

namespace hpaplus::metrics {
namespace {

using kube::json_decoder;
using kube::json_node;

const std::vector<std::string_view>& adapter_placeholders() {
    static const std::vector<std::string_view> names{"namespace", "name",          "metric",
                                                     "selector",  "labelSelector", "window"};
    return names;
}

bool valid_name(const std::string& s) {
    return !s.empty() && s.size() <= 63 && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    });
}

void check_template(json_decoder& d, const json_node& at, const std::string& text,
                    const std::vector<std::string_view>& known) {
    if (auto r = check_placeholders(text, known); !r) d.fail(at, r.error().text);
}

// Seconds given as a number (fractions allowed) within [min, max].
std::optional<std::chrono::milliseconds> seconds(json_decoder& d, const json_node& n, double min,
                                                 double max) {
    const auto v = d.opt_number(n);
    if (!v) return std::nullopt;
    if (!std::isfinite(*v) || *v < min || *v > max) {
        d.fail(n, "must be between " + std::to_string(static_cast<long>(min)) + " and " +
                      std::to_string(static_cast<long>(max)) + " seconds");
        return std::nullopt;
    }
    return std::chrono::milliseconds(std::llround(*v * 1000));
}

void decode_auth(json_decoder& d, const json_node& n, backend_config& b) {
    if (!n.present() || !d.object(n)) return;
    d.known_fields(n, {"bearerToken", "bearerTokenFile", "basic"});
    b.bearer_token = d.opt_string(n["bearerToken"]).value_or("");
    b.bearer_token_file = d.opt_string(n["bearerTokenFile"]).value_or("");
    const json_node basic = n["basic"];
    if (basic.present() && d.object(basic)) {
        d.known_fields(basic, {"username", "password", "passwordFile"});
        b.basic_username = d.string(basic["username"]);
        b.basic_password = d.opt_string(basic["password"]).value_or("");
        if (auto file = d.opt_string(basic["passwordFile"])) {
            auto text = kube::read_file(*file);
            if (!text)
                d.fail(basic["passwordFile"], "cannot read " + *file);
            else
                b.basic_password = text->substr(0, text->find_last_not_of("\r\n") + 1);
        }
    }
    const int kinds = !b.bearer_token.empty() + !b.bearer_token_file.empty() + basic.present();
    if (kinds > 1) d.fail(n, "give one of bearerToken, bearerTokenFile and basic");
}

void decode_tls(json_decoder& d, const json_node& n, backend_config& b) {
    if (!n.present() || !d.object(n)) return;
    d.known_fields(n, {"caFile", "insecureSkipVerify"});
    b.ca_file = d.opt_string(n["caFile"]).value_or("");
    b.insecure_skip_tls_verify = d.opt_bool(n["insecureSkipVerify"]).value_or(false);
    if (!b.ca_file.empty() && !kube::read_file(b.ca_file))
        d.fail(n["caFile"], "cannot read " + b.ca_file);
}

// The scheme, host and port of a URL template must be literal: a query must not be able to send
// the controller's credentials somewhere else.
void check_url(json_decoder& d, const json_node& at, const std::string& url) {
    const auto scheme_end = url.find("://");
    const auto host_end = url.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
    const std::string origin = url.substr(0, host_end);
    std::string scheme, host, port;
    if (origin.find("{{") != std::string::npos)
        d.fail(at, "the scheme, host and port must be literal (no placeholders)");
    else if (!kube::split_server(origin, scheme, host, port) || host.empty())
        d.fail(at, "\"" + url + "\" is not an http:// or https:// URL");
}

backend_config decode_backend(json_decoder& d, const json_node& n) {
    backend_config b;
    if (!d.object(n)) return b;
    d.known_fields(n, {"name", "type", "url", "method", "body", "contentType", "headers", "auth",
                       "tls", "podLabel", "window", "scale", "response", "timeoutSeconds",
                       "coalesceSeconds", "maxResponseBytes", "circuitBreaker", "queryLanguage"});
    b.name = d.string(n["name"]);
    if (d.ok() && !valid_name(b.name))
        d.fail(n["name"], "must be 1-63 lower-case letters, digits, '-' or '_'");
    const std::string type = d.string(n["type"]);
    b.type = find_backend_type(type);
    if (!b.type) {
        if (d.ok()) d.fail(n["type"], "must be " + backend_type_names());
        return b;
    }
    if (!b.type->over_http()) {
        b.type->decode_fields(d, n, b);
        return b;
    }
    b.url = d.string(n["url"]);
    if (d.ok()) check_url(d, n["url"], b.url);
    b.headers = [&] {
        std::map<std::string, std::string> out;
        for (const auto& [k, v] : d.string_map(n["headers"]))
            out.emplace(k, v);
        return out;
    }();
    decode_auth(d, n["auth"], b);
    decode_tls(d, n["tls"], b);
    b.pod_label = d.opt_string(n["podLabel"]).value_or(b.pod_label);
    b.window = d.opt_string(n["window"]).value_or(b.window);
    if (auto s = d.opt_number(n["scale"])) {
        if (!std::isfinite(*s) || *s == 0) d.fail(n["scale"], "must be a finite non-zero number");
        b.scale = *s;
    }
    if (auto t = seconds(d, n["timeoutSeconds"], 0.001, 300)) b.timeout = *t;
    if (auto c = seconds(d, n["coalesceSeconds"], 0, 3600)) b.coalesce = *c;
    if (auto m = d.opt_int(n["maxResponseBytes"], 1024, 1 << 30))
        b.max_response_bytes = static_cast<std::size_t>(*m);
    if (const json_node cb = n["circuitBreaker"]; cb.present() && d.object(cb)) {
        d.known_fields(cb, {"failureThreshold", "openSeconds"});
        b.breaker.failure_threshold =
            d.opt_int32(cb["failureThreshold"], 1, 1000).value_or(b.breaker.failure_threshold);
        b.breaker.open_for =
            std::chrono::seconds(d.opt_int(cb["openSeconds"], 1, 3600).value_or(30));
    }
    b.type->decode_fields(d, n, b);
    return b;
}

void decode_adapter(json_decoder& d, const json_node& n, backends_file& file) {
    if (!n.present() || !d.object(n)) return;
    d.known_fields(n, {"external", "custom"});
    for (const bool custom : {false, true}) {
        const json_node list = n[custom ? "custom" : "external"];
        for (std::size_t i = 0, size = d.array(list); i < size; ++i) {
            const json_node e = list.at(i);
            if (!d.object(e)) break;
            d.known_fields(
                e, custom ? std::initializer_list<std::string_view>{"name", "backend", "query",
                                                                    "resource"}
                          : std::initializer_list<std::string_view>{"name", "backend", "query"});
            adapter_metric m;
            m.name = d.string(e["name"]);
            m.backend = d.string(e["backend"]);
            m.query = d.string(e["query"]);
            if (custom) m.resource = d.opt_string(e["resource"]).value_or("pods");
            if (!d.ok()) return;
            const backend_config* b = file.find(m.backend);
            if (!b)
                d.fail(e["backend"], "no backend named \"" + m.backend + "\"");
            else if (!b->type->over_http())
                d.fail(e["backend"], "the adapter serves prometheus and monitor backends only");
            check_template(d, e["query"], m.query, adapter_placeholders());
            auto& target = custom ? file.adapter_custom : file.adapter_external;
            const bool duplicate = std::any_of(target.begin(), target.end(), [&](const auto& o) {
                return o.name == m.name && o.resource == m.resource;
            });
            if (duplicate) d.fail(e["name"], "\"" + m.name + "\" is served twice");
            target.push_back(std::move(m));
        }
    }
}

} // namespace

const backend_config* backends_file::find(const std::string& name) const {
    const auto it = std::find_if(backends.begin(), backends.end(),
                                 [&](const backend_config& b) { return b.name == name; });
    return it == backends.end() ? nullptr : &*it;
}

core::outcome<backends_file> parse_backends(const std::string& text) {
    auto documents = kube::yaml_documents_to_json(text);
    if (!documents) return documents.error();
    if (documents->size() != 1) return core::error_message("expected exactly one YAML document");
    rapidjson::Document doc;
    if (auto e = kube::parse_json(doc, documents->front(), "")) return e->to_string();
    json_decoder d;
    const json_node root{&doc, ""};
    backends_file file;
    if (d.object(root)) {
        d.known_fields(root, {"backends", "adapter"});
        const json_node list = root["backends"];
        for (std::size_t i = 0, size = d.array(list); i < size && d.ok(); ++i) {
            backend_config b = decode_backend(d, list.at(i));
            if (d.ok() && file.find(b.name))
                d.fail(list.at(i)["name"], "\"" + b.name + "\" is defined twice");
            file.backends.push_back(std::move(b));
        }
        if (d.ok()) decode_adapter(d, root["adapter"], file);
    }
    if (!d.ok()) return d.error().to_string();
    return file;
}

core::outcome<backends_file> load_backends(const std::string& path) {
    auto text = kube::read_file(path);
    if (!text) return core::error_message(path + ": cannot read the file");
    auto file = parse_backends(*text);
    if (!file) return core::error_message(path + ": " + file.error().text);
    return file;
}

} // namespace hpaplus::metrics
