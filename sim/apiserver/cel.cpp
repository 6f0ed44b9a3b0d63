// sim/apiserver/cel.cpp — CEL (see cel.hpp): values, the helpers its parts share (cel_parts.hpp),
// and compile(): parse (cel_syntax.cpp), then check against the schema (cel_checker.cpp).
#include "sim/apiserver/cel.hpp"

#include "sim/apiserver/cel_parts.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

namespace hpaplus::sim::cel {

value value::boolean(bool v) {
    value r;
    r.k = vk::boolean;
    r.b = v;
    return r;
}
value value::integer(std::int64_t v) {
    value r;
    r.k = vk::integer;
    r.i = v;
    return r;
}
value value::string(std::string v) {
    value r;
    r.k = vk::string;
    r.s = std::move(v);
    return r;
}
value value::error(std::string message) {
    value r;
    r.k = vk::error;
    r.s = std::move(message);
    return r;
}

value uinteger(std::uint64_t v) {
    value r;
    r.k = vk::uinteger;
    r.u = v;
    return r;
}
value real(double v) {
    value r;
    r.k = vk::real;
    r.d = v;
    return r;
}
value type_value(std::string name) {
    value r;
    r.k = vk::type;
    r.s = std::move(name);
    return r;
}
value list_of(std::vector<value> items) {
    value r;
    r.k = vk::list;
    r.items = std::make_shared<const std::vector<value>>(std::move(items));
    return r;
}

bool flag(const json* schema, const char* name) {
    const json* f = member_of(schema, name);
    return f && f->IsBool() && f->GetBool();
}
std::string_view schema_type(const json* schema) {
    const json* t = member_of(schema, "type");
    return t && t->IsString() ? std::string_view(t->GetString(), t->GetStringLength())
                              : std::string_view();
}

// ---------------------------------------------------------------------------------------------
// Strings as code points (size, indexOf, charAt and substring count them, as cel-go does).

std::vector<std::size_t> code_point_offsets(std::string_view s) {
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < s.size(); ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) offsets.push_back(i);
    return offsets;
}
/// The offset of the code point after the one at `i`.
std::size_t next_boundary(std::string_view s, std::size_t i) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80)
        ++i;
    return i;
}
std::size_t code_points(std::string_view s) {
    std::size_t n = 0;
    for (const char c : s)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}
void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// Go's fmt %g of a double (shortest digits; an exponent below -4 or from 6 up is written as
// such), which cel-go's string(double) prints.
std::string format_double(double d) {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string sci(buf, end); // d.ddde±XX
    const auto e = sci.find('e');
    std::string mantissa = sci.substr(0, e);
    const int exponent = std::stoi(sci.substr(e + 1));
    const bool negative = mantissa[0] == '-';
    if (negative) mantissa.erase(0, 1);
    std::string digits;
    for (const char c : mantissa)
        if (c != '.') digits += c;
    std::string out = negative ? "-" : "";
    if (exponent < -4 || exponent >= 6) {
        out += digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        out += exponent < 0 ? "e-" : "e+";
        const int magnitude = exponent < 0 ? -exponent : exponent;
        if (magnitude < 10) out += "0";
        out += std::to_string(magnitude);
        return out;
    }
    if (exponent < 0)
        return out + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    const auto point = static_cast<std::size_t>(exponent) + 1;
    if (digits.size() <= point) return out + digits + std::string(point - digits.size(), '0');
    return out + digits.substr(0, point) + "." + digits.substr(point);
}

