// sim/apiserver/cel_checker.cpp — CEL's checker: what cel-go's type checker refuses, as far as
// the schema tells types.
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
// The checker: what cel-go's type checker refuses, as far as the schema tells types.

struct ctype {
    enum class k : std::uint8_t {
        dyn,
        null,
        boolean,
        integer,
        uinteger,
        real,
        string,
        bytes,
        list,
        map,
        object,
        type
    };
    k kind = k::dyn;
    const json* schema = nullptr; ///< list, map and object from the schema; null: elements dyn
    bool root = false;            ///< a resource root: metadata is name and generateName only
};

ctype type_of_schema(const json* schema) {
    if (!schema) return {};
    if (flag(schema, "x-kubernetes-int-or-string") ||
        (flag(schema, "x-kubernetes-preserve-unknown-fields") && schema_type(schema).empty()))
        return {};
    const std::string_view t = schema_type(schema);
    if (t == "integer") return {ctype::k::integer};
    if (t == "number") return {ctype::k::real};
    if (t == "string") return {ctype::k::string};
    if (t == "boolean") return {ctype::k::boolean};
    if (t == "array") return {ctype::k::list, schema};
    if (t == "object") {
        if (member_of(schema, "properties") || !additional_of(schema))
            return {ctype::k::object, schema};
        return {ctype::k::map, schema};
    }
    return {};
}

const char* ctype_name(const ctype& t) {
    switch (t.kind) {
    case ctype::k::dyn:
        return "dyn";
    case ctype::k::null:
        return "null_type";
    case ctype::k::boolean:
        return "bool";
    case ctype::k::integer:
        return "int";
    case ctype::k::uinteger:
        return "uint";
    case ctype::k::real:
        return "double";
    case ctype::k::string:
        return "string";
    case ctype::k::bytes:
        return "bytes";
    case ctype::k::list:
        return "list";
    case ctype::k::map:
        return "map";
    case ctype::k::object:
        return "object";
    case ctype::k::type:
        return "type";
    }
    return "dyn";
}

const std::set<std::string_view>& unsupported_functions() {
    static const std::set<std::string_view> names{
        "matches",    "timestamp",  "duration", "getFullYear", "getMonth", "getDate", "getHours",
        "getMinutes", "getSeconds", "quantity", "isQuantity",  "url",      "isURL",   "ip",
        "isIP",       "cidr",       "isCIDR",   "format",      "isSorted", "sum",     "min",
        "max",        "optional",   "find",     "findAll",     "regex",    "semver",  "isSemver"};
    return names;
}

// What a rule on a whole object sees of its metadata (cel-go's WithTypeAndObjectMeta).
const json& root_metadata() {
    static const json_doc schema = [] {
        json_doc d;
        d.Parse(R"({"type":"object","properties":{"name":{"type":"string"},)"
                R"("generateName":{"type":"string"}}})");
        return d;
    }();
    return schema;
}

class checker {
  public:
    checker(std::string_view source) : source_(source) {}
    std::string error;
    bool uses_old_self = false;

    ctype check(const node& n, std::map<std::string, ctype>& scope) {
        if (!error.empty()) return {};
        switch (n.o) {
        case node::op::literal:
            switch (n.literal.k) {
            case vk::null:
                return {ctype::k::null};
            case vk::boolean:
                return {ctype::k::boolean};
            case vk::integer:
                return {ctype::k::integer};
            case vk::uinteger:
                return {ctype::k::uinteger};
            case vk::real:
                return {ctype::k::real};
            case vk::string:
                return {ctype::k::string};
            case vk::bytes:
                return {ctype::k::bytes};
            default:
                return {};
            }
        case node::op::ident: {
            if (auto it = scope.find(n.name); it != scope.end()) {
                if (n.name == "oldSelf") uses_old_self = true;
                return it->second;
            }
            static const std::set<std::string_view> types{"int",       "uint",  "double", "bool",
                                                          "string",    "bytes", "list",   "map",
                                                          "null_type", "type"};
            if (types.count(n.name)) return {ctype::k::type};
            return fail(n, "undeclared reference to '" + n.name + "' (in container '')");
        }
        case node::op::select:
        case node::op::has: {
            const ctype target = check(*n.args[0], scope);
            return field(n, target, n.o == node::op::has);
        }
        case node::op::list: {
            for (const auto& a : n.args)
                check(*a, scope);
            return {ctype::k::list};
        }
        case node::op::map: {
            for (const auto& a : n.args)
                check(*a, scope);
            return {ctype::k::map};
        }
        case node::op::comprehension:
            return comprehension(n, scope);
        case node::op::call:
            return call(n, scope);
        }
        return {};
    }

  private:
    std::string_view source_;

    ctype fail(const node& n, const std::string& message) {
        if (error.empty()) error = located(source_, n.at, message);
        return {};
    }

