// sim/apiserver/cel_evaluator.cpp — CEL's evaluator: cel-go's semantics (errors are values),
// cost-bounded.
#include "sim/apiserver/cel_parts.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

namespace hpaplus::sim::cel {
namespace {

// ---------------------------------------------------------------------------------------------
// The evaluator.

struct evaluator {
    std::uint64_t limit = per_call_limit;
    std::uint64_t cost = 0;
    bool exceeded = false;
    std::map<std::string, value, std::less<>> vars;

    bool spend(std::uint64_t n) {
        cost += n;
        if (cost > limit) exceeded = true;
        return !exceeded;
    }
    static std::uint64_t tenth(std::size_t bytes) { return (bytes + 9) / 10; }

    // Lists and maps, read in place or built.
    static std::size_t size_of(const value& v) {
        if (v.k == vk::list) return v.doc ? v.doc->Size() : v.items->size();
        if (v.k == vk::map) return v.doc ? v.doc->MemberCount() : v.entries->size();
        return 0;
    }
    static value element(const value& list, std::size_t i) {
        if (list.doc)
            return value_of((*list.doc)[static_cast<rapidjson::SizeType>(i)],
                            items_of(list.schema));
        return (*list.items)[i];
    }
    static value key_at(const value& map, std::size_t i) {
        if (map.doc) {
            const auto& m = *(map.doc->MemberBegin() + static_cast<std::ptrdiff_t>(i));
            return value::string(std::string(m.name.GetString(), m.name.GetStringLength()));
        }
        return (*map.entries)[i].first;
    }
    static const json* property_schema(const value& map, const char* name) {
        if (const json* p = member_of(member_of(map.schema, "properties"), name)) return p;
        return additional_of(map.schema);
    }
    /// The value at `key` of a map, or nullopt.
    static std::optional<value> lookup(const value& map, const value& key) {
        if (map.doc) {
            if (key.k != vk::string) return std::nullopt;
            const auto it =
                map.doc->FindMember(json(rapidjson::StringRef(key.s.data(), key.s.size())));
            if (it == map.doc->MemberEnd()) return std::nullopt;
            return value_of(it->value, property_schema(map, key.s.c_str()));
        }
        for (const auto& [k, v] : *map.entries) {
            const value eq = equals(k, key);
            if (eq.k == vk::boolean && eq.b) return v;
        }
        return std::nullopt;
    }

    static bool is_number(const value& v) {
        return v.k == vk::integer || v.k == vk::uinteger || v.k == vk::real;
    }
    // -1, 0, 1 across int, uint and double (NaN: nullopt).
    static std::optional<int> compare_numbers(const value& a, const value& b) {
        if (a.k == vk::real || b.k == vk::real) {
            const double x = a.k == vk::real      ? a.d
                             : a.k == vk::integer ? static_cast<double>(a.i)
                                                  : static_cast<double>(a.u);
            const double y = b.k == vk::real      ? b.d
                             : b.k == vk::integer ? static_cast<double>(b.i)
                                                  : static_cast<double>(b.u);
            if (std::isnan(x) || std::isnan(y)) return std::nullopt;
            return x < y ? -1 : x > y ? 1 : 0;
        }
        if (a.k == vk::integer && b.k == vk::integer) return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
        if (a.k == vk::uinteger && b.k == vk::uinteger) return a.u < b.u ? -1 : a.u > b.u ? 1 : 0;
        if (a.k == vk::integer)
            return a.i < 0                                 ? -1
                   : static_cast<std::uint64_t>(a.i) < b.u ? -1
                   : static_cast<std::uint64_t>(a.i) > b.u ? 1
                                                           : 0;
        return b.i < 0                                 ? 1
               : a.u < static_cast<std::uint64_t>(b.i) ? -1
               : a.u > static_cast<std::uint64_t>(b.i) ? 1
                                                       : 0;
    }

