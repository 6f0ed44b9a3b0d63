// sim/workload/workload.cpp — the workload model: it runs the simulated workload controllers
// (controllers.cpp) on what changed, and plays the kubelet: the pods' lifecycle, in-place resizes
// (resize.cpp) and usage.
#include "sim/workload/workload.hpp"

#include "core/hash.hpp"
#include "core/quantity.hpp"
#include "sim/apiserver/admission.hpp"
#include "sim/apiserver/defaults.hpp"
#include "sim/apiserver/pod_limits.hpp"
#include "sim/apiserver/priority.hpp"
#include "sim/pod_log.hpp"
#include "sim/pod_state.hpp"
#include "sim/workload/controllers.hpp"
#include "sim/workload/namespaces.hpp"
#include "sim/workload/node_lease.hpp"
#include "sim/workload/readiness.hpp"
#include "sim/workload/resize.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace hpaplus::sim {

namespace asio = boost::asio;
using clock = std::chrono::steady_clock;

namespace {

// 64 hex digits derived from `text`: the digest part of a simulated image or container ID
// (stable, so a pod's status does not change between updates).
std::string hex_digest(const std::string& text) {
    std::string out;
    std::uint64_t h = 1469598103934665603ull;
    for (int round = 0; round < 4; ++round) {
        for (unsigned char c : text)
            h = (h ^ c) * 1099511628211ull;
        h = (h ^ static_cast<unsigned>(round)) * 1099511628211ull;
        static const char digits[] = "0123456789abcdef";
        for (int i = 0; i < 16; ++i)
            out.push_back(digits[(h >> (4 * i)) & 15]);
    }
    return out;
}

// What the model last read of a pod: which workload's load it takes a share of, and whether it
// counts among that workload's ready pods.
struct pod_record {
    std::string uid, workload_uid;
    bool ready = false;
    bool running = false; ///< Running and not Terminating (readiness under load counts these)
};

// A pod's CPU-seconds counter: `seconds` up to `since`, then `rate` CPUs (the usage read at each
// step since then, which has not changed).
struct cpu_counter {
    double seconds = 0;
    double rate = 0;
    clock::time_point since;
    double at(clock::time_point t) const {
        return seconds + rate * std::chrono::duration<double>(t - since).count();
    }
};

// The object stored under `key`, or nullptr. A copy of the pointer: a write replaces the map's
// while the caller still reads the object.
object_ptr stored(const collection& c, const std::string& key) {
    const auto it = c.objects.find(key);
    return it == c.objects.end() ? nullptr : it->second;
}

} // namespace

struct workload_model::impl : pod_factory, std::enable_shared_from_this<workload_model::impl> {
    asio::any_io_executor executor;
    object_store& store;
    workload_options options;
    std::map<std::string, clock::time_point> first_seen; ///< pod uid → when the model first saw it
    /// pod uid → when the kubelet saw it Terminating (its containers then stop).
    std::map<std::string, clock::time_point> terminating_since;
    std::map<std::string, clock::time_point> resizing; ///< pod uid → when its resize started
    std::unordered_map<std::string, cpu_counter> cpu;  ///< pod uid → CPU seconds used so far
    /// workload uid → ready pods (found by a view of the uid: no key copied per pod per list)
    std::unordered_map<std::string, std::int64_t, core::string_hash, std::equal_to<>>
        ready_by_workload;
    /// workload uid → Running pods (what a workload that sheds readiness spreads its load over)
    std::unordered_map<std::string, std::int64_t, core::string_hash, std::equal_to<>>
        running_by_workload;
    clock::time_point last_tick = clock::now();
    std::optional<clock::time_point> lease_renewed; ///< the node's Lease, last written

    // What a step has to look at, collected from the store's changes between steps (observe), so
    // that a step costs what changed, not the number of pods. Keys are "namespace/name".
    owned_objects owned;
    std::set<std::string> dirty_deployments, dirty_replica_sets, dirty_stateful_sets,
        dirty_daemon_sets;
    std::set<std::string> moving_pods;  ///< pods that may advance (lifecycle, resize)
    std::set<std::string> changed_pods; ///< pods whose ready count or usage may have changed
    std::set<std::string> new_replica_sets, new_pods; ///< the garbage collector checks these
    std::vector<std::string> deleted_owners;          ///< uids: their dependents may be garbage
    std::set<std::string> reload_workloads; ///< workload uids whose pods' usage may have changed
    std::unordered_map<std::string, pod_record> pod_records;                 ///< by pod key
    std::unordered_map<std::string, std::set<std::string>> pods_by_workload; ///< uid → pod keys
    std::uint64_t restores_seen = 0;
    bool synced = false;
    std::unique_ptr<asio::steady_timer> timer;
    /// Namespaces marked for deletion that the namespace controller still has to empty.
    std::set<std::string> terminating_namespaces;
    /// A namespace, or its default ServiceAccount or kube-root-ca.crt, changed since the last step.
    bool namespace_defaults_due = true;
    pod_log_book logs; ///< the kubelet's container logs, from the pods' status changes
    /// The last refused pod create of each workload (by its pod_factory key) and when to retry.
    struct failed_create_record {
        std::string message, owner;
        std::string kind; ///< of the owner: ReplicaSet, StatefulSet or DaemonSet
        std::chrono::milliseconds backoff{0};
        clock::time_point retry_at;
    };
    std::map<std::string, failed_create_record> failed_creates;
    std::set<std::string> quota_namespaces; ///< namespaces whose pods or quotas changed
    bool stopped = false;
    std::uint32_t next_ip = 10;
    admission* admission_chain = nullptr;
    /// Pods being admitted (webhook calls under way), by the key their controller gave.
    std::map<std::string, std::int64_t> admitting;

    impl(asio::any_io_executor ex, object_store& s, workload_options o)
        : executor(ex), store(s), options(std::move(o)) {}

