// kube/object_cache.hpp — the read side of a cache of one resource: the objects by key, immutable
// snapshots of them, label selection, and change handlers. An informer fills one from LIST +
// WATCH (informer.hpp); a mirror keeps a copy of an informer's for readers on another thread.
// Either is read, and tells its handlers, on one thread only: its own executor's.
#pragma once

#include "core/label_selector.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::kube {

/// Tells record types apart without RTTI: one address per type.
template <class T> inline constexpr char record_tag = 0;

/// An object as the informer's decoder made it (the typed record of its kind), type-erased so the
/// transport knows no kind: readers ask for the type they expect with cached_object::as<T>().
struct decoded_record {
    std::shared_ptr<const void> value;
    const void* tag = nullptr; ///< &record_tag<T> of value's type
};
template <class T> decoded_record make_record(T value) {
    return {std::make_shared<const T>(std::move(value)), &record_tag<T>};
}

/// One cached object: its metadata and either its typed record (an informer with a decoder: the
/// object is decoded once, at the door, and every reader shares the record) or its JSON text as
/// the server sent it (an informer without one). Immutable once cached, so threads share it freely.
struct cached_object {
    /// Keyed as `namespace/name` ("/name" when cluster-scoped); the namespace and the name are
    /// views into the key (a cache holds one per pod: each string counts).
    cached_object(std::string_view ns, std::string_view name);

    const std::string key;
    std::string_view namespace_() const { return std::string_view(key).substr(0, name_at_ - 1); }
    std::string_view name() const { return std::string_view(key).substr(name_at_); }
    core::label_map labels; ///< metadata.labels (equal sets share one buffer)
    std::string resource_version;
    std::int64_t generation = 0; ///< metadata.generation (0 when the kind has none)
    /// With a decoder, its typed record (null value when it could not decode); without one, the
    /// object's JSON text as a std::string record (json_text()).
    decoded_record record;

    /// The typed record, when it is a T (else null).
    template <class T> const T* as() const {
        return record.tag == &record_tag<T> ? static_cast<const T*>(record.value.get()) : nullptr;
    }
    /// The JSON text an informer without a decoder keeps (else null).
    const std::string* json_text() const { return as<std::string>(); }
    /// The same, sharing ownership (it outlives the cached object).
    template <class T> std::shared_ptr<const T> share() const {
        const T* t = as<T>();
        return t ? std::shared_ptr<const T>(record.value, t) : nullptr;
    }

  private:
    std::size_t name_at_ = 1; ///< where the name starts in `key`
};
using object_cptr = std::shared_ptr<const cached_object>;
/// By key; each key is a view into its object's own `key`.
using snapshot = std::map<std::string_view, object_cptr, std::less<>>;
using snapshot_cptr = std::shared_ptr<const snapshot>;

/// Puts `object` in `objects` under its key and returns the object it replaces (or null). Use it
/// for every store: a new version must bring its own key into the entry.
object_cptr store(snapshot& objects, object_cptr object);

/// What happened to a cached object (a watch event's type; bookmarks change nothing).
enum class change { added, modified, deleted };
/// ADDED, MODIFIED or DELETED, as the watch says it.
std::string_view to_string(change what);

class object_cache {
  public:
    object_cache() = default;
    virtual ~object_cache() = default;
    object_cache(const object_cache&) = delete;
    object_cache& operator=(const object_cache&) = delete;

    /// Told of every change with the new (or last) object and the previous one (may be null).
    using handler =
        std::function<void(change what, const object_cptr& object, const object_cptr& previous)>;
    void on_change(handler h) { handlers_.push_back(std::move(h)); }

    /// The current objects (an immutable snapshot; rebuilt only after a change).
    snapshot_cptr items() const;
    /// The cached objects of a namespace ("" = all) that match `selector`, in key order.
    std::vector<object_cptr> select(std::string_view ns,
                                    const core::label_selector& selector) const;
    /// One object, or nullptr.
    object_cptr find(std::string_view ns, std::string_view name) const;
    std::size_t size() const { return objects_.size(); }

    /// The keys an object is indexed under (client-go's IndexFunc): none, one or several.
    using index_keys = std::function<std::vector<std::string>(const cached_object&)>;
    /// Keeps the index `name` from now on (built from the objects cached now): by_index answers
    /// from it without a scan.
    void add_index(std::string name, index_keys keys);
    /// The objects indexed under `key` in the index `name`, in object-key order (none when the
    /// index does not exist).
    std::vector<object_cptr> by_index(std::string_view name, std::string_view key) const;

  protected:
    /// Stores `object` (added or modified) and tells the handlers.
    void put(const object_cptr& object);
    /// Removes the object of `object->key`, if cached, and tells the handlers.
    void remove(const object_cptr& object);
    /// The objects, for a subclass that changes several at once (it calls notify itself).
    snapshot& objects() { return objects_; }
    void notify(change what, const object_cptr& object, const object_cptr& previous);

  private:
    struct index {
        index_keys keys;
        /// index key → the objects under it, by object key
        std::map<std::string, snapshot, std::less<>> entries;
        void add(const object_cptr& object);
        void drop(const cached_object& object);
    };
    std::vector<handler> handlers_;
    snapshot objects_;
    mutable snapshot_cptr snapshot_;
    std::map<std::string, index, std::less<>> indexes_;
};

/// A copy of another cache for readers on another thread: every change of the source is posted
/// to `executor` and applied there in order, so the mirror is read there without a lock while the
/// objects themselves (immutable) are shared, not copied. Costs one map entry per object.
/// Construct it on the source's thread; destroy it only once the source tells no more changes
/// (the source keeps a handler that refers to it) and `executor` runs no more of its work.
class mirror final : public object_cache {
  public:
    mirror(object_cache& source, boost::asio::any_io_executor executor);

  private:
    void apply(change what, const object_cptr& object);
};

} // namespace hpaplus::kube