    // CEL's heterogeneous equality: numbers across types, lists and maps deep, other kinds false.
    static value equals(const value& a, const value& b) {
        if (a.is_error()) return a;
        if (b.is_error()) return b;
        if (is_number(a) && is_number(b)) {
            const auto c = compare_numbers(a, b);
            return value::boolean(c && *c == 0);
        }
        if (a.k != b.k) return value::boolean(false);
        switch (a.k) {
        case vk::null:
            return value::boolean(true);
        case vk::boolean:
            return value::boolean(a.b == b.b);
        case vk::string:
        case vk::bytes:
        case vk::type:
            return value::boolean(a.s == b.s);
        case vk::list: {
            const std::size_t n = size_of(a);
            if (n != size_of(b)) return value::boolean(false);
            for (std::size_t i = 0; i < n; ++i) {
                const value eq = equals(element(a, i), element(b, i));
                if (eq.is_error() || !eq.b) return eq;
            }
            return value::boolean(true);
        }
        case vk::map: {
            const std::size_t n = size_of(a);
            if (n != size_of(b)) return value::boolean(false);
            for (std::size_t i = 0; i < n; ++i) {
                const value key = key_at(a, i);
                const auto other = lookup(b, key);
                if (!other) return value::boolean(false);
                const value eq = equals(*lookup(a, key), *other);
                if (eq.is_error() || !eq.b) return eq;
            }
            return value::boolean(true);
        }
        default:
            return value::boolean(false);
        }
    }

    static value no_overload() { return value::error("no such overload"); }

    value eval(const node& n) {
        if (!spend(1)) return value::error(std::string(cost_exceeded));
        switch (n.o) {
        case node::op::literal:
            if (n.literal.k == vk::string || n.literal.k == vk::bytes)
                spend(tenth(n.literal.s.size()));
            return n.literal;
        case node::op::ident: {
            if (auto it = vars.find(n.name); it != vars.end()) return it->second;
            return type_value(n.name);
        }
        case node::op::select:
        case node::op::has: {
            const value target = eval(*n.args[0]);
            if (target.is_error()) return target;
            if (target.k != vk::map) return value::error("no such overload");
            const auto found = lookup(target, value::string(unescaped(n.name)));
            if (n.o == node::op::has) return value::boolean(found.has_value());
            if (!found) return value::error("no such key: " + unescaped(n.name));
            return *found;
        }
        case node::op::list: {
            std::vector<value> items;
            for (const auto& a : n.args) {
                value v = eval(*a);
                if (v.is_error()) return v;
                items.push_back(std::move(v));
            }
            spend(items.size());
            return list_of(std::move(items));
        }
        case node::op::map: {
            auto entries = std::make_shared<std::vector<std::pair<value, value>>>();
            for (std::size_t i = 0; i + 1 < n.args.size(); i += 2) {
                value k = eval(*n.args[i]);
                if (k.is_error()) return k;
                if (k.k != vk::string && k.k != vk::integer && k.k != vk::uinteger &&
                    k.k != vk::boolean)
                    return value::error("unsupported key type");
                value v = eval(*n.args[i + 1]);
                if (v.is_error()) return v;
                for (const auto& e : *entries) {
                    const value eq = equals(e.first, k);
                    if (eq.k == vk::boolean && eq.b)
                        return value::error("Failed with repeated key");
                }
                entries->emplace_back(std::move(k), std::move(v));
            }
            spend(entries->size());
            value r;
            r.k = vk::map;
            r.entries = std::move(entries);
            return r;
        }
        case node::op::comprehension:
            return comprehension(n);
        case node::op::call:
            return call(n);
        }
        return no_overload();
    }

    value comprehension(const node& n) {
        const value range = eval(*n.args[0]);
        if (range.is_error()) return range;
        if (range.k != vk::list && range.k != vk::map) return no_overload();
        const std::size_t count = size_of(range);
        const binding bound(vars, n.var, value{});
        return iterate(n, range, count);
    }