    ctype field(const node& n, const ctype& target, bool presence) {
        if (!error.empty()) return {};
        const std::string name = unescaped(n.name);
        switch (target.kind) {
        case ctype::k::dyn:
            return {};
        case ctype::k::map:
            return presence ? ctype{ctype::k::boolean}
                            : type_of_schema(additional_of(target.schema));
        case ctype::k::object: {
            if (!target.schema) return presence ? ctype{ctype::k::boolean} : ctype{};
            const json* properties = member_of(target.schema, "properties");
            const json* property = member_of(properties, name.c_str());
            if (target.root && name == "metadata")
                return presence ? ctype{ctype::k::boolean}
                                : ctype{ctype::k::object, &root_metadata()};
            if (target.root && (name == "apiVersion" || name == "kind"))
                return presence ? ctype{ctype::k::boolean} : ctype{ctype::k::string};
            if (!property) {
                if (flag(target.schema, "x-kubernetes-preserve-unknown-fields"))
                    return presence ? ctype{ctype::k::boolean} : ctype{};
                return fail(n, "undefined field '" + name + "'");
            }
            return presence ? ctype{ctype::k::boolean} : type_of_schema(property);
        }
        default:
            return fail(n, std::string("type '") + ctype_name(target) +
                               "' does not support field selection");
        }
    }

    ctype element_of(const ctype& range) {
        if (range.kind == ctype::k::list) return type_of_schema(items_of(range.schema));
        if (range.kind == ctype::k::map) return {ctype::k::string};
        if (range.kind == ctype::k::object) return {ctype::k::string};
        return {};
    }

    ctype comprehension(const node& n, std::map<std::string, ctype>& scope) {
        const ctype range = check(*n.args[0], scope);
        if (!error.empty()) return {};
        if (range.kind != ctype::k::dyn && range.kind != ctype::k::list &&
            range.kind != ctype::k::map && range.kind != ctype::k::object)
            return fail(n,
                        "expression of type '" + std::string(ctype_name(range)) +
                            "' cannot be range of a comprehension (must be list, map, or dynamic)");
        ctype result{ctype::k::boolean};
        {
            const binding bound(scope, n.var, element_of(range));
            for (std::size_t i = 1; i < n.args.size(); ++i) {
                const ctype t = check(*n.args[i], scope);
                const bool transform = n.name == "map" && i + 1 == n.args.size();
                if (!transform && t.kind != ctype::k::boolean && t.kind != ctype::k::dyn)
                    fail(*n.args[i], "found no matching overload for '_&&_' applied to '(bool, " +
                                         std::string(ctype_name(t)) + ")'");
            }
        }
        if (n.name == "map" || n.name == "filter") {
            result = {ctype::k::list};
            if (n.name == "filter")
                result = range.kind == ctype::k::list ? range : ctype{ctype::k::list};
        }
        return result;
    }

    static bool numeric(const ctype& t) {
        return t.kind == ctype::k::integer || t.kind == ctype::k::uinteger ||
               t.kind == ctype::k::real;
    }
    static bool known(const ctype& t) { return t.kind != ctype::k::dyn; }
    static bool same(const ctype& a, const ctype& b) {
        auto norm = [](ctype::k k) { return k == ctype::k::object ? ctype::k::map : k; };
        return norm(a.kind) == norm(b.kind);
    }

    ctype overload(const node& n, const std::vector<ctype>& args) {
        std::string list;
        for (std::size_t i = 0; i < args.size(); ++i)
            list += (i ? ", " : "") + std::string(ctype_name(args[i]));
        return fail(n,
                    "found no matching overload for '" + n.name + "' applied to '" +
                        (n.member && !args.empty() ? std::string(ctype_name(args[0])) + "." : "") +
                        "(" + list + ")'");
    }

