// sim/workload/namespaces.cpp — the namespace controller: deletes what a Terminating namespace
// holds, then the namespace.
#include "sim/workload/namespaces.hpp"

#include "sim/json_util.hpp"
#include "sim/pod_state.hpp"

#include <string>
#include <vector>

namespace hpaplus::sim {
namespace {

// Deletes what `ns` holds; true when nothing is left (pods still stopping are left).
bool empty_namespace(object_store& store, const std::string& ns, core::time_point now) {
    bool left = false;
    for (collection* c : store.collections()) {
        if (!c->type.namespaced) continue;
        std::vector<object_ptr> doomed;
        for (const auto& [key, o] : c->objects)
            if (o->namespace_ == ns) doomed.push_back(o);
        const bool pods = c->type.group.empty() && c->type.plural == "pods";
        for (const object_ptr& o : doomed) {
            if (!pods) {
                (void)store.remove(*c, ns, o->name);
                continue;
            }
            if (pod_terminating(*o)) {
                left = true; // its kubelet removes it once its containers stopped
                continue;
            }
            const auto deleted = delete_pod(store, *c, o, std::nullopt, now);
            if (!deleted || !deleted->removed) left = true;
        }
    }
    return !left;
}

} // namespace

bool namespace_terminating(const stored_object& ns) {
    return find_path(ns.doc, "metadata.deletionTimestamp") != nullptr;
}

bool finalize_namespace(object_store& store, const std::string& ns, core::time_point now) {
    collection* namespaces = store.find("", "v1", "namespaces");
    const object_ptr current = namespaces ? store.get(*namespaces, "", ns) : nullptr;
    if (!current) return true;
    if (!namespace_terminating(*current) || !empty_namespace(store, ns, now)) return false;
    (void)store.remove(*namespaces, "", ns);
    return true;
}

} // namespace hpaplus::sim
