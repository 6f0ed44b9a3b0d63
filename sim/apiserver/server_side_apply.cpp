// sim/apiserver/server_side_apply.cpp — server-side apply after structured-merge-diff.
#include "sim/apiserver/server_side_apply.hpp"

#include "sim/apiserver/openapi.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace hpaplus::sim {
namespace {

constexpr int max_depth = 200; // deeper configurations are refused rather than recursed into

std::string_view text(const json& v) {
    return {v.GetString(), v.GetStringLength()};
}

json* member(json* object, std::string_view key) {
    if (!object || !object->IsObject()) return nullptr;
    const auto it = object->FindMember(json(rapidjson::StringRef(key.data(), key.size())));
    return it == object->MemberEnd() ? nullptr : &it->value;
}
const json* member(const json* object, std::string_view key) {
    return member(const_cast<json*>(object), key);
}

const json* property_schema(const json* schema, std::string_view key) {
    return member(member(resolve_builtin_ref(schema), "properties"), key);
}

/// The keys that identify a list's items (x-kubernetes-list-map-keys, else the patch merge key);
/// empty for an atomic list.
std::vector<std::string> list_keys(const json* field) {
    std::vector<std::string> keys;
    if (const json* k = member(field, "x-kubernetes-list-map-keys"); k && k->IsArray()) {
        for (const auto& key : k->GetArray())
            if (key.IsString()) keys.emplace_back(text(key));
    } else if (const json* m = member(field, "x-kubernetes-patch-merge-key"); m && m->IsString()) {
        keys.emplace_back(text(*m));
    }
    std::sort(keys.begin(), keys.end());
    return keys;
}

/// An item's key fields, as the `k:` segment's JSON (names sorted); nullopt when one is missing.
std::optional<std::string> item_key(const json& item, const std::vector<std::string>& keys) {
    if (!item.IsObject()) return std::nullopt;
    json_doc key(rapidjson::kObjectType);
    for (const auto& name : keys) {
        const json* v = member(&item, name);
        if (!v) return std::nullopt;
        key.AddMember(json(name.c_str(), key.GetAllocator()), json(*v, key.GetAllocator()),
                      key.GetAllocator());
    }
    return to_string(key);
}

/// `[name="app"]`, `[containerPort=80,protocol="TCP"]`: how a conflict names a keyed item.
std::string item_display(const json& item, const std::vector<std::string>& keys) {
    std::string out = "[";
    for (std::size_t i = 0; i < keys.size(); ++i)
        out += (i ? "," : "") + keys[i] + "=" + to_string(*member(&item, keys[i]));
    return out + "]";
}

// RapidJSON finds members and items by a linear search: an apply of 100,000 labels would be
// quadratic. Objects and keyed lists are looked up through these indexes instead, built once per
// visit (by position, so that members or items appended later do not invalidate them).

/// The members of one object by name.
class member_index {
  public:
    explicit member_index(json* object) : object_(object && object->IsObject() ? object : nullptr) {
        if (!object_) return;
        at_.reserve(object_->MemberCount());
        for (rapidjson::SizeType i = 0; i < object_->MemberCount(); ++i)
            at_.emplace(std::string(text((object_->MemberBegin() + i)->name)), i);
    }
    json* find(std::string_view name) const {
        const auto it = at_.find(std::string(name));
        return it == at_.end() ? nullptr : &(object_->MemberBegin() + it->second)->value;
    }

  private:
    json* object_;
    std::unordered_map<std::string, rapidjson::SizeType> at_;
};

/// The items of one keyed list by their `k:` key.
class item_index {
  public:
    item_index(json* list, const std::vector<std::string>& keys)
        : list_(list && list->IsArray() ? list : nullptr) {
        if (!list_) return;
        for (rapidjson::SizeType i = 0; i < list_->Size(); ++i)
            if (auto key = item_key((*list_)[i], keys)) at_.emplace(std::move(*key), i);
    }
    json* find(const std::string& key) const {
        const auto it = at_.find(key);
        return it == at_.end() ? nullptr : &(*list_)[it->second];
    }
    void appended(std::string key) { at_.emplace(std::move(key), list_->Size() - 1); }

  private:
    json* list_;
    std::unordered_map<std::string, rapidjson::SizeType> at_;
};

/// What the walk of an applied configuration tells about one leaf it sets.
struct leaf {
    const std::vector<std::string>& segments; ///< the fieldsV1 path: `f:spec`, `k:{"name":"a"}`
    const std::string& display;               ///< `.spec.containers[name="a"].image`
    const json& applied;
    const json* live; ///< nullptr: the live object does not have it
};

/// Walks an applied configuration with the live object beside it: fills `fields` (the fieldsV1
/// of what it sets) and calls `on_leaf` for each leaf. False when it is nested too deep.
class applied_walk {
  public:
    applied_walk(json_alloc& a, std::function<void(const leaf&)> on_leaf)
        : a_(a), on_leaf_(std::move(on_leaf)) {}

