// kube/json_decoder.cpp — field-path-aware typed reads over RapidJSON.
#include "kube/json_decoder.hpp"

#include "net/json_parse.hpp"

#include "core/duration.hpp"

#include <rapidjson/error/en.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hpaplus::kube {
namespace {

const char* type_name(const rapidjson::Value& v) {
    if (v.IsNull()) return "null";
    if (v.IsBool()) return "a boolean";
    if (v.IsObject()) return "an object";
    if (v.IsArray()) return "an array";
    if (v.IsString()) return "a string";
    return "a number";
}

// The member `m` of the object at `parent`, without looking it up again by name (a lookup is a
// linear scan, so looking up every member of an object would be quadratic).
json_node member(const json_node& parent, const rapidjson::Value::Member& m) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    return {&m.value,
            parent.path.empty() ? std::string(key) : parent.path + "." + std::string(key)};
}

} // namespace

json_node json_node::operator[](std::string_view key) const {
    json_node child{nullptr, path.empty() ? std::string(key) : path + "." + std::string(key)};
    if (value && value->IsObject()) {
        const auto it = value->FindMember(
            rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size())));
        if (it != value->MemberEnd()) child.value = &it->value;
    }
    return child;
}

json_node json_node::at(std::size_t index) const {
    json_node child{nullptr, path + "[" + std::to_string(index) + "]"};
    if (value && value->IsArray() && index < value->Size())
        child.value = &(*value)[static_cast<rapidjson::SizeType>(index)];
    return child;
}

void json_decoder::fail(const json_node& at, std::string message) {
    if (!error_) error_ = json_error{at.path, std::move(message)};
}

bool json_decoder::object(const json_node& n) {
    if (!n.present()) return false;
    if (!n.value->IsObject()) {
        fail(n, std::string("expected an object, got ") + type_name(*n.value));
        return false;
    }
    return true;
}

std::size_t json_decoder::array(const json_node& n) {
    if (!n.present()) return 0;
    if (!n.value->IsArray()) {
        fail(n, std::string("expected an array, got ") + type_name(*n.value));
        return 0;
    }
    return n.value->Size();
}

void json_decoder::known_fields(const json_node& n, std::initializer_list<std::string_view> known) {
    if (!n.present() || !n.value->IsObject()) return;
    for (const auto& m : n.value->GetObject()) {
        const std::string_view name(m.name.GetString(), m.name.GetStringLength());
        if (std::find(known.begin(), known.end(), name) == known.end()) {
            fail(member(n, m), "unknown field");
            return;
        }
    }
}

std::string json_decoder::string(const json_node& n) {
    if (!n.present()) {
        fail(n, "required field is missing");
        return {};
    }
    return opt_string(n).value_or(std::string());
}

std::optional<std::string> json_decoder::opt_string(const json_node& n) {
    const auto view = opt_string_view(n);
    if (!view) return std::nullopt;
    return std::string(*view);
}

std::optional<std::string_view> json_decoder::opt_string_view(const json_node& n) {
    if (!n.present()) return std::nullopt;
    if (!n.value->IsString()) {
        fail(n, std::string("expected a string, got ") + type_name(*n.value));
        return std::nullopt;
    }
    return std::string_view(n.value->GetString(), n.value->GetStringLength());
}

std::optional<std::int64_t> json_decoder::opt_int(const json_node& n, std::int64_t min,
                                                  std::int64_t max) {
    if (!n.present()) return std::nullopt;
    std::int64_t v = 0;
    if (n.value->IsInt64()) {
        v = n.value->GetInt64();
    } else if (n.value->IsDouble() && std::trunc(n.value->GetDouble()) == n.value->GetDouble() &&
               std::fabs(n.value->GetDouble()) < 9e15) {
        v = static_cast<std::int64_t>(n.value->GetDouble()); // 3.0 is an integer in JSON too
    } else {
        fail(n, n.value->IsNumber()
                    ? "expected an integer, got a fraction or a number out of range"
                    : std::string("expected an integer, got ") + type_name(*n.value));
        return std::nullopt;
    }
    if (v < min || v > max) {
        fail(n, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                    ", got " + std::to_string(v));
        return std::nullopt;
    }
    return v;
}

std::optional<std::int32_t> json_decoder::opt_int32(const json_node& n, std::int32_t min,
                                                    std::int32_t max) {
    auto v = opt_int(n, min, max);
    if (!v) return std::nullopt;
    return static_cast<std::int32_t>(*v);
}

std::optional<double> json_decoder::opt_number(const json_node& n) {
    if (!n.present()) return std::nullopt;
    if (!n.value->IsNumber()) {
        fail(n, std::string("expected a number, got ") + type_name(*n.value));
        return std::nullopt;
    }
    const double v = n.value->GetDouble();
    if (!std::isfinite(v)) {
        fail(n, "must be a finite number");
        return std::nullopt;
    }
    return v;
}