    // One step: the controllers on the workloads that changed, the garbage collector on what lost
    // its owner, the pods that are still moving, then ready counts and usage of the pods that
    // changed. What nothing touched since the last step costs nothing.
    void tick() {
        collection* pods = store.find("", "v1", "pods");
        if (!pods) return;
        if (!synced || restores_seen != store.restores()) resync();
        reconcile_changed_workloads();
        collect_garbage(*pods);
        for (auto it = terminating_namespaces.begin(); it != terminating_namespaces.end();)
            it = finalize_namespace(store, *it, core::wall_now()) ? terminating_namespaces.erase(it)
                                                                  : std::next(it);
        // One step, one time: the wall-clock text is formatted once, not once per pod.
        const auto step_time = clock::now();
        const std::string step_text = now_text();
        for (const std::string& key : std::exchange(moving_pods, {})) {
            const object_ptr pod = stored(*pods, key);
            if (pod && !advance_pod(*pods, pod, step_time, step_text))
                moving_pods.insert(key); // waits for time to pass; a write puts it back anyway
        }
        const auto previous_tick = std::exchange(last_tick, clock::now());
        refresh_changed_pods(*pods, previous_tick);
        if (std::exchange(namespace_defaults_due, false))
            publish_namespace_defaults(store, options.root_ca_pem);
        for (const std::string& ns : std::exchange(quota_namespaces, {}))
            refresh_quota_status(store, ns);
        for (auto& [key, f] : failed_creates) // refused creates, retried after their backoff
            if (f.retry_at <= step_time && f.retry_at != clock::time_point{}) {
                f.retry_at = {};
                dirty_of(f.kind).insert(f.owner);
            }
        if (options.node_lease_renewal.count() > 0 &&
            (!lease_renewed || step_time - *lease_renewed >= options.node_lease_renewal)) {
            lease_renewed = step_time;
            renew_node_lease(store, options.node_name, core::format_micro_time(core::wall_now()));
        }
    }

    // Starts over from what the store holds: at the first step and after a restore (which tells
    // no observer).
    void resync() {
        synced = true;
        restores_seen = store.restores();
        owned.rebuild(store);
        pod_records.clear();
        pods_by_workload.clear();
        ready_by_workload.clear();
        running_by_workload.clear();
        for (auto* keys :
             {&dirty_deployments, &dirty_replica_sets, &dirty_stateful_sets, &dirty_daemon_sets,
              &moving_pods, &changed_pods, &new_replica_sets, &new_pods})
            keys->clear();
        deleted_owners.clear();
        terminating_namespaces.clear();
        namespace_defaults_due = true;
        if (collection* namespaces = store.find("", "v1", "namespaces"))
            for (const auto& [key, ns] : namespaces->objects)
                if (namespace_terminating(*ns)) terminating_namespaces.insert(ns->name);
        for (const auto& [plural, into] : {std::pair{"deployments", &dirty_deployments},
                                           std::pair{"replicasets", &dirty_replica_sets},
                                           std::pair{"statefulsets", &dirty_stateful_sets},
                                           std::pair{"daemonsets", &dirty_daemon_sets}})
            if (collection* c = store.find("apps", "v1", plural))
                for (const auto& [key, o] : c->objects)
                    into->insert(key);
        new_replica_sets = dirty_replica_sets;
        std::unordered_set<std::string> alive;
        if (collection* pods = store.find("", "v1", "pods"))
            for (const auto& [key, p] : pods->objects) {
                moving_pods.insert(key);
                changed_pods.insert(key);
                new_pods.insert(key);
                alive.insert(string_at(p->doc, "metadata.uid"));
            }
        std::erase_if(cpu, [&](const auto& entry) { return !alive.count(entry.first); });
        std::erase_if(first_seen, [&](const auto& entry) { return !alive.count(entry.first); });
        std::erase_if(resizing, [&](const auto& entry) { return !alive.count(entry.first); });
        std::erase_if(terminating_since,
                      [&](const auto& entry) { return !alive.count(entry.first); });
        ensure_node();
    }

