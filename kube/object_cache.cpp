// kube/object_cache.cpp — cached objects by key, snapshots, selection, mirrors.
#include "kube/object_cache.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <array>

namespace hpaplus::kube {

std::string_view to_string(change what) {
    switch (what) {
    case change::added:
        return "ADDED";
    case change::modified:
        return "MODIFIED";
    case change::deleted:
        return "DELETED";
    }
    return "";
}

namespace {

std::string key_of(std::string_view ns, std::string_view name) {
    std::string key;
    key.reserve(ns.size() + 1 + name.size());
    key.append(ns).append("/").append(name);
    return key;
}

} // namespace

cached_object::cached_object(std::string_view ns, std::string_view name)
    : key(key_of(ns, name)), name_at_(ns.size() + 1) {}

snapshot_cptr object_cache::items() const {
    if (!snapshot_) snapshot_ = std::make_shared<const snapshot>(objects_);
    return snapshot_;
}

std::vector<object_cptr> object_cache::select(std::string_view ns,
                                              const core::label_selector& selector) const {
    std::vector<object_cptr> out;
    // Keys are "namespace/name", so one namespace is one contiguous range.
    const std::string prefix = ns.empty() ? std::string() : std::string(ns) + "/";
    for (auto it = objects_.lower_bound(prefix); it != objects_.end(); ++it) {
        if (!prefix.empty() && it->first.compare(0, prefix.size(), prefix) != 0) break;
        if (selector.matches(it->second->labels)) out.push_back(it->second);
    }
    return out;
}

object_cptr object_cache::find(std::string_view ns, std::string_view name) const {
    // A Kubernetes key fits (a namespace has at most 63 characters, a name 253): the lookup, once
    // per reconcile and more, builds no string.
    std::array<char, 320> buffer;
    std::string longer;
    std::string_view key;
    if (ns.size() + 1 + name.size() <= buffer.size()) {
        auto end = std::copy(ns.begin(), ns.end(), buffer.begin());
        *end++ = '/';
        end = std::copy(name.begin(), name.end(), end);
        key = std::string_view(buffer.data(), static_cast<std::size_t>(end - buffer.begin()));
    } else {
        longer = key_of(ns, name);
        key = longer;
    }
    const auto it = objects_.find(key);
    return it == objects_.end() ? nullptr : it->second;
}

object_cptr store(snapshot& objects, object_cptr object) {
    object_cptr previous;
    if (auto node = objects.extract(std::string_view(object->key)))
        previous = std::move(node.mapped());
    const std::string_view key = object->key;
    objects.emplace(key, std::move(object));
    return previous;
}

void object_cache::put(const object_cptr& object) {
    const object_cptr previous = store(objects_, object);
    notify(previous ? change::modified : change::added, object, previous);
}

void object_cache::remove(const object_cptr& object) {
    const auto it = objects_.find(object->key);
    if (it == objects_.end()) return;
    object_cptr previous = std::move(it->second);
    objects_.erase(it);
    notify(change::deleted, object, previous);
}

void object_cache::notify(change what, const object_cptr& object, const object_cptr& previous) {
    snapshot_.reset();
    for (auto& [name, i] : indexes_) {
        if (previous) i.drop(*previous);
        if (what != change::deleted) i.add(object);
    }
    for (auto& h : handlers_)
        h(what, object, previous);
}

void object_cache::index::add(const object_cptr& object) {
    for (auto& k : keys(*object)) {
        auto it = entries.find(k);
        if (it == entries.end()) it = entries.emplace(std::move(k), snapshot{}).first;
        store(it->second, object);
    }
}

void object_cache::index::drop(const cached_object& object) {
    // Cached objects are immutable: the keys they were added under are the keys they give now.
    for (const auto& k : keys(object)) {
        const auto it = entries.find(k);
        if (it == entries.end()) continue;
        if (const auto o = it->second.find(std::string_view(object.key)); o != it->second.end())
            it->second.erase(o);
        if (it->second.empty()) entries.erase(it);
    }
}

void object_cache::add_index(std::string name, index_keys keys) {
    index& i = indexes_[std::move(name)];
    i.keys = std::move(keys);
    i.entries.clear();
    for (const auto& [key, object] : objects_)
        i.add(object);
}

std::vector<object_cptr> object_cache::by_index(std::string_view name, std::string_view key) const {
    std::vector<object_cptr> out;
    const auto i = indexes_.find(name);
    if (i == indexes_.end()) return out;
    const auto e = i->second.entries.find(key);
    if (e == i->second.entries.end()) return out;
    out.reserve(e->second.size());
    for (const auto& [k, object] : e->second)
        out.push_back(object);
    return out;
}

mirror::mirror(object_cache& source, boost::asio::any_io_executor executor) {
    // The source's objects now, then every later change, in order: both happen on the source's
    // thread, and the executor runs posted work in the order it was posted (one thread runs it).
    objects() = *source.items();
    source.on_change([this, ex = std::move(executor)](change what, const object_cptr& object,
                                                      const object_cptr&) {
        boost::asio::post(ex, [this, what, object] { apply(what, object); });
    });
}

void mirror::apply(change what, const object_cptr& object) {
    if (what == change::deleted) {
        remove(object);
    } else {
        put(object);
    }
}

} // namespace hpaplus::kube