std::optional<bool> json_decoder::opt_bool(const json_node& n) {
    if (!n.present()) return std::nullopt;
    if (!n.value->IsBool()) {
        fail(n, std::string("expected a boolean, got ") + type_name(*n.value));
        return std::nullopt;
    }
    return n.value->GetBool();
}

std::optional<core::quantity> json_decoder::opt_quantity(const json_node& n) {
    if (!n.present()) return std::nullopt;
    std::string text;
    if (n.value->IsString()) {
        text.assign(n.value->GetString(), n.value->GetStringLength());
        // The API server's UnmarshalJSON trims surrounding white space.
        const auto first = text.find_first_not_of(" \t\n\r");
        const auto last = text.find_last_not_of(" \t\n\r");
        text = first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
    } else if (n.value->IsInt64()) {
        text = std::to_string(n.value->GetInt64());
    } else if (n.value->IsUint64()) {
        text = std::to_string(n.value->GetUint64());
    } else if (n.value->IsDouble()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", n.value->GetDouble());
        text = buf;
        if (text.find_first_of("in") != std::string::npos) text.clear(); // inf / nan
    } else {
        fail(n, std::string("expected a quantity (a string such as \"500m\"), got ") +
                    type_name(*n.value));
        return std::nullopt;
    }
    auto q = core::quantity::parse(text);
    if (!q) {
        fail(n, "invalid quantity \"" + text + "\": " + q.error().message());
        return std::nullopt;
    }
    return *q;
}

std::optional<core::time_point> json_decoder::opt_time(const json_node& n) {
    const auto s = opt_string_view(n);
    if (!s) return std::nullopt;
    auto t = core::parse_rfc3339(*s);
    if (!t) {
        fail(n, "invalid RFC 3339 time \"" + std::string(*s) + "\"");
        return std::nullopt;
    }
    return *t;
}

std::optional<std::chrono::nanoseconds> json_decoder::opt_duration(const json_node& n) {
    const auto s = opt_string_view(n);
    if (!s) return std::nullopt;
    auto d = core::parse_go_duration(*s);
    if (!d) {
        fail(n, "invalid duration \"" + std::string(*s) +
                    "\" (expected a Go duration such as \"30s\")");
        return std::nullopt;
    }
    return *d;
}

core::label_map json_decoder::string_map(const json_node& n) {
    if (!object(n)) return {};
    std::vector<core::label_map::value_type> entries; // views into the document
    for (const auto& m : n.value->GetObject()) {
        if (const auto value = opt_string_view(member(n, m)))
            entries.emplace_back(std::string_view(m.name.GetString(), m.name.GetStringLength()),
                                 *value);
    }
    return core::label_map::from_views(entries);
}

core::resource_list json_decoder::resources(const json_node& n) {
    core::resource_list out;
    if (!object(n)) return out;
    for (const auto& m : n.value->GetObject()) {
        if (auto q = opt_quantity(member(n, m)))
            out.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()), *q);
    }
    return out;
}

std::optional<core::label_selector_spec> json_decoder::selector(const json_node& n) {
    if (!object(n)) return std::nullopt;
    known_fields(n, {"matchLabels", "matchExpressions"});
    core::label_selector_spec spec;
    spec.match_labels = string_map(n["matchLabels"]);
    const json_node exprs = n["matchExpressions"];
    for (std::size_t i = 0, size = array(exprs); i < size; ++i) {
        const json_node e = exprs.at(i);
        if (!object(e)) {
            fail(e, "expected an object");
            break;
        }
        known_fields(e, {"key", "operator", "values"});
        core::label_selector_spec::expression expr;
        expr.key = string(e["key"]);
        expr.op = string(e["operator"]);
        const json_node values = e["values"];
        for (std::size_t j = 0, count = array(values); j < count; ++j) {
            if (auto v = opt_string(values.at(j))) expr.values.push_back(std::move(*v));
        }
        spec.match_expressions.push_back(std::move(expr));
    }
    return spec;
}

std::optional<json_error> parse_json(rapidjson::Document& doc, std::string_view text,
                                     std::string_view what) {
    if (std::string e = net::parse_json(doc, text); !e.empty())
        return json_error{std::string(what), std::move(e)};
    return std::nullopt;
}

object_meta json_decoder::meta(const json_node& n) {
    const json_node m = n["metadata"];
    object_meta out;
    out.ns = opt_string(m["namespace"]).value_or("");
    out.name = opt_string(m["name"]).value_or("");
    out.uid = opt_string(m["uid"]).value_or("");
    out.resource_version = opt_string(m["resourceVersion"]).value_or("");
    out.generation = opt_int(m["generation"], 0, INT64_MAX).value_or(0);
    return out;
}

} // namespace hpaplus::kube