    // The Node pods are bound to, as its kubelet registers it: capacity and allocatable from the
    // options, Ready and no pressure, addresses and nodeInfo (`kubectl get nodes`, `top nodes`).
    void ensure_node() {
        collection* nodes = store.find("", "v1", "nodes");
        if (!nodes || store.get(*nodes, "", options.node_name)) return;
        const std::string name = options.node_name;
        json_doc node;
        node.Parse((R"({"metadata":{"name":")" + name +
                    R"(","labels":{"kubernetes.io/hostname":")" + name +
                    R"(","kubernetes.io/os":"linux","kubernetes.io/arch":"amd64",)"
                    R"("node-role.kubernetes.io/worker":""}},"spec":{"podCIDR":"10.244.0.0/24"}})")
                       .c_str());
        auto created = store.create(*nodes, "", std::move(node));
        if (!created) return;
        const std::string now = now_text();
        const std::string cpu = core::quantity::from_milli(options.node_cpu_milli).to_string();
        const std::string memory =
            core::quantity::from_value(options.node_memory_bytes, core::quantity_format::binary_si)
                .to_string();
        const std::string resources =
            R"({"cpu":")" + cpu + R"(","memory":")" + memory + R"(","pods":"110"})";
        std::string conditions;
        for (const auto& [type, status, reason, message] :
             {std::tuple{"MemoryPressure", "False", "KubeletHasSufficientMemory",
                         "kubelet has sufficient memory available"},
              std::tuple{"DiskPressure", "False", "KubeletHasNoDiskPressure",
                         "kubelet has no disk pressure"},
              std::tuple{"PIDPressure", "False", "KubeletHasSufficientPID",
                         "kubelet has sufficient PID available"},
              std::tuple{"Ready", "True", "KubeletReady", "kubelet is posting ready status"}})
            conditions += std::string(conditions.empty() ? "" : ",") + R"({"type":")" + type +
                          R"(","status":")" + status + R"(","lastHeartbeatTime":")" + now +
                          R"(","lastTransitionTime":")" + now + R"(","reason":")" + reason +
                          R"(","message":")" + message + R"("})";
        json_doc next = clone((*created)->doc);
        json_doc status;
        status.Parse((R"({"capacity":)" + resources + R"(,"allocatable":)" + resources +
                      R"(,"conditions":[)" + conditions +
                      R"(],"addresses":[{"type":"InternalIP","address":"10.0.0.1"},)"
                      R"({"type":"Hostname","address":")" +
                      name +
                      R"("}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},)"
                      R"("nodeInfo":{"machineID":"sim","systemUUID":"sim","bootID":"sim",)"
                      R"("kernelVersion":"6.1.0","osImage":"hpaplus sim",)"
                      R"("containerRuntimeVersion":"containerd://1.7.0",)"
                      R"("kubeletVersion":"v1.33.0","kubeProxyVersion":"",)"
                      R"("operatingSystem":"linux","architecture":"amd64"}})")
                         .c_str());
        set_path(next, "status", json(status, next.GetAllocator()), next.GetAllocator());
        (void)store.update(*nodes, "", name, std::move(next), write_mode::internal_status);
    }

    // Called by the store after every write, in order.
    void observe(collection& c, const watch_event& e) {
        const resource_type& type = c.type;
        if (type.version != "v1") return;
        const bool deleted = std::string_view(e.type) == "DELETED";
        const std::string key = object_store::key(e.object->namespace_, e.object->name);
        if (type.group.empty() && (type.plural == "pods" || type.plural == "resourcequotas"))
            quota_namespaces.insert(e.object->namespace_);
        if (type.group.empty() && type.plural == "pods") {
            logs.observe(deleted ? e.object.get() : e.previous.get(),
                         deleted ? nullptr : e.object.get(), core::wall_now());
            owned.track(true, e);
            changed_pods.insert(key);
            if (deleted) {
                moving_pods.erase(key);
                new_pods.erase(key);
            } else {
                moving_pods.insert(key);
                new_pods.insert(key);
            }
            for (const stored_object* version : {e.object.get(), e.previous.get()})
                if (version) mark_pod_owners(*version);
            return;
        }
        if (type.group.empty() && type.plural == "namespaces") {
            if (!deleted && namespace_terminating(*e.object))
                terminating_namespaces.insert(e.object->name);
            namespace_defaults_due |= !deleted;
            return;
        }
        if (type.group.empty() &&
            (type.plural == "serviceaccounts" || type.plural == "configmaps")) {
            namespace_defaults_due |=
                e.object->name == (type.plural == "configmaps" ? "kube-root-ca.crt" : "default");
            return;
        }
        if (type.group != "apps") return;
        std::set<std::string>* dirty = type.plural == "deployments"    ? &dirty_deployments
                                       : type.plural == "replicasets"  ? &dirty_replica_sets
                                       : type.plural == "statefulsets" ? &dirty_stateful_sets
                                       : type.plural == "daemonsets"   ? &dirty_daemon_sets
                                                                       : nullptr;
        if (!dirty) return;
        const std::string uid = string_at(e.object->doc, "metadata.uid");
        reload_workloads.insert(uid); // its load annotations may have changed
        if (deleted) {
            dirty->erase(key);
            deleted_owners.push_back(uid);
        } else {
            dirty->insert(key);
        }
        if (type.plural != "replicasets") return;
        owned.track(false, e);
        if (deleted)
            new_replica_sets.erase(key);
        else
            new_replica_sets.insert(key);
        for (const stored_object* version : {e.object.get(), e.previous.get()})
            if (version) mark_deployment_of(*version);
    }

    // The controllers that make pods, by their kind.
    static const char* plural_of(const std::string& kind) {
        return kind == "StatefulSet" ? "statefulsets"
               : kind == "DaemonSet" ? "daemonsets"
                                     : "replicasets";
    }
    std::set<std::string>& dirty_of(const std::string& kind) {
        return kind == "StatefulSet" ? dirty_stateful_sets
               : kind == "DaemonSet" ? dirty_daemon_sets
                                     : dirty_replica_sets;
    }

    void mark_deployment_of(const stored_object& replica_set) {
        if (std::string d = controller_key(replica_set, "Deployment"); !d.empty())
            dirty_deployments.insert(std::move(d));
    }

    // A pod's controller counts it, and a ReplicaSet's Deployment counts what that counts.
    void mark_pod_owners(const stored_object& pod) {
        if (std::string set = controller_key(pod, "StatefulSet"); !set.empty())
            dirty_stateful_sets.insert(std::move(set));
        if (std::string set = controller_key(pod, "DaemonSet"); !set.empty())
            dirty_daemon_sets.insert(std::move(set));
        std::string rs = controller_key(pod, "ReplicaSet");
        if (rs.empty()) return;
        const collection* sets = store.find("apps", "v1", "replicasets");
        if (const object_ptr owner = sets ? stored(*sets, rs) : nullptr) mark_deployment_of(*owner);
        dirty_replica_sets.insert(std::move(rs));
    }

    // Each controller works on the objects as they are when its turn comes; what they write marks
    // more work for the next step.
    void reconcile_changed_workloads() {
        auto each = [&](const char* plural, std::set<std::string>& dirty, auto reconcile) {
            collection* c = store.find("apps", "v1", plural);
            for (const std::string& key : std::exchange(dirty, {}))
                if (const object_ptr object = c ? stored(*c, key) : nullptr) reconcile(object);
        };
        each("deployments", dirty_deployments,
             [&](const object_ptr& d) { reconcile_deployment(store, owned, d); });
        each("replicasets", dirty_replica_sets,
             [&](const object_ptr& rs) { reconcile_replica_set(store, owned, *this, rs); });
        each("statefulsets", dirty_stateful_sets,
             [&](const object_ptr& set) { reconcile_stateful_set(store, owned, *this, set); });
        each("daemonsets", dirty_daemon_sets,
             [&](const object_ptr& set) { reconcile_daemon_set(store, owned, *this, set); });
    }

    // Background cascading deletion: ReplicaSets and pods whose apps/v1 controller is gone. Only
    // the dependents of deleted owners and objects written since the last step can be orphans.
    void collect_garbage(collection& pods) {
        std::vector<std::string> owners = std::exchange(deleted_owners, {});
        std::set<std::string> sets = std::exchange(new_replica_sets, {});
        for (const std::string& uid : owners)
            for (const auto& rs : owned.replica_sets(uid))
                sets.insert(object_store::key(rs->namespace_, rs->name));
        if (collection* c = store.find("apps", "v1", "replicasets")) remove_orphans(*c, sets);
        // A StatefulSet's ControllerRevisions go with it (few: looked through only then).
        if (collection* c = store.find("apps", "v1", "controllerrevisions"); c && !owners.empty()) {
            std::set<std::string> revisions;
            for (const auto& [key, o] : c->objects)
                revisions.insert(key);
            remove_orphans(*c, revisions);
        }
        // ReplicaSets removed just now are owners whose pods go in the same step.
        for (std::string& uid : std::exchange(deleted_owners, {}))
            owners.push_back(std::move(uid));
        std::set<std::string> candidates = std::exchange(new_pods, {});
        for (const std::string& uid : owners)
            for (const auto& p : owned.pods(uid))
                candidates.insert(object_store::key(p->namespace_, p->name));
        remove_orphans(pods, candidates);
    }

    void remove_orphans(collection& c, const std::set<std::string>& keys) {
        std::vector<object_ptr> doomed;
        for (const std::string& key : keys)
            if (object_ptr o = stored(c, key); o && orphaned(store, *o))
                doomed.push_back(std::move(o));
        for (const auto& o : doomed)
            (void)store.remove(c, o->namespace_, o->name);
    }

    // Ready pods per workload (which its load is spread over until the next step) and the usage of
    // every pod whose usage may have changed: its own change, or its workload's.
    void refresh_changed_pods(collection& pods, clock::time_point previous_tick) {
        std::set<std::string> usage_changed;
        for (const std::string& key : std::exchange(changed_pods, {})) {
            usage_changed.insert(key);
            pod_record before;
            if (const auto it = pod_records.find(key); it != pod_records.end()) {
                before = std::move(it->second);
                pod_records.erase(it);
            }
            const object_ptr pod = stored(pods, key);
            pod_record now;
            if (pod) {
                now.uid = string_at(pod->doc, "metadata.uid");
                // A Terminating pod is out of its Service's endpoints: it takes no share of the
                // load.
                now.ready = pod_ready(*pod) && !pod_terminating(*pod);
                now.running =
                    text_at(pod->doc, "status.phase") == "Running" && !pod_terminating(*pod);
                if (const object_ptr w = workload_of(store, *pod))
                    now.workload_uid = string_at(w->doc, "metadata.uid");
            }
            if (before.workload_uid != now.workload_uid || before.ready != now.ready ||
                before.running != now.running) {
                count(before, key, -1);
                count(now, key, +1);
            }
            if (!before.uid.empty() && before.uid != now.uid) forget(before.uid);
            if (pod) pod_records.emplace(key, std::move(now));
        }
        for (const std::string& uid : std::exchange(reload_workloads, {}))
            if (const auto it = pods_by_workload.find(uid); it != pods_by_workload.end())
                usage_changed.insert(it->second.begin(), it->second.end());
        // The usage read at this step counts from the step before (as a per-step sum would).
        std::vector<std::pair<object_ptr, bool>> readiness_changes;
        for (const std::string& key : usage_changed) {
            const object_ptr pod = stored(pods, key);
            const auto record = pod_records.find(key); // every stored pod has one by now
            if (!pod || record == pod_records.end()) continue;
            const auto usage = usage_of(*pod);
            const std::string& uid = record->second.uid;
            auto it = cpu.find(uid);
            if (!usage && it == cpu.end()) continue; // no usage yet: no counter yet
            if (it == cpu.end()) it = cpu.emplace(uid, cpu_counter{0, 0, previous_tick}).first;
            it->second.seconds = it->second.at(previous_tick);
            it->second.since = previous_tick;
            it->second.rate = usage ? static_cast<double>(usage->cpu_milli) / 1000.0 : 0.0;
            if (const auto ready = readiness_under_load(*pod, usage);
                ready && *ready != pod_ready(*pod))
                readiness_changes.emplace_back(pod, *ready);
        }
        for (const auto& [pod, ready] : readiness_changes)
            write_pod_ready(store, pods, *pod, ready, now_text());
    }

    // sim.hpaplus.io/unready-above: whether a running pod past its readiness delay is Ready under
    // its share of the load (nullopt: its workload does not shed readiness, or it is not there).
    std::optional<bool> readiness_under_load(const stored_object& pod,
                                             const std::optional<pod_usage>& usage) {
        if (!usage || pod_terminating(pod)) return std::nullopt;
        const object_ptr workload = workload_of(store, pod);
        const std::int64_t threshold = workload ? unready_above_milli(*workload) : 0;
        if (threshold == 0) return std::nullopt;
        const auto seen = first_seen.find(string_at(pod.doc, "metadata.uid"));
        const auto ready_at =
            options.scheduling_delay + options.start_delay + options.readiness_delay;
        if (seen == first_seen.end() || clock::now() - seen->second < ready_at) return std::nullopt;
        return usage->cpu_milli <= threshold;
    }

    // Adds (`by` = +1) or removes a pod's share of its workload: the ready count and the pod set.
    void count(const pod_record& r, const std::string& key, int by) {
        if (r.workload_uid.empty()) return;
        reload_workloads.insert(r.workload_uid);
        for (auto [counted, by_workload] :
             {std::pair{r.ready, &ready_by_workload}, std::pair{r.running, &running_by_workload}}) {
            if (!counted) continue;
            auto& n = (*by_workload)[r.workload_uid];
            n += by;
            if (n == 0) by_workload->erase(r.workload_uid);
        }
        if (by > 0) {
            pods_by_workload[r.workload_uid].insert(key);
        } else if (const auto it = pods_by_workload.find(r.workload_uid);
                   it != pods_by_workload.end()) {
            it->second.erase(key);
            if (it->second.empty()) pods_by_workload.erase(it);
        }
    }

    void forget(const std::string& uid) {
        cpu.erase(uid);
        first_seen.erase(uid);
        terminating_since.erase(uid);
        resizing.erase(uid);
    }

    bool create_pod(const stored_object& owner, json_doc pod, const std::string& key) override {
        collection* pods = store.find("", "v1", "pods");
        if (!pods) return false;
        apply_defaults(pods->type, pod);
        apply_limit_ranges(store, owner.namespace_, pod);
        if (auto refused = admit_pod_priority(store, pod)) {
            failed_create(owner.namespace_, string_at(owner.doc, "kind"), owner.name, key,
                          refused->message);
            return false;
        }
        if (admission_chain && admission_chain->wants(pods->type, owner.namespace_, pod)) {
            ++admitting[key];
            asio::co_spawn(executor,
                           create_admitted(shared_from_this(), owner.namespace_,
                                           string_at(owner.doc, "kind"), owner.name, key,
                                           std::move(pod)),
                           asio::detached);
            return true;
        }
        if (auto refused = admit_pod_limits(store, owner.namespace_, pod)) {
            failed_create(owner.namespace_, string_at(owner.doc, "kind"), owner.name, key,
                          refused->message);
            return false;
        }
        auto created = store.create(*pods, owner.namespace_, std::move(pod));
        if (created) {
            failed_creates.erase(key);
            return true;
        }
        failed_create(owner.namespace_, string_at(owner.doc, "kind"), owner.name, key,
                      created.error().message);
        return false;
    }

    std::string create_failure(const std::string& key) const override {
        const auto it = failed_creates.find(key);
        return it == failed_creates.end() ? std::string() : it->second.message;
    }

    // A refused create: the FailedCreate Event, the failure its controller reports in its
    // status, and a retry after a backoff that doubles up to a minute (the workqueue's).
    void failed_create(const std::string& ns, const std::string& kind, const std::string& name,
                       const std::string& key, const std::string& message) {
        record_failed_create(ns, kind, name, message);
        auto& f = failed_creates[key];
        f.message = message;
        f.backoff = std::min<std::chrono::milliseconds>(
            f.backoff.count() == 0 ? std::chrono::milliseconds(500) : f.backoff * 2,
            std::chrono::minutes(1));
        f.retry_at = clock::now() + f.backoff;
        f.owner = object_store::key(ns, name);
        f.kind = kind;
    }

    std::int64_t creating(const std::string& key) const override {
        const auto it = admitting.find(key);
        return it == admitting.end() ? 0 : it->second;
    }

    // A pod through the mutating webhooks, then stored; a refusal is a FailedCreate Event on its
    // controller and the next tick tries again.
    static asio::awaitable<void> create_admitted(std::shared_ptr<impl> self, std::string ns,
                                                 std::string owner_kind, std::string owner,
                                                 std::string key, json_doc pod) {
        collection* pods = self->store.find("", "v1", "pods");
        if (!pods) co_return;
        const resource_type type = pods->type;
        const auto error = co_await self->admission_chain->admit_create(type, ns, pod);
        if (--self->admitting[key] <= 0) self->admitting.erase(key);
        if (self->stopped) co_return;
        pods = self->store.find("", "v1", "pods");
        if (!pods) co_return;
        auto refused = error;
        if (!refused) refused = admit_pod_limits(self->store, ns, pod); // ResourceQuota is last
        if (!refused) {
            if (self->store.create(*pods, ns, std::move(pod))) self->failed_creates.erase(key);
            co_return;
        }
        self->failed_create(ns, owner_kind, owner, key, refused->message);
        // Its controller tries again at the next step.
        self->dirty_of(owner_kind).insert(object_store::key(ns, owner));
    }

    void record_failed_create(const std::string& ns, const std::string& kind,
                              const std::string& name, const std::string& message) {
        collection* events = store.find("", "v1", "events");
        collection* owners = store.find("apps", "v1", plural_of(kind));
        const object_ptr owner = owners ? store.get(*owners, ns, name) : nullptr;
        if (!events || !owner) return;
        json_doc e(rapidjson::kObjectType);
        auto& a = e.GetAllocator();
        const std::string now = now_text();
        set_path(e, "metadata.generateName", json((name + ".").c_str(), a), a);
        set_path(e, "involvedObject.apiVersion", json("apps/v1"), a);
        set_path(e, "involvedObject.kind", json(kind.c_str(), a), a);
        set_path(e, "involvedObject.namespace", json(ns.c_str(), a), a);
        set_path(e, "involvedObject.name", json(name.c_str(), a), a);
        set_path(e, "involvedObject.uid", json(string_at(owner->doc, "metadata.uid").c_str(), a),
                 a);
        set_path(e, "type", json("Warning"), a);
        set_path(e, "reason", json("FailedCreate"), a);
        set_path(e, "message", json(("Error creating: " + message).c_str(), a), a);
        set_path(e, "source.component",
                 json(rapidjson::StringRef(kind == "StatefulSet" ? "statefulset-controller"
                                           : kind == "DaemonSet" ? "daemonset-controller"
                                                                 : "replicaset-controller")),
                 a);
        set_path(e, "firstTimestamp", json(now.c_str(), a), a);
        set_path(e, "lastTimestamp", json(now.c_str(), a), a);
        set_path(e, "count", json(1), a);
        (void)store.create(*events, ns, std::move(e));
    }

    // The simulated kubelet's side of pods/resize: compare desired (spec) with actual
    // (containerStatuses[].resources) and report PodResizePending / PodResizeInProgress.
    // True when the pod's resources are as its spec wants them (nothing left to do).
    bool actuate_resize(collection& pods, const object_ptr& p) {
        const json* containers = find_path(p->doc, "spec.containers");
        const bool differs = resize_wanted(p->doc);
        const std::string uid = string_at(p->doc, "metadata.uid");
        if (!differs) {
            resizing.erase(uid);
            return true;
        }
        const auto [pending_reason, pending_message] = resize_pending(
            pods, *p, options.node_name, options.node_cpu_milli, options.node_memory_bytes);
        json_doc next = clone(p->doc);
        auto& a = next.GetAllocator();
        json* conditions = const_cast<json*>(find_path(next, "status.conditions"));
        if (!conditions || !conditions->IsArray()) return false;
        auto drop = [&](const char* type) {
            for (auto it = conditions->Begin(); it != conditions->End();) {
                if (string_at(*it, "type") == type)
                    it = conditions->Erase(it);
                else
                    ++it;
            }
        };
        auto has = [&](const char* type, const std::string& reason) {
            for (const auto& c : conditions->GetArray())
                if (string_at(c, "type") == type && string_at(c, "reason") == reason) return true;
            return false;
        };
        const std::string now = now_text();
        if (!pending_reason.empty()) {
            resizing.erase(uid);
            if (has("PodResizePending", pending_reason)) return false;
            drop("PodResizePending");
            drop("PodResizeInProgress");
            conditions->PushBack(condition("PodResizePending", "True", now, a,
                                           pending_reason.c_str(), pending_message),
                                 a);
            (void)store.update(pods, p->namespace_, p->name, std::move(next),
                               write_mode::internal_status);
            return false;
        }
        const auto started = resizing.emplace(uid, clock::now()).first->second;
        if (clock::now() - started < options.resize_delay) {
            if (has("PodResizeInProgress", "")) return false;
            drop("PodResizePending");
            conditions->PushBack(condition("PodResizeInProgress", "True", now, a), a);
            (void)store.update(pods, p->namespace_, p->name, std::move(next),
                               write_mode::internal_status);
            return false;
        }
        // Actuate: actual = desired; a RestartContainer policy on a changed resource restarts it.
        drop("PodResizePending");
        drop("PodResizeInProgress");
        actuate_resize_of(next, *containers);
        resizing.erase(uid);
        (void)store.update(pods, p->namespace_, p->name, std::move(next),
                           write_mode::internal_status);
        return false;
    }

    // Moves a pod one step along its lifecycle; true when it has arrived (nothing happens to it
    // until it changes).
    bool advance_pod(collection& pods, const object_ptr& p, clock::time_point step_time,
                     const std::string& now) {
        const std::string uid = string_at(p->doc, "metadata.uid");
        if (pod_terminating(*p)) {
            // The kubelet stops the containers (they take the pod's
            // sim.hpaplus.io/termination-seconds, or termination_delay, at most the grace period)
            // and then deletes the pod for good.
            const auto since = terminating_since.emplace(uid, step_time).first->second;
            std::chrono::milliseconds stop = options.termination_delay;
            if (const std::string own = annotation(p->doc, "sim.hpaplus.io/termination-seconds");
                !own.empty())
                stop = std::chrono::milliseconds(
                    static_cast<std::int64_t>(std::strtod(own.c_str(), nullptr) * 1000));
            stop = std::min<std::chrono::milliseconds>(
                stop,
                std::chrono::seconds(int_at(p->doc, "metadata.deletionGracePeriodSeconds", 30)));
            if (step_time - since < stop) return false;
            (void)store.remove(pods, p->namespace_, p->name);
            return true;
        }
        const auto seen = first_seen.emplace(uid, step_time).first->second;
        const auto age = step_time - seen;
        const std::string phase = string_at(p->doc, "status.phase");
        const bool scheduled = !string_at(p->doc, "spec.nodeName").empty();
        if (!scheduled && age >= options.scheduling_delay) {
            // Binding sets spec.nodeName (an object write), then the kubelet reports PodScheduled.
            json_doc bound = clone(p->doc);
            set_path(bound, "spec.nodeName", json(options.node_name.c_str(), bound.GetAllocator()),
                     bound.GetAllocator());
            auto stored =
                store.update(pods, p->namespace_, p->name, std::move(bound), write_mode::internal);
            if (!stored) return false;
            json_doc next = clone((*stored)->doc);
            auto& a = next.GetAllocator();
            json status(rapidjson::kObjectType);
            status.AddMember("phase", "Pending", a);
            json conditions(rapidjson::kArrayType);
            conditions.PushBack(condition("PodScheduled", "True", now, a), a);
            status.AddMember("conditions", conditions, a);
            status.AddMember("qosClass", json(qos_class(p->doc).c_str(), a), a);
            set_path(next, "status", std::move(status), a);
            (void)store.update(pods, p->namespace_, p->name, std::move(next),
                               write_mode::internal_status);
            return false;
        }
        const bool running = phase == "Running";
        const bool ready = pod_ready(*p);
        const bool start =
            scheduled && !running && age >= options.scheduling_delay + options.start_delay;
        const bool become_ready =
            running && !ready &&
            age >= options.scheduling_delay + options.start_delay + options.readiness_delay &&
            readiness_under_load(*p, usage_of(*p)) != false; // not while it sheds its load
        if (running && ready) return actuate_resize(pods, p);
        if (!start && !become_ready) return false;
        json_doc next = clone(p->doc);
        auto& a = next.GetAllocator();
        const bool now_ready = become_ready;
        json status(rapidjson::kObjectType);
        status.AddMember("phase", "Running", a);
        json conditions(rapidjson::kArrayType);
        conditions.PushBack(condition("Initialized", "True", now, a), a);
        conditions.PushBack(condition("Ready", now_ready ? "True" : "False", now, a,
                                      now_ready ? nullptr : "ContainersNotReady"),
                            a);
        conditions.PushBack(condition("ContainersReady", now_ready ? "True" : "False", now, a), a);
        conditions.PushBack(condition("PodScheduled", "True", now, a), a);
        status.AddMember("conditions", conditions, a);
        const std::string start_time = start ? now : string_at(p->doc, "status.startTime");
        status.AddMember("startTime", json(start_time.c_str(), a), a);
        std::string ip = string_at(p->doc, "status.podIP");
        if (ip.empty()) {
            ++next_ip;
            ip = "10.244." + std::to_string((next_ip / 250) % 250) + "." +
                 std::to_string(next_ip % 250 + 1);
        }
        status.AddMember("podIP", json(ip.c_str(), a), a);
        status.AddMember("hostIP", "10.0.0.1", a);
        // The lists a kubelet reports beside them (one IPv4 each: a single-stack node).
        json pod_ips(rapidjson::kArrayType), host_ips(rapidjson::kArrayType);
        json pod_ip(rapidjson::kObjectType), host_ip(rapidjson::kObjectType);
        pod_ip.AddMember("ip", json(ip.c_str(), a), a);
        host_ip.AddMember("ip", "10.0.0.1", a);
        pod_ips.PushBack(pod_ip, a);
        host_ips.PushBack(host_ip, a);
        status.AddMember("podIPs", pod_ips, a);
        status.AddMember("hostIPs", host_ips, a);
        status.AddMember("qosClass", json(qos_class(p->doc).c_str(), a), a);
        json statuses(rapidjson::kArrayType);
        if (const json* containers = find_path(p->doc, "spec.containers");
            containers && containers->IsArray()) {
            for (const auto& c : containers->GetArray()) {
                json s(rapidjson::kObjectType);
                s.AddMember("name", json(string_at(c, "name").c_str(), a), a);
                s.AddMember("ready", now_ready, a);
                s.AddMember("started", true, a);
                s.AddMember("restartCount", 0, a);
                // What the kubelet reports and typed clients require (imageID is required in
                // the OpenAPI schema): the resolved image digest and the runtime's container ID.
                const std::string image = string_at(c, "image");
                s.AddMember("image", json(image.c_str(), a), a);
                // The repository without tag or digest, as containerd reports it.
                std::string repository = image.substr(0, image.find('@'));
                if (const auto colon = repository.rfind(':');
                    colon != std::string::npos && repository.find('/', colon) == std::string::npos)
                    repository.resize(colon);
                if (repository.find('/') == std::string::npos)
                    repository = "docker.io/library/" + repository;
                const std::string image_id = repository + "@sha256:" + hex_digest(image);
                s.AddMember("imageID", json(image_id.c_str(), a), a);
                const std::string container_id =
                    "containerd://" +
                    hex_digest(p->namespace_ + "/" + p->name + "/" + string_at(c, "name"));
                s.AddMember("containerID", json(container_id.c_str(), a), a);
                s.AddMember("lastState", json(rapidjson::kObjectType), a);
                json state(rapidjson::kObjectType);
                json running_state(rapidjson::kObjectType);
                running_state.AddMember("startedAt", json(start_time.c_str(), a), a);
                state.AddMember("running", running_state, a);
                s.AddMember("state", state, a);
                if (const json* resources = find_path(c, "resources"))
                    s.AddMember("resources", json(*resources, a), a);
                statuses.PushBack(s, a);
            }
        }
        status.AddMember("containerStatuses", statuses, a);
        set_path(next, "status", std::move(status), a);
        (void)store.update(pods, p->namespace_, p->name, std::move(next),
                           write_mode::internal_status);
        return false;
    }

    std::optional<pod_usage> usage_of(const stored_object& pod) const {
        // Read for every pod of every PodMetrics list: what the pod's version fixes, once.
        if (!pod.usage_facts) {
            pod_usage_facts facts;
            facts.running = text_at(pod.doc, "status.phase") == "Running";
            facts.memory_bytes =
                quantity_milli(annotation_text(pod.doc, "sim.hpaplus.io/memory-usage"),
                               64LL * 1024 * 1024 * 1000) /
                1000;
            if (const auto own = annotation_text(pod.doc, "sim.hpaplus.io/cpu-usage"); !own.empty())
                facts.cpu_milli = quantity_milli(own, 0);
            pod.usage_facts = facts;
        }
        const pod_usage_facts& facts = *pod.usage_facts;
        if (!facts.running) return std::nullopt;
        pod_usage u;
        u.memory_bytes = facts.memory_bytes;
        if (facts.cpu_milli) {
            u.cpu_milli = *facts.cpu_milli;
            return u;
        }
        const object_ptr workload = workload_of(const_cast<object_store&>(store), pod);
        u.cpu_milli = 1; // an idle process still uses a little
        if (!workload) return u;
        if (const auto mem = annotation_text(workload->doc, "sim.hpaplus.io/memory-per-pod");
            !mem.empty())
            u.memory_bytes = quantity_milli(mem, 0) / 1000;
        const auto load = annotation_text(workload->doc, "sim.hpaplus.io/cpu-load");
        // A workload that sheds readiness under load keeps its unready pods busy.
        const bool sheds = unready_above_milli(*workload) > 0;
        if (load.empty() || (!sheds && !pod_ready(pod)) || pod_terminating(pod)) return u;
        const auto& by_workload = sheds ? running_by_workload : ready_by_workload;
        const auto counted = by_workload.find(text_at(workload->doc, "metadata.uid"));
        const std::int64_t sharing = counted == by_workload.end() ? 1 : counted->second;
        u.cpu_milli =
            std::max<std::int64_t>(1, quantity_milli(load, 0) / std::max<std::int64_t>(1, sharing));
        return u;
    }

    void schedule() {
        if (stopped) return;
        timer->expires_after(options.tick);
        timer->async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
            if (ec || self->stopped) return;
            self->tick();
            self->schedule();
        });
    }
};

