// sim/apiserver/strategic_merge.cpp — strategic merge patches after apimachinery's strategicpatch
// (mergeMap, mergeSlice, the directives). Where it is simpler: elements only the server has that a
// `$setElementOrder` list does not name keep their relative order after the named ones.
#include "sim/apiserver/strategic_merge.hpp"

#include "sim/apiserver/openapi.hpp"

#include <string_view>
#include <vector>

namespace hpaplus::sim {
namespace {

constexpr std::string_view set_order_prefix = "$setElementOrder/";
constexpr std::string_view delete_primitive_prefix = "$deleteFromPrimitiveList/";
constexpr int max_depth = 200; // deeper patches are refused rather than recursed into

struct patch_meta {
    std::string merge_key;
    bool merge = false;
    bool replace = false; ///< a map replaced whole (a PodDisruptionBudget's selector)
};

std::string_view name_of(const json& member_name) {
    return {member_name.GetString(), member_name.GetStringLength()};
}

/// The schema of field `key` inside `schema` (unresolved, so its own extensions can be read).
const json* field_schema(const json* schema, std::string_view key) {
    return member_of(member_of(resolve_builtin_ref(schema), "properties"), key);
}

patch_meta meta_of(const json* field) {
    patch_meta m;
    if (const json* key = member_of(field, "x-kubernetes-patch-merge-key"); key && key->IsString())
        m.merge_key = key->GetString();
    if (const json* s = member_of(field, "x-kubernetes-patch-strategy"); s && s->IsString()) {
        const std::string_view strategy = s->GetString();
        m.merge = strategy.find("merge") != std::string_view::npos;
        m.replace = strategy == "replace";
    }
    return m;
}

bool is_directive(std::string_view key) {
    return !key.empty() && key.front() == '$';
}

std::optional<std::string> merge_map(json& target, const json& patch, const json* schema,
                                     json_alloc& a, int depth);

/// A patch value merged into nothing: directives are dropped, as the server stores no `$` keys.
json fresh(const json& patch, const json* schema, json_alloc& a, int depth,
           std::optional<std::string>& error) {
    if (!patch.IsObject()) return json(patch, a);
    json out(rapidjson::kObjectType);
    error = merge_map(out, patch, schema, a, depth);
    return out;
}

bool same_key(const json& element, const std::string& key, const json& value) {
    const json* v = member_of(&element, key);
    return v && equal(*v, value);
}

std::optional<std::string> merge_list(json& target, const json& patch, const patch_meta& meta,
                                      const json* items, json_alloc& a, int depth) {
    std::optional<std::string> error;
    for (const auto& e : patch.GetArray()) // `{"$patch": "replace"}` among the elements
        if (const json* p = member_of(&e, "$patch");
            p && p->IsString() && std::string_view(p->GetString()) == "replace") {
            json replaced(rapidjson::kArrayType);
            for (const auto& x : patch.GetArray())
                if (&x != &e) replaced.PushBack(fresh(x, items, a, depth, error), a);
            target = std::move(replaced);
            return error;
        }
    for (const auto& e : patch.GetArray()) {
        if (!e.IsObject() || meta.merge_key.empty()) { // primitives: a union
            bool present = false;
            for (const auto& t : target.GetArray())
                present = present || equal(t, e);
            if (!present) target.PushBack(fresh(e, items, a, depth, error), a);
            if (error) return error;
            continue;
        }
        const json* key = member_of(&e, meta.merge_key);
        if (!key)
            return "map: " + to_string(e) +
                   " does not contain declared merge key: " + meta.merge_key;
        const json* directive = member_of(&e, "$patch");
        const bool remove = directive && directive->IsString() &&
                            std::string_view(directive->GetString()) == "delete";
        bool found = false;
        for (auto it = target.Begin(); it != target.End();) {
            if (!same_key(*it, meta.merge_key, *key)) {
                ++it;
                continue;
            }
            found = true;
            if (remove) {
                it = target.Erase(it);
                continue;
            }
            if (auto e2 = merge_map(*it, e, items, a, depth + 1)) return e2;
            ++it;
        }
        if (!found && !remove) {
            target.PushBack(fresh(e, items, a, depth + 1, error), a);
            if (error) return error;
        }
    }
    return std::nullopt;
}

void set_order(json& list, const json& order, const std::string& merge_key, json_alloc& a) {
    if (!list.IsArray() || !order.IsArray()) return;
    auto matches = [&](const json& element, const json& entry) {
        if (merge_key.empty() || !entry.IsObject()) return equal(element, entry);
        const json* k = member_of(&entry, merge_key);
        return k && same_key(element, merge_key, *k);
    };
    json ordered(rapidjson::kArrayType);
    std::vector<bool> taken(list.Size(), false);
    for (const auto& entry : order.GetArray())
        for (rapidjson::SizeType i = 0; i < list.Size(); ++i)
            if (!taken[i] && matches(list[i], entry)) {
                taken[i] = true;
                ordered.PushBack(json(list[i], a), a);
            }
    for (rapidjson::SizeType i = 0; i < list.Size(); ++i)
        if (!taken[i]) ordered.PushBack(json(list[i], a), a);
    list = std::move(ordered);
}

std::optional<std::string> merge_map(json& target, const json& patch, const json* schema,
                                     json_alloc& a, int depth) {
    if (depth > max_depth) return std::string("the patch is nested too deeply");
    if (!patch.IsObject()) return std::string("a strategic merge patch must be a JSON object");
    if (!target.IsObject()) target.SetObject();
    if (const json* p = member_of(&patch, "$patch"); p) {
        const std::string_view kind = p->IsString() ? p->GetString() : "";
        if (kind == "replace") {
            json replaced(rapidjson::kObjectType);
            for (const auto& m : patch.GetObject())
                if (!is_directive(name_of(m.name)))
                    replaced.AddMember(json(m.name, a), json(m.value, a), a);
            target = std::move(replaced);
            return std::nullopt;
        }
        if (kind != "merge" && kind != "delete")
            return "unknown patch type: " + std::string(kind) + " in map: " + to_string(patch);
    }
    if (const json* keep = member_of(&patch, "$retainKeys"); keep) {
        if (!keep->IsArray()) return std::string("$retainKeys must be a list of field names");
        for (auto it = target.MemberBegin(); it != target.MemberEnd();) {
            bool kept = false;
            for (const auto& k : keep->GetArray())
                kept = kept || (k.IsString() && name_of(it->name) == k.GetString());
            it = kept ? it + 1 : target.EraseMember(it);
        }
    }
    for (const auto& m : patch.GetObject()) {
        const std::string_view key = name_of(m.name);
        if (key.substr(0, delete_primitive_prefix.size()) == delete_primitive_prefix) {
            const auto field = key.substr(delete_primitive_prefix.size());
            const auto list =
                target.FindMember(json(rapidjson::StringRef(field.data(), field.size())));
            if (list == target.MemberEnd() || !list->value.IsArray() || !m.value.IsArray())
                continue;
            for (const auto& gone : m.value.GetArray())
                for (auto it = list->value.Begin(); it != list->value.End();)
                    it = equal(*it, gone) ? list->value.Erase(it) : it + 1;
            continue;
        }
        if (is_directive(key)) continue;
        const json* field = field_schema(schema, key);
        const auto existing = target.FindMember(m.name);
        if (m.value.IsNull()) {
            if (existing != target.MemberEnd()) target.EraseMember(existing);
            continue;
        }
        if (m.value.IsObject()) {
            if (const json* p = member_of(&m.value, "$patch");
                p && p->IsString() && std::string_view(p->GetString()) == "delete") {
                if (existing != target.MemberEnd()) target.EraseMember(existing);
                continue;
            }
            if (existing != target.MemberEnd() && existing->value.IsObject() &&
                !meta_of(field).replace) {
                if (auto e = merge_map(existing->value, m.value, resolve_builtin_ref(field), a,
                                       depth + 1))
                    return e;
                continue;
            }
        }
        const patch_meta meta = meta_of(field);
        const json* items = member_of(resolve_builtin_ref(field), "items");
        std::optional<std::string> error;
        if (m.value.IsArray() && meta.merge && existing != target.MemberEnd() &&
            existing->value.IsArray()) {
            if (auto e = merge_list(existing->value, m.value, meta, items, a, depth + 1)) return e;
            continue;
        }
        json value;
        if (m.value.IsArray() && meta.merge) { // merged into an empty list
            value.SetArray();
            if (auto e = merge_list(value, m.value, meta, items, a, depth + 1)) return e;
        } else if (m.value.IsArray()) { // replaced whole
            value.SetArray();
            for (const auto& e : m.value.GetArray()) {
                value.PushBack(fresh(e, items, a, depth + 1, error), a);
                if (error) return error;
            }
        } else {
            value = fresh(m.value, resolve_builtin_ref(field), a, depth + 1, error);
            if (error) return error;
        }
        if (existing != target.MemberEnd())
            existing->value = std::move(value);
        else
            target.AddMember(json(m.name, a), std::move(value), a);
    }
    for (const auto& m : patch.GetObject()) {
        const std::string_view key = name_of(m.name);
        if (key.substr(0, set_order_prefix.size()) != set_order_prefix) continue;
        const auto field = key.substr(set_order_prefix.size());
        const auto list = target.FindMember(json(rapidjson::StringRef(field.data(), field.size())));
        if (list != target.MemberEnd())
            set_order(list->value, m.value, meta_of(field_schema(schema, field)).merge_key, a);
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> strategic_merge_patch(json& target, const json& patch,
                                                 const json* schema, json_alloc& a) {
    return merge_map(target, patch, schema, a, 0);
}

} // namespace hpaplus::sim