    // all/exists: a false (true) decides whatever errors other elements gave, as `&&` (`||`)
    // would; exists_one, filter and map are strict.
    value iterate(const node& n, const value& range, std::size_t count) {
        const bool all = n.name == "all", exists = n.name == "exists";
        const bool transform_only = n.name == "map" && n.args.size() == 2;
        std::optional<value> error;
        std::size_t trues = 0;
        std::vector<value> out;
        for (std::size_t i = 0; i < count; ++i) {
            if (!spend(1)) return value::error(std::string(cost_exceeded));
            const value& element_value = vars[n.var] =
                range.k == vk::list ? element(range, i) : key_at(range, i);
            if (transform_only) {
                value v = eval(*n.args[1]);
                if (v.is_error()) return v;
                out.push_back(std::move(v));
                continue;
            }
            const value p = eval(*n.args[1]);
            if (exceeded) return value::error(std::string(cost_exceeded));
            if (all || exists) {
                if (p.k != vk::boolean) {
                    if (!error) error = p.is_error() ? p : no_overload();
                } else if (p.b == exists) {
                    return p;
                }
                continue;
            }
            if (p.is_error()) return p;
            if (p.k != vk::boolean) return no_overload();
            if (!p.b) continue;
            if (n.name == "exists_one") {
                ++trues;
            } else if (n.name == "filter") {
                out.push_back(element_value);
            } else {
                value v = eval(*n.args[2]);
                if (v.is_error()) return v;
                out.push_back(std::move(v));
            }
        }
        if (all || exists) return error ? *error : value::boolean(all);
        if (n.name == "exists_one") return value::boolean(trues == 1);
        if (!spend(out.size())) return value::error(std::string(cost_exceeded));
        return list_of(std::move(out));
    }

    value call(const node& n) {
        const std::string& f = n.name;
        // The logical operators evaluate both sides and absorb errors (commutatively).
        if (f == "_&&_" || f == "_||_") {
            const bool absorbing = f == "_||_";
            const value a = eval(*n.args[0]);
            if (a.k == vk::boolean && a.b == absorbing) return a;
            const value b = eval(*n.args[1]);
            if (b.k == vk::boolean && b.b == absorbing) return b;
            if (exceeded) return value::error(std::string(cost_exceeded));
            if (a.is_error()) return a;
            if (b.is_error()) return b;
            if (a.k != vk::boolean || b.k != vk::boolean) return no_overload();
            return value::boolean(!absorbing);
        }
        if (f == "_?_:_") {
            const value c = eval(*n.args[0]);
            if (c.is_error()) return c;
            if (c.k != vk::boolean) return no_overload();
            return eval(*n.args[c.b ? 1 : 2]);
        }
        std::vector<value> a;
        a.reserve(n.args.size());
        for (const auto& arg : n.args) {
            value v = eval(*arg);
            if (v.is_error()) return v;
            a.push_back(std::move(v));
        }
        if (f == "!_") return a[0].k == vk::boolean ? value::boolean(!a[0].b) : no_overload();
        if (f == "-_") {
            if (a[0].k == vk::integer)
                return a[0].i == std::numeric_limits<std::int64_t>::min()
                           ? value::error("integer overflow")
                           : value::integer(-a[0].i);
            if (a[0].k == vk::real) return real(-a[0].d);
            return no_overload();
        }
        if (f == "_==_" || f == "_!=_") {
            const value eq = equals(a[0], a[1]);
            if (eq.is_error()) return eq;
            return value::boolean(f == "_==_" ? eq.b : !eq.b);
        }
        if (f == "_<_" || f == "_<=_" || f == "_>_" || f == "_>=_") {
            std::optional<int> c;
            if (is_number(a[0]) && is_number(a[1])) {
                c = compare_numbers(a[0], a[1]);
                if (!c) return value::boolean(false);
            } else if (a[0].k == a[1].k && (a[0].k == vk::string || a[0].k == vk::bytes)) {
                spend(tenth(std::min(a[0].s.size(), a[1].s.size())));
                c = a[0].s < a[1].s ? -1 : a[0].s > a[1].s ? 1 : 0;
            } else if (a[0].k == vk::boolean && a[1].k == vk::boolean) {
                c = static_cast<int>(a[0].b) - static_cast<int>(a[1].b);
            } else {
                return no_overload();
            }
            if (f == "_<_") return value::boolean(*c < 0);
            if (f == "_<=_") return value::boolean(*c <= 0);
            if (f == "_>_") return value::boolean(*c > 0);
            return value::boolean(*c >= 0);
        }
        if (f == "@in") {
            if (a[1].k == vk::list) {
                for (std::size_t i = 0, size = size_of(a[1]); i < size; ++i) {
                    if (!spend(1)) return value::error(std::string(cost_exceeded));
                    const value eq = equals(a[0], element(a[1], i));
                    if (eq.k == vk::boolean && eq.b) return eq;
                }
                return value::boolean(false);
            }
            if (a[1].k == vk::map) return value::boolean(lookup(a[1], a[0]).has_value());
            return no_overload();
        }
        if (f == "_[_]") return index(a[0], a[1]);
        if (f == "_+_" || f == "_-_" || f == "_*_" || f == "_/_" || f == "_%_")
            return arithmetic(f, a[0], a[1]);
        return function(f, a);
    }