workload_model::workload_model(asio::any_io_executor executor, object_store& store,
                               workload_options options)
    : impl_(std::make_shared<impl>(executor, store, std::move(options))) {
    impl_->timer = std::make_unique<asio::steady_timer>(executor);
    store.on_change([model = std::weak_ptr<impl>(impl_)](collection& c, const watch_event& e) {
        if (const auto self = model.lock()) self->observe(c, e);
    });
}

workload_model::~workload_model() {
    stop();
}

void workload_model::use_admission(admission& chain) {
    impl_->admission_chain = &chain;
}

void workload_model::start() {
    // The node registers before the server answers anyone, so that it is part of every snapshot
    // (a node appearing at the first step would make a restored store move on at once).
    impl_->ensure_node();
    // So is what every namespace holds from the start (default ServiceAccount, kube-root-ca.crt).
    publish_namespace_defaults(impl_->store, impl_->options.root_ca_pem);
    impl_->schedule();
}

void workload_model::stop() {
    impl_->stopped = true;
    impl_->timer->cancel();
}

void workload_model::tick() {
    impl_->tick();
}

const container_log* workload_model::log_of(std::string_view uid,
                                            std::string_view container) const {
    return impl_->logs.find(uid, container);
}

std::optional<pod_usage> workload_model::usage_of(const stored_object& pod) const {
    return impl_->usage_of(pod);
}

