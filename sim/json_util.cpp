// sim/json_util.cpp — JSON paths and patches over RapidJSON.
#include "sim/json_util.hpp"

#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hpaplus::sim {
namespace {

std::vector<std::string_view> split_path(std::string_view path) {
    std::vector<std::string_view> parts;
    if (!path.empty() && path.front() == '.') path.remove_prefix(1);
    while (!path.empty()) {
        const auto dot = path.find('.');
        parts.push_back(path.substr(0, dot));
        if (dot == std::string_view::npos) break;
        path.remove_prefix(dot + 1);
    }
    return parts;
}

json::MemberIterator find_member(json& obj, std::string_view key) {
    return obj.FindMember(json(key.data(), static_cast<rapidjson::SizeType>(key.size())));
}

json::ConstMemberIterator find_member(const json& obj, std::string_view key) {
    return obj.FindMember(json(key.data(), static_cast<rapidjson::SizeType>(key.size())));
}

} // namespace

// Walks the path's parts as split_path splits them, without building the list: the workload
// model reads a few paths of every pod each tick (perf: the tick's samples fell by ~18 %).
std::string ascii_lower(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return s;
}

const json* member_of(const json* object, std::string_view key) {
    if (!object || !object->IsObject()) return nullptr;
    const auto it = object->FindMember(json(rapidjson::StringRef(key.data(), key.size())));
    return it == object->MemberEnd() ? nullptr : &it->value;
}

const json* find_path(const json& root, std::string_view path) {
    if (!path.empty() && path.front() == '.') path.remove_prefix(1);
    const json* cur = &root;
    while (!path.empty()) {
        const auto dot = path.find('.');
        if (!cur->IsObject()) return nullptr;
        const auto it = find_member(*cur, path.substr(0, dot));
        if (it == cur->MemberEnd()) return nullptr;
        cur = &it->value;
        if (dot == std::string_view::npos) break;
        path.remove_prefix(dot + 1);
    }
    return cur;
}

bool set_path(json& root, std::string_view path, json value, json_alloc& a) {
    const auto parts = split_path(path);
    if (parts.empty() || !root.IsObject()) return false;
    json* cur = &root;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (!cur->IsObject()) return false;
        auto it = find_member(*cur, parts[i]);
        if (i + 1 == parts.size()) {
            if (it != cur->MemberEnd()) {
                it->value = std::move(value);
            } else {
                cur->AddMember(
                    json(parts[i].data(), static_cast<rapidjson::SizeType>(parts[i].size()), a),
                    std::move(value), a);
            }
            return true;
        }
        if (it == cur->MemberEnd() || it->value.IsNull()) {
            if (it == cur->MemberEnd()) {
                cur->AddMember(
                    json(parts[i].data(), static_cast<rapidjson::SizeType>(parts[i].size()), a),
                    json(rapidjson::kObjectType), a);
                it = find_member(*cur, parts[i]);
            } else {
                it->value.SetObject();
            }
        }
        cur = &it->value;
    }
    return false;
}

void erase_path(json& root, std::string_view path) {
    const auto parts = split_path(path);
    json* cur = &root;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (!cur->IsObject()) return;
        auto it = find_member(*cur, parts[i]);
        if (it == cur->MemberEnd()) return;
        if (i + 1 == parts.size()) {
            cur->EraseMember(it);
            return;
        }
        cur = &it->value;
    }
}

std::string_view text_at(const json& root, std::string_view path) {
    const json* v = find_path(root, path);
    return v && v->IsString() ? std::string_view(v->GetString(), v->GetStringLength())
                              : std::string_view();
}

std::string string_at(const json& root, std::string_view path) {
    return std::string(text_at(root, path));
}

core::label_map labels_at(const json& root, std::string_view path) {
    const json* object = find_path(root, path);
    return object ? labels_of(*object) : core::label_map();
}

core::label_map labels_of(const json& object) {
    if (!object.IsObject()) return {};
    std::vector<core::label_map::value_type> labels;
    for (const auto& m : object.GetObject())
        if (m.value.IsString())
            labels.emplace_back(std::string_view(m.name.GetString(), m.name.GetStringLength()),
                                std::string_view(m.value.GetString(), m.value.GetStringLength()));
    return core::label_map::from_views(labels);
}

