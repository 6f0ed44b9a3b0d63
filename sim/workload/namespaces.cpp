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

json_doc parsed(const std::string& text) {
    json_doc doc;
    doc.Parse(text.c_str());
    return doc;
}

constexpr const char* root_ca_description =
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
    "guaranteed across distributions of Kubernetes clusters.";

void publish_root_ca(object_store& store, collection& configmaps, const std::string& ns,
                     const std::string& pem) {
    const std::string name = "kube-root-ca.crt";
    const object_ptr current = store.get(configmaps, ns, name);
    if (current) {
        const json* data = find_path(current->doc, "data");
        const json* ca = member_of(data, "ca.crt");
        if (ca && ca->IsString() &&
            std::string_view(ca->GetString(), ca->GetStringLength()) == pem &&
            data->MemberCount() == 1)
            return;
        json_doc next = clone(current->doc);
        json fresh(rapidjson::kObjectType);
        fresh.AddMember("ca.crt", json(pem.c_str(), next.GetAllocator()), next.GetAllocator());
        set_path(next, "data", std::move(fresh), next.GetAllocator());
        (void)store.update(configmaps, ns, name, std::move(next), write_mode::internal);
        return;
    }
    json_doc doc = parsed(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
                          R"(","annotations":{}},"data":{}})");
    auto& a = doc.GetAllocator();
    doc["metadata"]["annotations"].AddMember("kubernetes.io/description",
                                             json(root_ca_description, a), a);
    doc["data"].AddMember("ca.crt", json(pem.c_str(), a), a);
    (void)store.create(configmaps, ns, std::move(doc));
}

} // namespace

void publish_namespace_defaults(object_store& store, const std::string& root_ca_pem) {
    collection* namespaces = store.find("", "v1", "namespaces");
    collection* accounts = store.find("", "v1", "serviceaccounts");
    collection* configmaps = store.find("", "v1", "configmaps");
    if (!namespaces || !accounts || !configmaps) return;
    std::vector<std::string> active;
    for (const auto& [key, ns] : namespaces->objects)
        if (!namespace_terminating(*ns)) active.push_back(ns->name);
    for (const std::string& ns : active) {
        if (!store.get(*accounts, ns, "default"))
            (void)store.create(
                *accounts, ns,
                parsed(
                    R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}})"));
        if (!root_ca_pem.empty()) publish_root_ca(store, *configmaps, ns, root_ca_pem);
    }
}

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