    bool object(const json& applied, const json* live, const json* schema, json& fields, bool top) {
        if (segments_.size() > max_depth) return false;
        const member_index live_members(const_cast<json*>(live));
        for (const auto& m : applied.GetObject()) {
            const std::string_view name = text(m.name);
            if (top && (name == "apiVersion" || name == "kind" || name == "status")) continue;
            const json* field = property_schema(schema, name);
            if (top && name == "metadata") {
                if (!m.value.IsObject()) continue;
                json metadata(rapidjson::kObjectType);
                enter("f:metadata", ".metadata");
                for (const char* owned : {"labels", "annotations"})
                    if (const json* v = member(&m.value, owned); v && v->IsObject()) {
                        enter("f:" + std::string(owned), "." + std::string(owned));
                        json node(rapidjson::kObjectType);
                        const json* live_map = member(live_members.find("metadata"), owned);
                        if (!object(*v, live_map, nullptr, node, false)) return false;
                        metadata.AddMember(json(segments_.back().c_str(), a_), node, a_);
                        leave();
                    }
                leave();
                if (metadata.MemberCount() > 0) fields.AddMember("f:metadata", metadata, a_);
                continue;
            }
            enter("f:" + std::string(name), "." + std::string(name));
            json node(rapidjson::kObjectType);
            if (!value(m.value, live_members.find(name), field, node)) return false;
            fields.AddMember(json(segments_.back().c_str(), a_), node, a_);
            leave();
        }
        return true;
    }

  private:
    bool value(const json& applied, const json* live, const json* field, json& node) {
        if (applied.IsObject() && !applied.ObjectEmpty()) {
            // An applied configuration owns its leaves, not the maps and structs that hold them
            // (no "."; a keyed list item, below, is owned itself).
            return object(applied, live, resolve_builtin_ref(field), node, false);
        }
        const auto keys = applied.IsArray() ? list_keys(field) : std::vector<std::string>{};
        bool keyed = !keys.empty() && !applied.Empty();
        if (keyed)
            for (const auto& item : applied.GetArray())
                keyed = keyed && item_key(item, keys);
        if (!keyed) {
            on_leaf_({segments_, display_, applied, live});
            return true;
        }
        const json* items = member(resolve_builtin_ref(field), "items");
        const item_index live_items(const_cast<json*>(live), keys);
        std::unordered_set<std::string> seen;
        for (const auto& item : applied.GetArray()) {
            const std::string key = "k:" + *item_key(item, keys);
            if (!seen.insert(key).second) continue; // a duplicate key: the first one counts
            enter(key, item_display(item, keys));
            json item_node(rapidjson::kObjectType);
            item_node.AddMember(".", json(rapidjson::kObjectType), a_);
            const json* live_item = live_items.find(key.substr(2));
            if (!object(item, live_item, resolve_builtin_ref(items), item_node, false))
                return false;
            node.AddMember(json(key.c_str(), a_), item_node, a_);
            leave();
        }
        return true;
    }

    void enter(std::string segment, const std::string& shown) {
        segments_.push_back(std::move(segment));
        lengths_.push_back(display_.size());
        display_ += shown;
    }
    void leave() {
        segments_.pop_back();
        display_.resize(lengths_.back());
        lengths_.pop_back();
    }

    json_alloc& a_;
    std::function<void(const leaf&)> on_leaf_;
    std::vector<std::string> segments_;
    std::vector<std::size_t> lengths_;
    std::string display_;
};

/// A leaf of a field set: `{}`, which owns everything under it (an Update's record stops two
/// levels deep). A set that holds only "." owns the map or item itself, not what is in it.
bool is_leaf(const json& node) {
    return !node.IsObject() || node.ObjectEmpty();
}

/// One manager's fieldsV1 as sets of paths (each segment followed by a NUL, one string per
/// path): every node, and the leaves among them.
class owned_paths {
  public:
    explicit owned_paths(const json* fields) {
        if (fields) collect(*fields, "", 0);
    }
    /// The node that makes this manager own the path — the path itself, or a coarse leaf above
    /// it that an Update recorded — as such a path; nullopt when it owns neither it nor
    /// anything under it. (Owning something under the path counts as owning the path.)
    std::optional<std::string> owner_of(const std::vector<std::string>& segments) const {
        std::string prefix;
        for (std::size_t i = 0; i < segments.size(); ++i) {
            (prefix += segments[i]) += '\0';
            if (!nodes_.count(prefix)) return std::nullopt;
            if (i + 1 < segments.size() && leaves_.count(prefix)) return prefix;
        }
        return prefix;
    }