std::vector<std::string> strings_at(const json& root, std::string_view path) {
    std::vector<std::string> out;
    if (const json* v = find_path(root, path); v && v->IsArray())
        for (const auto& item : v->GetArray())
            if (item.IsString()) out.emplace_back(item.GetString(), item.GetStringLength());
    return out;
}

std::int64_t int_at(const json& root, std::string_view path, std::int64_t fallback) {
    const json* v = find_path(root, path);
    return v && v->IsInt64() ? v->GetInt64() : fallback;
}

namespace {

// Few members: RapidJSON's linear FindMember is fastest. Past this, members are looked up in an
// index, so a patch or an object of 100,000 labels costs milliseconds, not minutes.
constexpr rapidjson::SizeType index_from = 32;

std::unordered_map<std::string_view, const json*> index_members(const json& object) {
    std::unordered_map<std::string_view, const json*> index;
    index.reserve(object.MemberCount());
    for (const auto& m : object.GetObject())
        index.emplace(std::string_view(m.name.GetString(), m.name.GetStringLength()), &m.value);
    return index;
}

// merge_patch on a large object: one pass over the patch against an index of the target, removed
// members dropped in one pass at the end.
void merge_patch_indexed(json& target, const json& patch, json_alloc& a) {
    std::unordered_map<std::string, rapidjson::SizeType> at; // names are copied: members move
    at.reserve(target.MemberCount() + patch.MemberCount());
    for (rapidjson::SizeType i = 0; i < target.MemberCount(); ++i) {
        const json& name = (target.MemberBegin() + i)->name;
        at[std::string(name.GetString(), name.GetStringLength())] = i;
    }
    std::vector<bool> removed(target.MemberCount(), false);
    for (const auto& m : patch.GetObject()) {
        const std::string name(m.name.GetString(), m.name.GetStringLength());
        const auto it = at.find(name);
        if (m.value.IsNull()) {
            if (it != at.end()) {
                removed[it->second] = true;
                at.erase(it);
            }
        } else if (it != at.end()) {
            merge_patch((target.MemberBegin() + it->second)->value, m.value, a);
        } else {
            json value;
            merge_patch(value, m.value, a);
            at[name] = target.MemberCount();
            removed.push_back(false);
            target.AddMember(json(m.name, a), std::move(value), a);
        }
    }
    if (std::find(removed.begin(), removed.end(), true) == removed.end()) return;
    json kept(rapidjson::kObjectType);
    for (rapidjson::SizeType i = 0; i < target.MemberCount(); ++i) {
        auto member = target.MemberBegin() + i;
        if (!removed[i]) kept.AddMember(std::move(member->name), std::move(member->value), a);
    }
    target = std::move(kept);
}

} // namespace

void merge_patch(json& target, const json& patch, json_alloc& a) {
    if (!patch.IsObject()) {
        target.CopyFrom(patch, a);
        return;
    }
    if (!target.IsObject()) target.SetObject();
    if (target.MemberCount() + patch.MemberCount() > index_from)
        return merge_patch_indexed(target, patch, a);
    for (const auto& m : patch.GetObject()) {
        auto it = target.FindMember(m.name);
        if (m.value.IsNull()) {
            if (it != target.MemberEnd()) target.EraseMember(it);
        } else if (it != target.MemberEnd()) {
            merge_patch(it->value, m.value, a);
        } else {
            json value;
            merge_patch(value, m.value, a);
            target.AddMember(json(m.name, a), std::move(value), a);
        }
    }
}