namespace {

// statsapi's CPUStats and MemoryStats at `time` (RFC 3339).
json cpu_stats(const std::string& time, std::int64_t milli, double seconds, json_alloc& a) {
    json cpu(rapidjson::kObjectType);
    cpu.AddMember("time", json(time.c_str(), a), a);
    cpu.AddMember("usageNanoCores", static_cast<std::uint64_t>(milli) * 1000000, a);
    cpu.AddMember("usageCoreNanoSeconds", static_cast<std::uint64_t>(seconds * 1e9), a);
    return cpu;
}

json memory_stats(const std::string& time, std::int64_t bytes, std::optional<std::int64_t> total,
                  json_alloc& a) {
    json memory(rapidjson::kObjectType);
    memory.AddMember("time", json(time.c_str(), a), a);
    if (total) memory.AddMember("availableBytes", std::max<std::int64_t>(0, *total - bytes), a);
    memory.AddMember("usageBytes", bytes, a);
    memory.AddMember("workingSetBytes", bytes, a);
    memory.AddMember("rssBytes", bytes, a);
    memory.AddMember("pageFaults", 0, a);
    memory.AddMember("majorPageFaults", 0, a);
    return memory;
}

} // namespace

std::optional<std::string> workload_model::stats_summary(const std::string& node) const {
    if (node != impl_->options.node_name) return std::nullopt;
    collection* pods = impl_->store.find("", "v1", "pods");
    collection* nodes = impl_->store.find("", "v1", "nodes");
    const object_ptr node_object = nodes ? impl_->store.get(*nodes, "", node) : nullptr;
    if (!pods || !node_object) return std::nullopt;
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    const std::string time = core::format_rfc3339(core::wall_now());
    std::int64_t node_cpu = 0, node_memory = 0;
    double node_seconds = 0;
    json pod_list(rapidjson::kArrayType);
    for (const auto& [key, p] : pods->objects) {
        if (text_at(p->doc, "spec.nodeName") != node) continue;
        const auto use = usage_of(*p);
        if (!use) continue;
        const double seconds = cpu_seconds_of(*p);
        node_cpu += use->cpu_milli;
        node_memory += use->memory_bytes;
        node_seconds += seconds;
        json entry(rapidjson::kObjectType);
        json ref(rapidjson::kObjectType);
        ref.AddMember("name", json(p->name.c_str(), a), a);
        ref.AddMember("namespace", json(p->namespace_.c_str(), a), a);
        ref.AddMember("uid", json(string_at(p->doc, "metadata.uid").c_str(), a), a);
        entry.AddMember("podRef", ref, a);
        const std::string started = string_at(p->doc, "status.startTime");
        entry.AddMember("startTime", json(started.c_str(), a), a);
        // The pod's use spread over its containers as its PodMetrics spread it.
        json containers(rapidjson::kArrayType);
        const json* spec = find_path(p->doc, "spec.containers");
        const std::int64_t n = spec && spec->IsArray() && !spec->Empty() ? spec->Size() : 1;
        for (std::int64_t i = 0; i < n; ++i) {
            const bool first = i == 0;
            json c(rapidjson::kObjectType);
            const std::string name =
                spec && spec->IsArray() && !spec->Empty()
                    ? string_at((*spec)[static_cast<rapidjson::SizeType>(i)], "name")
                    : "app";
            c.AddMember("name", json(name.c_str(), a), a);
            c.AddMember("startTime", json(started.c_str(), a), a);
            c.AddMember("cpu",
                        cpu_stats(time, use->cpu_milli / n + (first ? use->cpu_milli % n : 0),
                                  seconds / static_cast<double>(n), a),
                        a);
            c.AddMember("memory",
                        memory_stats(time,
                                     use->memory_bytes / n + (first ? use->memory_bytes % n : 0),
                                     std::nullopt, a),
                        a);
            containers.PushBack(c, a);
        }
        entry.AddMember("containers", containers, a);
        entry.AddMember("cpu", cpu_stats(time, use->cpu_milli, seconds, a), a);
        entry.AddMember("memory", memory_stats(time, use->memory_bytes, std::nullopt, a), a);
        pod_list.PushBack(entry, a);
    }
    json node_stats(rapidjson::kObjectType);
    node_stats.AddMember("nodeName", json(node.c_str(), a), a);
    node_stats.AddMember(
        "startTime", json(string_at(node_object->doc, "metadata.creationTimestamp").c_str(), a), a);
    node_stats.AddMember("cpu", cpu_stats(time, node_cpu, node_seconds, a), a);
    node_stats.AddMember("memory",
                         memory_stats(time, node_memory, impl_->options.node_memory_bytes, a), a);
    doc.AddMember("node", node_stats, a);
    doc.AddMember("pods", pod_list, a);
    return to_string(doc);
}

double workload_model::cpu_seconds_of(const stored_object& pod) const {
    const auto it = impl_->cpu.find(string_at(pod.doc, "metadata.uid"));
    return it == impl_->cpu.end() ? 0.0 : it->second.at(impl_->last_tick);
}

} // namespace hpaplus::sim
