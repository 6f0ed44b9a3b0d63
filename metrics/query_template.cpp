// metrics/query_template.cpp — placeholder expansion and PromQL selector forms.
#include "metrics/query_template.hpp"

#include "net/http_message.hpp"

#include <algorithm>
#include <cstdio>

namespace hpaplus::metrics {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    return s;
}

std::string encode(std::string_view value, value_encoding encoding) {
    switch (encoding) {
    case value_encoding::percent:
        return net::percent_encode(value);
    case value_encoding::json:
    case value_encoding::promql:
        return escape_string(value);
    case value_encoding::influxql:
        return escape_influxql(value);
    case value_encoding::raw:
        break;
    }
    return std::string(value);
}

// Query text already, not a value: written as is into a query.
bool verbatim_in_queries(std::string_view name) {
    return name == "selector" || name == "window";
}

// Calls on_text for literal runs and on_name for placeholders; stops at the first error.
template <class Text, class Name>
core::outcome<void> scan(std::string_view text, Text on_text, Name on_name) {
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto open = text.find("{{", pos);
        if (open == std::string_view::npos) break;
        const auto close = text.find("}}", open + 2);
        if (close == std::string_view::npos)
            return core::error_message("unterminated \"{{\" at offset " + std::to_string(open));
        on_text(text.substr(pos, open - pos));
        if (auto r = on_name(trim(text.substr(open + 2, close - open - 2))); !r) return r;
        pos = close + 2;
    }
    on_text(text.substr(std::min(pos, text.size())));
    return {};
}

std::string known_list(const std::vector<std::string_view>& known) {
    std::string out;
    for (auto k : known)
        out += (out.empty() ? "" : ", ") + std::string(k);
    return out;
}

std::string prometheus_label_name(std::string_view key) {
    std::string out(key);
    for (char& c : out)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    if (!out.empty() && std::isdigit(static_cast<unsigned char>(out.front()))) out.insert(0, "_");
    return out;
}

std::string regex_escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (std::string_view(".^$*+?()[]{}|\\").find(c) != std::string_view::npos)
            out.push_back('\\');
        out.push_back(c);
    }
    return out;
}

} // namespace

const std::vector<std::string_view>& query_placeholders() {
    static const std::vector<std::string_view> names{"namespace",     "name",      "target",
                                                     "metric",        "container", "selector",
                                                     "labelSelector", "pods",      "window"};
    return names;
}

namespace {

template <class Encoding>
core::outcome<std::string> expand_with(std::string_view text, const template_values& values,
                                       Encoding encoding_of) {
    std::string out;
    out.reserve(text.size() + 64);
    auto r = scan(
        text, [&](std::string_view literal) { out += literal; },
        [&](std::string_view name) -> core::outcome<void> {
            const auto it = std::find_if(values.begin(), values.end(),
                                         [&](const auto& v) { return v.first == name; });
            if (it == values.end()) {
                std::vector<std::string_view> known;
                for (const auto& v : values)
                    known.push_back(v.first);
                return core::error_message("unknown placeholder {{" + std::string(name) +
                                           "}} (known: " + known_list(known) + ")");
            }
            out += encode(it->second, encoding_of(name));
            return {};
        });
    if (!r) return r.error();
    return core::success(std::move(out));
}

} // namespace

core::outcome<std::string> expand(std::string_view text, const template_values& values,
                                  value_encoding encoding) {
    return expand_with(text, values, [encoding](std::string_view) { return encoding; });
}

core::outcome<std::string> expand_query(std::string_view text, const template_values& values,
                                        value_encoding language) {
    return expand_with(text, values, [language](std::string_view name) {
        return verbatim_in_queries(name) ? value_encoding::raw : language;
    });
}

core::outcome<void> check_placeholders(std::string_view text,
                                       const std::vector<std::string_view>& known) {
    return scan(
        text, [](std::string_view) {},
        [&](std::string_view name) -> core::outcome<void> {
            if (std::find(known.begin(), known.end(), name) != known.end()) return {};
            return core::error_message("unknown placeholder {{" + std::string(name) +
                                       "}} (known: " + known_list(known) + ")");
        });
}

core::outcome<std::string> promql_matchers(const core::label_selector& selector) {
    std::string out;
    for (const auto& req : selector.requirements) {
        std::string matcher = prometheus_label_name(req.key);
        std::vector<std::string_view> values(req.values.begin(), req.values.end());
        switch (req.op) {
        case core::selector_op::equals:
            matcher += "=\"" + escape_string(req.values.at(0)) + "\"";
            break;
        case core::selector_op::not_equals:
            matcher += "!=\"" + escape_string(req.values.at(0)) + "\"";
            break;
        case core::selector_op::in:
            matcher += "=~\"" + escape_string(regex_alternation(values)) + "\"";
            break;
        case core::selector_op::not_in:
            matcher += "!~\"" + escape_string(regex_alternation(values)) + "\"";
            break;
        case core::selector_op::exists:
            matcher += "!=\"\"";
            break;
        case core::selector_op::does_not_exist:
            matcher += "=\"\"";
            break;
        case core::selector_op::greater_than:
        case core::selector_op::less_than:
            return core::error_message("the selector requirement on \"" + req.key +
                                       "\" (gt/lt) has no PromQL form");
        }
        out += (out.empty() ? "" : ",") + matcher;
    }
    return core::success(std::move(out));
}

std::string regex_alternation(const std::vector<std::string_view>& names) {
    std::string out;
    for (auto n : names)
        out += (out.empty() ? "" : "|") + regex_escape(n);
    return out;
}

std::string escape_string(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else {
            out.push_back(c);
        }
    }
    return out;
}

std::string escape_influxql(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == '\'' || c == '\\') {
            out.push_back('\\');
            out.push_back(c);
        } else if (c == '\n') { // a raw newline ends an InfluxQL string as malformed
            out += "\\n";
        } else {
            out.push_back(c);
        }
    }
    return out;
}

} // namespace hpaplus::metrics