std::optional<std::string> json_patch(json_doc& target, const json& operations) {
    if (!operations.IsArray()) return std::string("a JSON patch must be an array of operations");
    json_doc work = clone(target);
    auto& a = work.GetAllocator();
    for (const auto& op : operations.GetArray()) {
        if (!op.IsObject()) return std::string("a JSON patch operation must be an object");
        const std::string kind = string_at(op, "op");
        const std::string path = string_at(op, "path");
        const rapidjson::Pointer pointer(path.c_str());
        if (!pointer.IsValid()) return "invalid JSON pointer \"" + path + "\"";
        const json* value = find_path(op, "value");
        if (kind == "add" || kind == "replace") {
            if (!value) return "operation " + kind + " needs a value";
            if (kind == "replace" && !pointer.Get(work))
                return "replace operation does not apply: doc is missing path: " + path;
            // "-" appends to an array, as RFC 6902 says.
            if (kind == "add" && path.size() >= 2 && path.substr(path.size() - 2) == "/-") {
                const rapidjson::Pointer parent(path.substr(0, path.size() - 2).c_str());
                json* arr = parent.Get(work);
                if (!arr || !arr->IsArray())
                    return "add operation does not apply: no array at " + path;
                arr->PushBack(json(*value, a), a);
                continue;
            }
            if (kind == "add" && !pointer.Get(work)) {
                // the parent must exist
                const auto slash = path.rfind('/');
                const rapidjson::Pointer parent(path.substr(0, slash).c_str());
                if (slash != 0 && !parent.Get(work))
                    return "add operation does not apply: doc is missing path: " + path;
            }
            pointer.Set(work, json(*value, a), a);
        } else if (kind == "remove") {
            if (!pointer.Erase(work))
                return "remove operation does not apply: doc is missing path: " + path;
        } else if (kind == "test") {
            const json* have = pointer.Get(work);
            if (!value || !have || !equal(*have, *value))
                return "testing value " + path + " failed";
        } else if (kind == "move" || kind == "copy") {
            const rapidjson::Pointer from(string_at(op, "from").c_str());
            const json* source = from.IsValid() ? from.Get(work) : nullptr;
            if (!source) return kind + " operation does not apply: doc is missing from path";
            json copy(*source, a);
            if (kind == "move") from.Erase(work);
            pointer.Set(work, std::move(copy), a);
        } else {
            return "unknown JSON patch operation \"" + kind + "\"";
        }
    }
    target.Swap(work);
    return std::nullopt;
}

std::string to_string(const json& v) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    v.Accept(writer);
    return std::string(buffer.GetString(), buffer.GetSize());
}

json_doc clone(const json& v) {
    json_doc doc;
    doc.CopyFrom(v, doc.GetAllocator());
    return doc;
}

bool equal(const json& a, const json& b) {
    if (a.IsObject() && b.IsObject()) {
        if (a.MemberCount() != b.MemberCount()) return false;
        if (a.MemberCount() > index_from) {
            const auto index = index_members(b);
            for (const auto& m : a.GetObject()) {
                const auto it =
                    index.find(std::string_view(m.name.GetString(), m.name.GetStringLength()));
                if (it == index.end() || !equal(m.value, *it->second)) return false;
            }
            return true;
        }
        for (const auto& m : a.GetObject()) {
            const auto it = b.FindMember(m.name);
            if (it == b.MemberEnd() || !equal(m.value, it->value)) return false;
        }
        return true;
    }
    if (a.IsArray() && b.IsArray()) {
        if (a.Size() != b.Size()) return false;
        for (rapidjson::SizeType i = 0; i < a.Size(); ++i)
            if (!equal(a[i], b[i])) return false;
        return true;
    }
    if (a.IsNumber() && b.IsNumber()) return a.GetDouble() == b.GetDouble();
    return a == b;
}

core::outcome<core::label_selector> label_selector_of(const json* selector) {
    core::label_selector_spec spec;
    if (!selector || selector->IsNull()) return core::to_label_selector(spec);
    if (!selector->IsObject()) return core::error_message("a label selector must be an object");
    if (const json* ml = find_path(*selector, "matchLabels"); ml && !ml->IsNull()) {
        if (!ml->IsObject()) return core::error_message("matchLabels must be an object");
        for (const auto& m : ml->GetObject())
            if (!m.value.IsString())
                return core::error_message("matchLabels." + std::string(m.name.GetString()) +
                                           " must be a string");
        spec.match_labels = labels_of(*ml);
    }
    if (const json* me = find_path(*selector, "matchExpressions"); me && !me->IsNull()) {
        if (!me->IsArray()) return core::error_message("matchExpressions must be a list");
        for (const auto& e : me->GetArray()) {
            core::label_selector_spec::expression x{
                string_at(e, "key"), string_at(e, "operator"), {}};
            if (const json* v = find_path(e, "values"); v && v->IsArray())
                for (const auto& value : v->GetArray())
                    if (value.IsString()) x.values.emplace_back(value.GetString());
            spec.match_expressions.push_back(std::move(x));
        }
    }
    return core::to_label_selector(spec);
}

} // namespace hpaplus::sim