    ctype call(const node& n, std::map<std::string, ctype>& scope) {
        std::vector<ctype> a;
        for (const auto& arg : n.args)
            a.push_back(check(*arg, scope));
        if (!error.empty()) return {};
        const std::string& f = n.name;
        const bool all_known = std::all_of(a.begin(), a.end(), known);
        const ctype boolean{ctype::k::boolean};
        if (f == "_&&_" || f == "_||_" || f == "!_") {
            for (const auto& t : a)
                if (known(t) && t.kind != ctype::k::boolean) return overload(n, a);
            return boolean;
        }
        if (f == "_?_:_") {
            if (known(a[0]) && a[0].kind != ctype::k::boolean) return overload(n, a);
            return known(a[1]) && known(a[2]) && same(a[1], a[2]) ? a[1] : ctype{};
        }
        if (f == "_==_" || f == "_!=_") {
            if (all_known && !same(a[0], a[1]) && a[0].kind != ctype::k::null &&
                a[1].kind != ctype::k::null)
                return overload(n, a);
            return boolean;
        }
        if (f == "_<_" || f == "_<=_" || f == "_>_" || f == "_>=_") {
            if (all_known && !(numeric(a[0]) && numeric(a[1])) &&
                !(same(a[0], a[1]) &&
                  (a[0].kind == ctype::k::string || a[0].kind == ctype::k::bytes ||
                   a[0].kind == ctype::k::boolean)))
                return overload(n, a);
            return boolean;
        }
        if (f == "@in") {
            if (known(a[1]) && a[1].kind != ctype::k::list && a[1].kind != ctype::k::map &&
                a[1].kind != ctype::k::object)
                return overload(n, a);
            return boolean;
        }
        if (f == "_+_" || f == "_-_" || f == "_*_" || f == "_/_" || f == "_%_") {
            if (!all_known) return {};
            const bool ok_numeric =
                same(a[0], a[1]) && numeric(a[0]) && !(f == "_%_" && a[0].kind == ctype::k::real);
            const bool ok_concat = f == "_+_" && same(a[0], a[1]) &&
                                   (a[0].kind == ctype::k::string || a[0].kind == ctype::k::bytes ||
                                    a[0].kind == ctype::k::list);
            if (!ok_numeric && !ok_concat) return overload(n, a);
            return a[0].kind == ctype::k::list ? ctype{ctype::k::list} : a[0];
        }
        if (f == "-_") {
            if (known(a[0]) && a[0].kind != ctype::k::integer && a[0].kind != ctype::k::real)
                return overload(n, a);
            return a[0];
        }
        if (f == "_[_]") {
            if (a[0].kind == ctype::k::list) {
                if (known(a[1]) && !numeric(a[1])) return overload(n, a);
                return type_of_schema(items_of(a[0].schema));
            }
            if (a[0].kind == ctype::k::map) return type_of_schema(additional_of(a[0].schema));
            if (a[0].kind == ctype::k::object) return {};
            if (known(a[0])) return overload(n, a);
            return {};
        }
        if (unsupported_functions().count(f))
            return fail(n, "function '" + f + "' is not supported by the simulated cluster");
        struct signature {
            const char* name;
            bool member;
            std::size_t arity;             ///< with the target
            std::vector<ctype::k> accepts; ///< the target's (or first argument's) types
            ctype::k result;
        };
        using K = ctype::k;
        static const std::vector<signature> functions{
            {"size", false, 1, {K::string, K::bytes, K::list, K::map, K::object}, K::integer},
            {"size", true, 1, {K::string, K::bytes, K::list, K::map, K::object}, K::integer},
            {"contains", true, 2, {K::string}, K::boolean},
            {"startsWith", true, 2, {K::string}, K::boolean},
            {"endsWith", true, 2, {K::string}, K::boolean},
            {"lowerAscii", true, 1, {K::string}, K::string},
            {"upperAscii", true, 1, {K::string}, K::string},
            {"trim", true, 1, {K::string}, K::string},
            {"join", true, 1, {K::list}, K::string},
            {"join", true, 2, {K::list}, K::string},
            {"indexOf", true, 2, {K::string}, K::integer},
            {"indexOf", true, 3, {K::string}, K::integer},
            {"lastIndexOf", true, 2, {K::string}, K::integer},
            {"lastIndexOf", true, 3, {K::string}, K::integer},
            {"charAt", true, 2, {K::string}, K::string},
            {"substring", true, 2, {K::string}, K::string},
            {"substring", true, 3, {K::string}, K::string},
            {"replace", true, 3, {K::string}, K::string},
            {"replace", true, 4, {K::string}, K::string},
            {"split", true, 2, {K::string}, K::list},
            {"split", true, 3, {K::string}, K::list},
            {"int", false, 1, {K::integer, K::uinteger, K::real, K::string}, K::integer},
            {"uint", false, 1, {K::integer, K::uinteger, K::real, K::string}, K::uinteger},
            {"double", false, 1, {K::integer, K::uinteger, K::real, K::string}, K::real},
            {"string",
             false,
             1,
             {K::integer, K::uinteger, K::real, K::string, K::bytes, K::boolean},
             K::string},
            {"bool", false, 1, {K::boolean, K::string}, K::boolean},
            {"bytes", false, 1, {K::bytes, K::string}, K::bytes},
            {"dyn", false, 1, {}, K::dyn},
            {"type", false, 1, {}, K::type},
        };
        bool named = false;
        for (const auto& s : functions) {
            if (s.name != f) continue;
            named = true;
            if (s.member != n.member || s.arity != a.size()) continue;
            if (!s.accepts.empty() && known(a[0]) &&
                std::find(s.accepts.begin(), s.accepts.end(), a[0].kind) == s.accepts.end())
                continue;
            if (f == "dyn") return {};
            return {s.result};
        }
        if (named) return overload(n, a);
        return fail(n, "undeclared reference to '" + f + "' (in container '')");
    }
};

} // namespace

checked check_expression(std::string_view source, const node& root, const json* self_schema,
                         bool resource_root) {
    checker c(source);
    ctype self = type_of_schema(self_schema);
    self.root = resource_root;
    std::map<std::string, ctype> scope{{"self", self}, {"oldSelf", self}};
    const ctype result = c.check(root, scope);
    checked out;
    out.error = std::move(c.error);
    out.uses_old_self = c.uses_old_self;
    out.type = result.kind == ctype::k::dyn       ? checked::result::dyn
               : result.kind == ctype::k::boolean ? checked::result::boolean
               : result.kind == ctype::k::string  ? checked::result::string
                                                  : checked::result::other;
    return out;
}

} // namespace hpaplus::sim::cel
