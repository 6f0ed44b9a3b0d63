// sim/apiserver/cel_cost.cpp — what bounds a rule's cost (the manifest test's view of the real
// server's estimator).
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
// What bounds a rule's cost (the manifest test's view of the real server's estimator).

struct bounds {
    const json* root_schema;
    std::vector<std::string> unbounded;

    static std::string path_of(const node& n) {
        if (n.o == node::op::ident) return n.name;
        if (n.o == node::op::select) return path_of(*n.args[0]) + "." + n.name;
        if (n.o == node::op::call && n.name == "_[_]") return path_of(*n.args[0]) + "[…]";
        return "(expression)";
    }

    // The schema of what a node reads from the document, or null.
    const json* schema_of(const node& n, const std::map<std::string, const json*>& scope) {
        if (n.o == node::op::ident) {
            auto it = scope.find(n.name);
            return it == scope.end() ? nullptr : it->second;
        }
        if (n.o == node::op::select) {
            const json* parent = schema_of(*n.args[0], scope);
            const std::string name = unescaped(n.name);
            if (const json* p = member_of(member_of(parent, "properties"), name.c_str())) return p;
            return additional_of(parent);
        }
        if (n.o == node::op::call && n.name == "_[_]") {
            const json* parent = schema_of(*n.args[0], scope);
            return items_of(parent) ? items_of(parent) : additional_of(parent);
        }
        return nullptr;
    }
    static std::optional<std::uint64_t> max_items(const json* schema) {
        for (const char* key : {"maxItems", "maxProperties"})
            if (const json* m = member_of(schema, key); m && m->IsUint64()) return m->GetUint64();
        return std::nullopt;
    }
    static std::optional<std::uint64_t> max_length(const json* schema) {
        if (const json* m = member_of(schema, "maxLength"); m && m->IsUint64())
            return m->GetUint64();
        if (const json* e = member_of(schema, "enum"); e && e->IsArray()) {
            std::uint64_t longest = 0;
            for (const auto& v : e->GetArray())
                if (v.IsString()) longest = std::max<std::uint64_t>(longest, v.GetStringLength());
            return longest;
        }
        return std::nullopt;
    }

    // Cost as every walk at its maxItems and every string at its maxLength; records what is
    // unbounded.
    std::uint64_t cost(const node& n, std::map<std::string, const json*>& scope) {
        std::uint64_t c = 1;
        if (n.o == node::op::comprehension) {
            const json* range = schema_of(*n.args[0], scope);
            const auto items = max_items(range);
            const bool from_document = range != nullptr;
            if (from_document && !items)
                unbounded.push_back("`" + path_of(*n.args[0]) +
                                    "`: a list or map walked without maxItems/maxProperties");
            c += cost(*n.args[0], scope);
            const json* element = items_of(range);
            std::uint64_t body = 0;
            {
                const binding bound(scope, n.var, element);
                for (std::size_t i = 1; i < n.args.size(); ++i)
                    body += cost(*n.args[i], scope);
            }
            const std::uint64_t iterations = n.args[0]->o == node::op::list
                                                 ? n.args[0]->args.size()
                                                 : items.value_or(from_document ? 0 : 1);
            return c + iterations * (body + 1);
        }
        if (n.o == node::op::call) {
            static const std::set<std::string_view> string_reads{
                "_==_",     "_!=_",       "_<_",        "_<=_",    "_>_",         "_>=_",
                "contains", "startsWith", "endsWith",   "indexOf", "lastIndexOf", "split",
                "replace",  "lowerAscii", "upperAscii", "trim"};
            if (string_reads.count(n.name)) {
                for (const auto& a : n.args) {
                    const json* s = schema_of(*a, scope);
                    if (!s || schema_type(s) != "string") continue;
                    const auto length = max_length(s);
                    if (!length)
                        unbounded.push_back("`" + path_of(*a) +
                                            "`: a string compared or searched without maxLength");
                    else
                        c += (*length + 9) / 10;
                }
            }
            if (n.name == "@in" || n.name == "join") {
                const node& operand = n.name == "join" ? *n.args[0] : *n.args.back();
                if (const json* list = schema_of(operand, scope)) {
                    const auto items = max_items(list);
                    if (!items)
                        unbounded.push_back("`" + path_of(operand) +
                                            "`: a list searched without maxItems");
                    c += items.value_or(0);
                }
            }
        }
        for (const auto& a : n.args)
            c += cost(*a, scope);
        return c;
    }
};

} // namespace

std::vector<std::string> unbounded_inputs(const program& p, const json* self_schema) {
    bounds b{self_schema, {}};
    std::map<std::string, const json*> scope{{"self", self_schema}, {"oldSelf", self_schema}};
    (void)b.cost(*p.root, scope);
    return b.unbounded;
}

std::optional<std::uint64_t> estimated_cost(const program& p, const json* self_schema) {
    bounds b{self_schema, {}};
    std::map<std::string, const json*> scope{{"self", self_schema}, {"oldSelf", self_schema}};
    const std::uint64_t c = b.cost(*p.root, scope);
    if (!b.unbounded.empty()) return std::nullopt;
    return c;
}

} // namespace hpaplus::sim::cel
