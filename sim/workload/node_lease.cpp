// sim/workload/node_lease.cpp — see the header.
#include "sim/workload/node_lease.hpp"

#include "sim/json_util.hpp"

namespace hpaplus::sim {

void renew_node_lease(object_store& store, const std::string& node, const std::string& now) {
    collection* leases = store.find("coordination.k8s.io", "v1", "leases");
    collection* nodes = store.find("", "v1", "nodes");
    const object_ptr owner = nodes ? store.get(*nodes, "", node) : nullptr;
    if (!leases || !owner) return;
    const std::string ns = "kube-node-lease";
    if (const object_ptr lease = store.get(*leases, ns, node)) {
        json_doc next = clone(lease->doc);
        set_path(next, "spec.renewTime", json(now.c_str(), next.GetAllocator()),
                 next.GetAllocator());
        (void)store.update(*leases, ns, node, std::move(next), write_mode::internal);
        return;
    }
    json_doc doc;
    doc.Parse((R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":")" +
               node + R"(","namespace":"kube-node-lease","ownerReferences":[{"apiVersion":"v1",)" +
               R"("kind":"Node","name":")" + node + R"(","uid":")" +
               string_at(owner->doc, "metadata.uid") + R"("}]},"spec":{"holderIdentity":")" + node +
               R"(","leaseDurationSeconds":40,"renewTime":")" + now + R"("}})")
                  .c_str());
    (void)store.create(*leases, ns, std::move(doc));
}

} // namespace hpaplus::sim