  private:
    void collect(const json& node, const std::string& path, int depth) {
        if (!node.IsObject() || depth > max_depth) return;
        for (const auto& m : node.GetObject()) {
            if (text(m.name) == ".") continue;
            std::string child = path + std::string(text(m.name)) + '\0';
            if (is_leaf(m.value)) leaves_.insert(child);
            collect(m.value, child, depth + 1);
            nodes_.insert(std::move(child));
        }
    }
    std::unordered_set<std::string> nodes_;
    std::unordered_set<std::string> leaves_;
};

/// Takes the `taken` nodes (paths as owned_paths writes them) out of `fields`, dropping what that
/// leaves empty. True when `fields` itself is left empty.
bool disown(json& fields, const std::unordered_set<std::string>& taken, const std::string& path,
            json_alloc& a, int depth = 0) {
    if (!fields.IsObject() || depth > max_depth) return false;
    json kept(rapidjson::kObjectType);
    for (auto& m : fields.GetObject()) {
        const std::string child = path + std::string(text(m.name)) + '\0';
        if (text(m.name) != "." &&
            (taken.count(child) ||
             (!is_leaf(m.value) && disown(m.value, taken, child, a, depth + 1))))
            continue;
        kept.AddMember(std::move(m.name), std::move(m.value), a);
    }
    fields = std::move(kept);
    return fields.ObjectEmpty();
}

/// Orders every set's members as the real server serializes them ("." first, then by name).
void sort_fields(json& node, json_alloc& a) {
    if (!node.IsObject()) return;
    std::vector<std::pair<std::string, json>> members;
    for (auto& m : node.GetObject()) {
        sort_fields(m.value, a);
        members.emplace_back(std::string(text(m.name)), std::move(m.value));
    }
    std::sort(members.begin(), members.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    node.SetObject();
    for (auto& [name, value] : members)
        node.AddMember(json(name.c_str(), a), std::move(value), a);
}

std::string_view entry_text(const json& entry, const char* key) {
    const json* v = member(&entry, key);
    return v && v->IsString() ? text(*v) : std::string_view();
}

/// Merges the applied configuration into the live object: maps by key, keyed lists item by item,
/// the rest replaced.
void merge(json& target, const json& applied, const json* schema, json_alloc& a, bool top) {
    const member_index existing_members(&target);
    for (const auto& m : applied.GetObject()) {
        const std::string_view name = text(m.name);
        if (top && (name == "status" || name == "apiVersion" || name == "kind")) continue;
        json* existing = existing_members.find(name);
        if (top && name == "metadata") {
            if (!m.value.IsObject()) continue;
            if (!existing || !existing->IsObject()) {
                target.RemoveMember("metadata");
                target.AddMember("metadata", json(rapidjson::kObjectType), a);
                existing = member(&target, "metadata");
            }
            for (const char* owned : {"labels", "annotations"})
                if (const json* v = member(&m.value, owned); v && v->IsObject()) {
                    json* map = member(existing, owned);
                    if (!map || !map->IsObject()) {
                        existing->RemoveMember(owned);
                        existing->AddMember(json(owned, a), json(rapidjson::kObjectType), a);
                        map = member(existing, owned);
                    }
                    merge(*map, *v, nullptr, a, false);
                }
            continue;
        }
        const json* field = property_schema(schema, name);
        if (existing && existing->IsObject() && m.value.IsObject()) {
            merge(*existing, m.value, resolve_builtin_ref(field), a, false);
            continue;
        }
        const auto keys = m.value.IsArray() ? list_keys(field) : std::vector<std::string>{};
        if (existing && existing->IsArray() && !keys.empty()) {
            const json* items = resolve_builtin_ref(member(resolve_builtin_ref(field), "items"));
            item_index existing_items(existing, keys);
            for (const auto& item : m.value.GetArray()) {
                const auto key = item_key(item, keys);
                json* match = key ? existing_items.find(*key) : nullptr;
                if (match && match->IsObject()) {
                    merge(*match, item, items, a, false);
                } else {
                    existing->PushBack(json(item, a), a);
                    if (key) existing_items.appended(*key);
                }
            }
            continue;
        }
        if (existing)
            existing->CopyFrom(m.value, a);
        else
            target.AddMember(json(m.name, a), json(m.value, a), a);
    }
}

/// Removes from `object` what the manager applied before (`before`) and applies no more (`now`),
/// unless `others_own` says another manager still owns it.
void remove_dropped(json& object, const json& before, const json* now,
                    std::vector<std::string>& segments,
                    const std::function<bool(const std::vector<std::string>&)>& others_own,
                    json_alloc& a) {
    if (!before.IsObject() || segments.size() > max_depth) return;
    // Keyed items are found by the key of the first `k:` segment's fields; the object's members
    // and items are indexed once, and what goes is dropped in one pass at the end.
    std::optional<item_index> items;
    const member_index members(&object);
    const member_index now_members(const_cast<json*>(now));
    std::unordered_set<const json*> dropped;
    for (const auto& m : before.GetObject()) {
        const std::string segment(text(m.name));
        // Only `f:` and `k:` segments name something ("." is the set itself; `v:` sets of
        // scalars are owned whole here).
        if (segment.size() < 2 || (segment.rfind("f:", 0) != 0 && segment.rfind("k:", 0) != 0))
            continue;
        const json* still = now_members.find(segment);
        segments.push_back(segment);
        const bool keyed = segment.rfind("k:", 0) == 0;
        // The object's identity is never the apply's to remove: of metadata, only labels and
        // annotations are.
        const bool top = segments.size() == 1;
        const bool under_metadata = segments.size() == 2 && segments[0] == "f:metadata";
        const bool kept = (top && (segment == "f:metadata" || segment == "f:apiVersion" ||
                                   segment == "f:kind")) ||
                          (under_metadata && segment != "f:labels" && segment != "f:annotations");
        json* target = nullptr;
        if (keyed && object.IsArray()) {
            if (!items) {
                json_doc key;
                key.Parse(segment.c_str() + 2);
                std::vector<std::string> names;
                if (key.IsObject())
                    for (const auto& k : key.GetObject())
                        names.emplace_back(text(k.name));
                std::sort(names.begin(), names.end());
                items.emplace(&object, names);
            }
            target = items->find(segment.substr(2));
        } else if (!keyed && object.IsObject()) {
            target = members.find(std::string_view(segment).substr(2));
        }
        if (target && !still && !kept && !others_own(segments))
            dropped.insert(target);
        else if (target) // kept (by us or another manager): what is under it may still go
            remove_dropped(*target, m.value, still, segments, others_own, a);
        segments.pop_back();
    }
    if (dropped.empty()) return;
    if (object.IsArray()) {
        json kept_items(rapidjson::kArrayType);
        for (auto& item : object.GetArray())
            if (!dropped.count(&item)) kept_items.PushBack(std::move(item), a);
        object = std::move(kept_items);
    } else {
        json kept_members(rapidjson::kObjectType);
        for (auto& m : object.GetObject())
            if (!dropped.count(&m.value))
                kept_members.AddMember(std::move(m.name), std::move(m.value), a);
        object = std::move(kept_members);
    }
}

std::string conflict_message(const std::vector<status_cause>& causes,
                             const std::vector<std::string>& owners) {
    if (causes.size() == 1)
        return "Apply failed with 1 conflict: " + causes[0].message + ": " + causes[0].field;
    std::map<std::string, std::vector<std::string>> by_owner;
    for (std::size_t i = 0; i < causes.size(); ++i)
        by_owner[owners[i]].push_back(causes[i].field);
    std::string out = "Apply failed with " + std::to_string(causes.size()) + " conflicts: ";
    bool first = true;
    for (const auto& [owner, fields] : by_owner) {
        out += (first ? "" : "\n") + std::string("conflicts with ") + owner + ":";
        first = false;
        for (const auto& f : fields)
            out += "\n- " + f;
    }
    return out;
}

/// How a conflict names the other manager, as upstream's printManager does.
std::string owner_text(const json& entry) {
    std::string out = "\"" + std::string(entry_text(entry, "manager")) + "\"";
    if (!entry_text(entry, "subresource").empty())
        out += " with subresource \"" + std::string(entry_text(entry, "subresource")) + "\"";
    if (entry_text(entry, "operation") == "Update") {
        out += " using " + std::string(entry_text(entry, "apiVersion"));
        if (!entry_text(entry, "time").empty())
            out += " at " + std::string(entry_text(entry, "time"));
    }
    return out;
}

} // namespace

std::variant<json_doc, api_error> server_side_apply(const apply_request& request) {
    if (!request.applied.IsObject())
        return bad_request("the applied configuration must be an object");
    if (request.live && !request.live->IsObject())
        return internal_error("the stored object is not an object");
    json_doc out = request.live ? clone(*request.live) : clone(request.applied);
    auto& a = out.GetAllocator();

    // The other managers' entries of the object itself, and this manager's previous Apply entry.
    json entries(rapidjson::kArrayType);
    json previous_fields(rapidjson::kObjectType);
    std::string previous_time;
    std::string previous_version;
    if (const json* managed =
            request.live ? find_path(*request.live, "metadata.managedFields") : nullptr;
        managed && managed->IsArray())
        for (const auto& e : managed->GetArray()) {
            if (!e.IsObject()) continue;
            if (entry_text(e, "manager") == request.manager &&
                entry_text(e, "operation") == "Apply" && entry_text(e, "subresource").empty()) {
                if (const json* f = member(&e, "fieldsV1")) previous_fields.CopyFrom(*f, a);
                previous_time = entry_text(e, "time");
                previous_version = entry_text(e, "apiVersion");
                continue;
            }
            entries.PushBack(json(e, a), a);
        }

    // What the configuration sets, and who else owns what it would change.
    std::vector<status_cause> causes;
    std::vector<std::string> owners;
    // What each other manager of the object itself owns (nullopt: a subresource's manager).
    std::vector<std::optional<owned_paths>> owned;
    for (const auto& e : entries.GetArray())
        owned.push_back(entry_text(e, "subresource").empty()
                            ? std::optional<owned_paths>(member(&e, "fieldsV1"))
                            : std::nullopt);
    std::vector<std::unordered_set<std::string>> taken(entries.Size()); // forced: what moves
    json fields(rapidjson::kObjectType);
    applied_walk walk(a, [&](const leaf& l) {
        if (l.live && equal(*l.live, l.applied)) return; // the same value: owned together
        for (rapidjson::SizeType i = 0; i < entries.Size(); ++i) {
            auto owner = owned[i] ? owned[i]->owner_of(l.segments) : std::nullopt;
            if (!owner) continue;
            causes.push_back(
                {"FieldManagerConflict", "conflict with " + owner_text(entries[i]), l.display});
            owners.push_back(owner_text(entries[i]));
            taken[i].insert(std::move(*owner));
        }
    });
    const json* schema = request.schema;
    if (!walk.object(request.applied, request.live, schema, fields, true))
        return bad_request("the applied configuration is nested too deeply");
    if (!causes.empty() && !request.force)
        return api_error{409,
                         "Conflict",
                         conflict_message(causes, owners),
                         "",
                         "",
                         "",
                         std::move(causes),
                         std::nullopt};
    // Forced: the fields change hands; an entry left owning nothing goes.
    json others(rapidjson::kArrayType);
    std::vector<owned_paths> others_owned;
    for (rapidjson::SizeType i = 0; i < entries.Size(); ++i) {
        json* f = member(&entries[i], "fieldsV1");
        if (f && !taken[i].empty() && disown(*f, taken[i], "", a)) continue;
        if (owned[i])
            others_owned.emplace_back(taken[i].empty() ? std::move(*owned[i]) : owned_paths(f));
        others.PushBack(std::move(entries[i]), a);
    }

    if (request.live) {
        merge(out, request.applied, schema, a, true);
        std::vector<std::string> segments;
        remove_dropped(
            out, previous_fields, &fields, segments,
            [&](const std::vector<std::string>& path) {
                return std::any_of(others_owned.begin(), others_owned.end(),
                                   [&](const owned_paths& o) { return o.owner_of(path); });
            },
            a);
    }

    // The object's metadata is an object whatever the configuration said (a duplicate key or
    // a scalar in its place), so that the managed fields have a home.
    for (json* m = member(&out, "metadata"); m && !m->IsObject(); m = member(&out, "metadata"))
        out.RemoveMember("metadata");
    if (!member(&out, "metadata")) out.AddMember("metadata", json(rapidjson::kObjectType), a);
    sort_fields(fields, a);
    // The Apply entry keeps its time while what it owns stays the same.
    const bool unchanged =
        equal(previous_fields, fields) && previous_version == request.api_version;
    const std::string time = unchanged ? previous_time : core::format_rfc3339(request.now);
    json entry(rapidjson::kObjectType);
    entry.AddMember("manager", json(request.manager.c_str(), a), a);
    entry.AddMember("operation", "Apply", a);
    entry.AddMember("apiVersion", json(request.api_version.c_str(), a), a);
    entry.AddMember("time", json(time.c_str(), a), a);
    entry.AddMember("fieldsType", "FieldsV1", a);
    entry.AddMember("fieldsV1", fields, a);
    others.PushBack(entry, a);
    set_path(out, "metadata.managedFields", std::move(others), a);
    return out;
}

} // namespace hpaplus::sim
