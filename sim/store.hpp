// sim/store.hpp — the simulated cluster's storage: one collection per resource type, objects as
// immutable JSON snapshots, a global resourceVersion, optimistic concurrency, generation on spec
// changes, status-subresource rules, and a bounded event log that watches replay from.
#pragma once

#include "core/label_selector.hpp"
#include "core/outcome.hpp"
#include "core/time.hpp"
#include "sim/api_error.hpp"
#include "sim/json_util.hpp"
#include "sim/managed_fields.hpp"
#include "sim/resource_type.hpp"

#include <boost/container/small_vector.hpp>
#include <boost/system/result.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::sim {

/// Text derived from one stored version by a read-only view, kept with the version: fixed pieces
/// back to back, `cuts` marking where the view's changing values go between them.
struct derived_text {
    std::string text;
    boost::container::small_vector<std::uint32_t, 6> cuts;
};

/// What the workload model reads of a pod version for each of its PodMetrics: whether it runs and
/// its own usage annotations.
struct pod_usage_facts {
    bool running = false;
    std::int64_t memory_bytes = 0;         ///< its own, or the default
    std::optional<std::int64_t> cpu_milli; ///< its own, when it has one
};

/// One stored version of an object; never changed once stored.
struct stored_object {
    /// The allocator of `doc`, sized to the object: a Document's own pool takes 64 KiB at a time,
    /// which a few-KB pod would leave mostly unused (declared first: it outlives `doc`).
    std::unique_ptr<json_alloc> pool;
    json_doc doc;
    std::string text; ///< compact JSON, serialized once
    std::string namespace_;
    std::string name;
    core::label_map labels;
    std::uint64_t rv = 0;
    /// Pods, derived on the first metrics read of this version and kept with it (the simulated
    /// server runs on one thread; a list reads them for every pod, and reading them here costs
    /// fewer cache misses than walking the document again): the fixed parts of its PodMetrics
    /// (empty until rendered) and its usage facts.
    mutable derived_text pod_metrics;
    mutable std::optional<pod_usage_facts> usage_facts;
};
using object_ptr = std::shared_ptr<const stored_object>;

struct watch_event {
    std::uint64_t rv = 0;
    const char* type = "ADDED"; ///< ADDED | MODIFIED | DELETED
    object_ptr object;
    object_ptr
        previous; ///< MODIFIED: the version before (a filtered watch turns it into ADDED/DELETED)
};

struct collection {
    resource_type type;
    std::map<std::string, object_ptr> objects; ///< by "namespace/name" (cluster-scoped: "/name")
    std::deque<watch_event> log;
    std::uint64_t compacted_rv = 0; ///< watches from an older resourceVersion get 410
};

/// The objects of one namespace ("" = all): keys are "namespace/name", so one contiguous range.
/// The hot paths (pods of a Deployment, PodMetrics of a namespace) scan this, not the collection.
struct object_range {
    std::map<std::string, object_ptr>::const_iterator first, last;
    auto begin() const { return first; }
    auto end() const { return last; }
};
object_range namespace_range(const collection& c, const std::string& ns);

/// Every object of every collection at one resourceVersion (objects are immutable, so this shares
/// them): what an etcd backup holds.
struct store_snapshot {
    std::uint64_t rv = 0;
    std::map<std::string, std::map<std::string, object_ptr>, std::less<>> objects; ///< by type
};

/// A random RFC 4122 version 4 UUID (metadata.uid, admission review uids).
std::string new_uid();

/// `prefix` and five random characters of the API server's generateName alphabet.
std::string generated_name(std::string_view prefix);

template <class T> using api_result = boost::system::result<T, api_error>;

/// How an update treats the incoming object.
enum class write_mode {
    main,            ///< PUT/PATCH of the object: status kept when the status subresource exists
    status,          ///< PUT/PATCH of /status: only status changes
    internal_status, ///< a simulated controller writing status: no resourceVersion precondition
    internal,        ///< a simulated controller writing the object: no precondition
};

class object_store {
  public:
    using clock = std::function<core::time_point()>;
    using observer = std::function<void(collection&, const watch_event&)>;

    explicit object_store(clock now, std::size_t log_capacity = 5000);

    collection* find(std::string_view group, std::string_view version, std::string_view plural);
    collection& add_type(resource_type type);
    void remove_type(std::string_view group, std::string_view version, std::string_view plural);
    std::vector<collection*> collections();

    std::uint64_t resource_version() const { return rv_; }

    /// etcd's backend quota: once the stored objects' JSON adds up to `bytes`, creations fail as
    /// etcd's NOSPACE alarm makes them fail ("etcdserver: mvcc: database space exceeded") while
    /// reads, updates and deletions go on. Bounds the memory a runaway controller (a workload at
    /// 2147483647 replicas) can take.
    void set_quota_bytes(std::size_t bytes) { quota_bytes_ = bytes; }
    /// The stored objects' JSON, in bytes (what the quota counts).
    std::size_t stored_bytes() const { return stored_bytes_; }

    /// `origin` (a client's write) is recorded in metadata.managedFields; nullptr = a simulated
    /// controller, which records nothing.
    api_result<object_ptr> create(collection& c, const std::string& ns, json_doc body,
                                  const write_origin* origin = nullptr);
    api_result<object_ptr> update(collection& c, const std::string& ns, const std::string& name,
                                  json_doc body, write_mode mode,
                                  const write_origin* origin = nullptr);
    api_result<object_ptr> remove(collection& c, const std::string& ns, const std::string& name);
    object_ptr get(const collection& c, const std::string& ns, const std::string& name) const;

    /// Index into c.log of the first event newer than `rv`; nullopt when those events were dropped.
    std::optional<std::size_t> first_event_after(const collection& c, std::uint64_t rv) const;
    /// Drops the whole event log: every watch resuming from a version before now gets 410.
    void compact(collection& c);

    store_snapshot snapshot() const;
    /// Puts every object back as the snapshot has it, as an etcd restored from a backup does:
    /// the resourceVersion goes back too and every event log is dropped, and nothing is told
    /// (watchers see no events; a client resuming from a newer version is "too large").
    void restore(const store_snapshot& s);
    /// How many times restore() ran: what follows the store through on_change must start over
    /// when this changes.
    std::uint64_t restores() const { return restores_; }

    /// Called after every write, in order (simulated controllers and watch notification).
    void on_change(observer o) { observers_.push_back(std::move(o)); }

    static std::string key(const std::string& ns, const std::string& name) {
        return ns + "/" + name;
    }

  private:
    object_ptr seal(json_doc doc, std::uint64_t rv) const;
    void publish(collection& c, const char* type, object_ptr object, object_ptr previous = nullptr);

    clock now_;
    std::size_t log_capacity_;
    std::uint64_t rv_ = 1000;
    std::uint64_t restores_ = 0;
    std::size_t stored_bytes_ = 0;
    std::size_t quota_bytes_ = static_cast<std::size_t>(-1);
    std::map<std::string, collection, std::less<>> collections_;
    std::vector<observer> observers_;
};

} // namespace hpaplus::sim