    static value index(const value& target, const value& key) {
        if (target.k == vk::list) {
            std::int64_t i = 0;
            if (key.k == vk::integer)
                i = key.i;
            else if (key.k == vk::uinteger &&
                     key.u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                i = static_cast<std::int64_t>(key.u);
            else if (key.k == vk::real && std::trunc(key.d) == key.d && std::abs(key.d) < 9e18)
                i = static_cast<std::int64_t>(key.d);
            else
                return no_overload();
            if (i < 0 || static_cast<std::uint64_t>(i) >= size_of(target))
                return value::error("index out of bounds: " + std::to_string(i));
            return element(target, static_cast<std::size_t>(i));
        }
        if (target.k == vk::map) {
            auto found = lookup(target, key);
            if (!found) {
                std::string shown = key.k == vk::string    ? key.s
                                    : key.k == vk::integer ? std::to_string(key.i)
                                                           : type_name(key);
                return value::error("no such key: " + shown);
            }
            return *found;
        }
        return no_overload();
    }

    value arithmetic(const std::string& f, const value& x, const value& y) {
        if (x.k != y.k) return no_overload();
        const char op = f[1];
        switch (x.k) {
        case vk::integer: {
            std::int64_t r = 0;
            bool overflow = false;
            if (op == '+') overflow = __builtin_add_overflow(x.i, y.i, &r);
            if (op == '-') overflow = __builtin_sub_overflow(x.i, y.i, &r);
            if (op == '*') overflow = __builtin_mul_overflow(x.i, y.i, &r);
            if (op == '/' || op == '%') {
                if (y.i == 0)
                    return value::error(op == '/' ? "division by zero" : "modulus by zero");
                if (x.i == std::numeric_limits<std::int64_t>::min() && y.i == -1)
                    return value::error("integer overflow");
                r = op == '/' ? x.i / y.i : x.i % y.i;
            }
            return overflow ? value::error("integer overflow") : value::integer(r);
        }
        case vk::uinteger: {
            std::uint64_t r = 0;
            bool overflow = false;
            if (op == '+') overflow = __builtin_add_overflow(x.u, y.u, &r);
            if (op == '-') overflow = __builtin_sub_overflow(x.u, y.u, &r);
            if (op == '*') overflow = __builtin_mul_overflow(x.u, y.u, &r);
            if (op == '/' || op == '%') {
                if (y.u == 0)
                    return value::error(op == '/' ? "division by zero" : "modulus by zero");
                r = op == '/' ? x.u / y.u : x.u % y.u;
            }
            return overflow ? value::error("unsigned integer overflow") : uinteger(r);
        }
        case vk::real:
            if (op == '+') return real(x.d + y.d);
            if (op == '-') return real(x.d - y.d);
            if (op == '*') return real(x.d * y.d);
            if (op == '/') return real(x.d / y.d);
            return no_overload();
        case vk::string:
        case vk::bytes:
            if (op != '+') return no_overload();
            if (!spend(tenth(x.s.size() + y.s.size())))
                return value::error(std::string(cost_exceeded));
            {
                value r = x;
                r.s += y.s;
                return r;
            }
        case vk::list: {
            if (op != '+') return no_overload();
            std::vector<value> items;
            for (std::size_t i = 0, n = size_of(x); i < n; ++i)
                items.push_back(element(x, i));
            for (std::size_t i = 0, n = size_of(y); i < n; ++i)
                items.push_back(element(y, i));
            if (!spend(items.size())) return value::error(std::string(cost_exceeded));
            return list_of(std::move(items));
        }
        default:
            return no_overload();
        }
    }

    value function(const std::string& f, std::vector<value>& a) {
        const value& x = a[0];
        if (f == "size") {
            if (x.k == vk::string) {
                spend(tenth(x.s.size()));
                return value::integer(static_cast<std::int64_t>(code_points(x.s)));
            }
            if (x.k == vk::bytes) return value::integer(static_cast<std::int64_t>(x.s.size()));
            if (x.k == vk::list || x.k == vk::map)
                return value::integer(static_cast<std::int64_t>(size_of(x)));
            return no_overload();
        }
        if (f == "dyn") return x;
        if (f == "type") return type_value(type_name(x));
        if (f == "int" || f == "uint" || f == "double" || f == "string" || f == "bool" ||
            f == "bytes")
            return conversion(f, x);
        if (x.k == vk::list && f == "join") {
            std::string out;
            const std::string separator = a.size() > 1 && a[1].k == vk::string ? a[1].s : "";
            if (a.size() > 1 && a[1].k != vk::string) return no_overload();
            for (std::size_t i = 0, n = size_of(x); i < n; ++i) {
                const value e = element(x, i);
                if (e.k != vk::string) return no_overload();
                out += (i ? separator : "") + e.s;
                if (!spend(tenth(e.s.size()))) return value::error(std::string(cost_exceeded));
            }
            return value::string(std::move(out));
        }
        if (x.k != vk::string) return no_overload();
        for (std::size_t i = 1; i < a.size(); ++i)
            if (a[i].k != vk::string && a[i].k != vk::integer) return no_overload();
        if (!spend(tenth(x.s.size()))) return value::error(std::string(cost_exceeded));
        const std::string& s = x.s;
        auto str = [&](std::size_t i) -> const std::string* {
            return i < a.size() && a[i].k == vk::string ? &a[i].s : nullptr;
        };
        auto num = [&](std::size_t i) -> std::optional<std::int64_t> {
            if (i < a.size() && a[i].k == vk::integer) return a[i].i;
            return std::nullopt;
        };
        if (f == "contains" && str(1)) return value::boolean(s.find(*str(1)) != std::string::npos);
        if (f == "startsWith" && str(1))
            return value::boolean(s.size() >= str(1)->size() &&
                                  s.compare(0, str(1)->size(), *str(1)) == 0);
        if (f == "endsWith" && str(1))
            return value::boolean(s.size() >= str(1)->size() &&
                                  s.compare(s.size() - str(1)->size(), str(1)->size(), *str(1)) ==
                                      0);
        if (f == "lowerAscii" || f == "upperAscii") {
            std::string out = s;
            for (auto& c : out)
                if (f == "lowerAscii" ? (c >= 'A' && c <= 'Z') : (c >= 'a' && c <= 'z'))
                    c = static_cast<char>(c ^ 0x20);
            return value::string(std::move(out));
        }
        if (f == "trim") {
            // Unicode White_Space in ASCII and Latin-1, as Go's unicode.IsSpace.
            const std::string_view space = " \t\n\v\f\r";
            const auto first = s.find_first_not_of(space);
            if (first == std::string::npos) return value::string("");
            return value::string(s.substr(first, s.find_last_not_of(space) - first + 1));
        }
        const auto offsets = code_point_offsets(s);
        const auto length = static_cast<std::int64_t>(offsets.size());
        auto byte_at = [&](std::int64_t cp) {
            return cp >= length ? s.size() : offsets[static_cast<std::size_t>(cp)];
        };
        auto cp_of = [&](std::size_t byte) {
            return static_cast<std::int64_t>(code_points(std::string_view(s).substr(0, byte)));
        };
        if ((f == "indexOf" || f == "lastIndexOf") && str(1)) {
            const bool last = f == "lastIndexOf";
            std::int64_t from = last ? length : 0;
            if (a.size() == 3) {
                if (!num(2)) return no_overload();
                from = *num(2);
                if (from < 0 || from > length)
                    return value::error("index out of range: " + std::to_string(from));
            }
            const std::size_t found =
                last ? s.rfind(*str(1), byte_at(from)) : s.find(*str(1), byte_at(from));
            return value::integer(found == std::string::npos ? -1 : cp_of(found));
        }
        if (f == "charAt" && num(1)) {
            const std::int64_t i = *num(1);
            if (i < 0 || i > length)
                return value::error("index out of range: " + std::to_string(i));
            if (i == length) return value::string("");
            return value::string(s.substr(byte_at(i), byte_at(i + 1) - byte_at(i)));
        }
        if (f == "substring" && num(1)) {
            const std::int64_t begin = *num(1);
            const std::int64_t end = a.size() == 3 ? (num(2) ? *num(2) : -2) : length;
            if (end == -2) return no_overload();
            if (begin < 0 || begin > length)
                return value::error("index out of range: " + std::to_string(begin));
            if (end < 0 || end > length)
                return value::error("index out of range: " + std::to_string(end));
            if (begin > end)
                return value::error("invalid substring range. start: " + std::to_string(begin) +
                                    ", end: " + std::to_string(end));
            return value::string(s.substr(byte_at(begin), byte_at(end) - byte_at(begin)));
        }
        if (f == "replace" && str(1) && str(2)) {
            std::int64_t limit_n = a.size() == 4 ? (num(3) ? *num(3) : -2) : -1;
            if (limit_n == -2 && a.size() == 4) return no_overload();
            const std::string& from = *str(1);
            const std::string& to = *str(2);
            std::string out;
            std::size_t i = 0;
            std::int64_t done = 0;
            while (limit_n < 0 || done < limit_n) {
                const std::size_t found =
                    from.empty() ? (i <= s.size() ? i : std::string::npos) : s.find(from, i);
                if (found == std::string::npos) break;
                out += s.substr(i, found - i) + to;
                ++done;
                if (!spend(tenth(to.size()) + 1)) return value::error(std::string(cost_exceeded));
                if (from.empty()) {
                    if (found >= s.size()) {
                        i = s.size() + 1;
                        break;
                    }
                    const std::size_t next = next_boundary(s, found);
                    out += s.substr(found, next - found);
                    i = next;
                } else {
                    i = found + from.size();
                }
            }
            if (i <= s.size()) out += s.substr(i);
            return value::string(std::move(out));
        }
        if (f == "split" && str(1)) {
            std::int64_t limit_n = a.size() == 3 ? (num(2) ? *num(2) : 0) : -1;
            std::vector<value> parts;
            if (limit_n == 0) return list_of({});
            const std::string& separator = *str(1);
            std::size_t i = 0;
            while (limit_n < 0 || static_cast<std::int64_t>(parts.size()) + 1 < limit_n) {
                if (separator.empty()) {
                    if (i >= s.size()) break;
                    const std::size_t next = next_boundary(s, i);
                    parts.push_back(value::string(s.substr(i, next - i)));
                    i = next;
                    continue;
                }
                const std::size_t found = s.find(separator, i);
                if (found == std::string::npos) break;
                parts.push_back(value::string(s.substr(i, found - i)));
                i = found + separator.size();
                if (!spend(1)) return value::error(std::string(cost_exceeded));
            }
            if (!separator.empty() || i < s.size()) parts.push_back(value::string(s.substr(i)));
            return list_of(std::move(parts));
        }
        return no_overload();
    }

    static value conversion(const std::string& f, const value& x) {
        if (f == "int") {
            if (x.k == vk::integer) return x;
            if (x.k == vk::uinteger)
                return x.u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                           ? value::error("range error")
                           : value::integer(static_cast<std::int64_t>(x.u));
            if (x.k == vk::real) {
                if (!(x.d > -9223372036854775808.0 && x.d < 9223372036854775808.0))
                    return value::error("range error");
                return value::integer(static_cast<std::int64_t>(x.d));
            }
            if (x.k == vk::string) {
                std::int64_t v = 0;
                const auto [end, ec] = std::from_chars(x.s.data(), x.s.data() + x.s.size(), v);
                if (ec != std::errc() || end != x.s.data() + x.s.size())
                    return value::error("type conversion error from 'string' to 'int'");
                return value::integer(v);
            }
        }
        if (f == "uint") {
            if (x.k == vk::uinteger) return x;
            if (x.k == vk::integer)
                return x.i < 0 ? value::error("range error")
                               : uinteger(static_cast<std::uint64_t>(x.i));
            if (x.k == vk::real) {
                if (!(x.d > -1.0 && x.d < 18446744073709551616.0))
                    return value::error("range error");
                return uinteger(static_cast<std::uint64_t>(x.d));
            }
            if (x.k == vk::string) {
                std::uint64_t v = 0;
                const auto [end, ec] = std::from_chars(x.s.data(), x.s.data() + x.s.size(), v);
                if (ec != std::errc() || end != x.s.data() + x.s.size())
                    return value::error("type conversion error from 'string' to 'uint'");
                return uinteger(v);
            }
        }
        if (f == "double") {
            if (x.k == vk::real) return x;
            if (x.k == vk::integer) return real(static_cast<double>(x.i));
            if (x.k == vk::uinteger) return real(static_cast<double>(x.u));
            if (x.k == vk::string) {
                char* end = nullptr;
                const double v = std::strtod(x.s.c_str(), &end);
                if (x.s.empty() || end != x.s.c_str() + x.s.size())
                    return value::error("type conversion error from 'string' to 'double'");
                return real(v);
            }
        }
        if (f == "string") {
            if (x.k == vk::string) return x;
            if (x.k == vk::bytes) return value::string(x.s);
            if (x.k == vk::integer) return value::string(std::to_string(x.i));
            if (x.k == vk::uinteger) return value::string(std::to_string(x.u));
            if (x.k == vk::boolean) return value::string(x.b ? "true" : "false");
            if (x.k == vk::real) return value::string(format_double(x.d));
        }
        if (f == "bool") {
            if (x.k == vk::boolean) return x;
            if (x.k == vk::string) {
                static const std::set<std::string_view> yes{"1", "t", "T", "TRUE", "true", "True"};
                static const std::set<std::string_view> no{"0",     "f",     "F",
                                                           "FALSE", "false", "False"};
                if (yes.count(x.s)) return value::boolean(true);
                if (no.count(x.s)) return value::boolean(false);
                return value::error("type conversion error from 'string' to 'bool'");
            }
        }
        if (f == "bytes") {
            if (x.k == vk::bytes) return x;
            if (x.k == vk::string) {
                value r = x;
                r.k = vk::bytes;
                return r;
            }
        }
        return no_overload();
    }
};

} // namespace

std::size_t size_of(const value& v) {
    return evaluator::size_of(v);
}
value element_at(const value& list, std::size_t i) {
    return evaluator::element(list, i);
}
std::pair<value, value> entry_at(const value& map, std::size_t i) {
    value key = evaluator::key_at(map, i);
    auto found = evaluator::lookup(map, key);
    return {std::move(key), found ? std::move(*found) : value{}};
}

evaluation evaluate(const program& p, const value& self, const value* old_self,
                    std::uint64_t limit) {
    evaluator e;
    e.limit = limit;
    e.vars.emplace("self", self);
    if (old_self) e.vars.emplace("oldSelf", *old_self);
    value result = e.eval(*p.root);
    if (e.exceeded) result = value::error(std::string(cost_exceeded));
    return {std::move(result), e.cost};
}

} // namespace hpaplus::sim::cel