const std::set<std::string_view>& reserved_words() {
    static const std::set<std::string_view> words{
        "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
        "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};
    return words;
}

// cel-go's error text: the position (1-based line and column) and the line with a caret.
std::string located(std::string_view source, std::size_t at, const std::string& message) {
    std::size_t line = 1, line_start = 0;
    for (std::size_t i = 0; i < at && i < source.size(); ++i)
        if (source[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    const std::size_t line_end = std::min(source.find('\n', line_start), source.size());
    const std::size_t column = code_points(source.substr(line_start, at - line_start));
    return "ERROR: <input>:" + std::to_string(line) + ":" + std::to_string(column + 1) + ": " +
           message + "\n | " + std::string(source.substr(line_start, line_end - line_start)) +
           "\n | " + std::string(column, '.') + "^";
}

const json* items_of(const json* schema) {
    const json* items = member_of(schema, "items");
    return items && items->IsObject() ? items : nullptr;
}
const json* additional_of(const json* schema) {
    const json* a = member_of(schema, "additionalProperties");
    return a && a->IsObject() ? a : nullptr;
}

// A property name as a rule spells it: reserved words and characters CEL identifiers lack are
// escaped (`__namespace__`, `__dash__`, `__dot__`, `__slash__`, `__underscores__`).
std::string unescaped(std::string_view name) {
    if (name.size() > 4 && name.substr(0, 2) == "__" && name.substr(name.size() - 2) == "__") {
        const std::string_view inner = name.substr(2, name.size() - 4);
        if (reserved_words().count(inner) || inner == "true" || inner == "false" ||
            inner == "null" || inner == "in")
            return std::string(inner);
    }
    std::string out;
    for (std::size_t i = 0; i < name.size();) {
        bool replaced = false;
        for (const auto& [from, to] :
             {std::pair{"__underscores__", "__"}, std::pair{"__dot__", "."},
              std::pair{"__dash__", "-"}, std::pair{"__slash__", "/"}}) {
            const std::size_t n = std::strlen(from);
            if (name.substr(i, n) == from) {
                out += to;
                i += n;
                replaced = true;
                break;
            }
        }
        if (!replaced) out += name[i++];
    }
    return out;
}

value value_of(const json& v, const json* schema) {
    value r;
    if (v.IsNull()) return r;
    const std::string_view t =
        flag(schema, "x-kubernetes-int-or-string") ? "" : schema_type(schema);
    if (v.IsBool()) return value::boolean(v.GetBool());
    if (v.IsString()) return value::string(std::string(v.GetString(), v.GetStringLength()));
    if (v.IsNumber()) {
        // As decoded JSON: an integer that fits int64 is an int, any other number a double.
        if (t != "number" && v.IsInt64()) return value::integer(v.GetInt64());
        return real(v.GetDouble());
    }
    if (v.IsArray()) r.k = vk::list;
    if (v.IsObject()) r.k = vk::map;
    r.doc = &v;
    r.schema = schema;
    return r;
}

std::string type_name(const value& v) {
    switch (v.k) {
    case vk::null:
        return "null_type";
    case vk::boolean:
        return "bool";
    case vk::integer:
        return "int";
    case vk::uinteger:
        return "uint";
    case vk::real:
        return "double";
    case vk::string:
        return "string";
    case vk::bytes:
        return "bytes";
    case vk::list:
        return "list";
    case vk::map:
        return "map";
    case vk::type:
        return "type";
    case vk::error:
        return "error";
    }
    return "dyn";
}

compiled compile(std::string_view source, const json* self_schema, result_type want,
                 bool resource_root) {
    compiled out;
    if (source.size() > max_source_bytes) {
        out.error = "ERROR: <input>:-1:0: expression code point size exceeds limit: size: " +
                    std::to_string(code_points(source)) + ", limit " +
                    std::to_string(max_source_bytes);
        return out;
    }
    parsed p = parse_expression(source);
    if (!p.root) {
        out.error = std::move(p.error);
        return out;
    }
    checked c = check_expression(source, *p.root, self_schema, resource_root);
    if (!c.error.empty()) {
        out.error = std::move(c.error);
        return out;
    }
    const auto wanted =
        want == result_type::boolean ? checked::result::boolean : checked::result::string;
    if (c.type != checked::result::dyn && c.type != wanted) {
        out.error = want == result_type::boolean ? "cel expression must evaluate to a bool"
                                                 : "messageExpression must evaluate to a string";
        return out;
    }
    out.ok = program{std::move(p.root), c.uses_old_self};
    return out;
}

} // namespace hpaplus::sim::cel
