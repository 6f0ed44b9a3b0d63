// sim/workload/readiness.cpp — see the header.
#include "sim/workload/readiness.hpp"

#include "sim/json_util.hpp"
#include "sim/pod_state.hpp"
#include "sim/workload/resize.hpp"

namespace hpaplus::sim {

std::int64_t unready_above_milli(const stored_object& workload) {
    const std::string threshold = annotation(workload.doc, "sim.hpaplus.io/unready-above");
    return threshold.empty() ? 0 : std::max<std::int64_t>(0, quantity_milli(threshold, 0));
}

void write_pod_ready(object_store& store, collection& pods, const stored_object& pod, bool ready,
                     const std::string& now) {
    json_doc next = clone(pod.doc);
    // The copy is ours to change (find_path answers const for the documents it reads).
    auto at = [&](std::string_view path) { return const_cast<json*>(find_path(next, path)); };
    auto& a = next.GetAllocator();
    const char* status = ready ? "True" : "False";
    if (json* conditions = at("status.conditions"); conditions && conditions->IsArray()) {
        for (auto& c : conditions->GetArray()) {
            const std::string_view type = text_at(c, "type");
            if (type != "Ready" && type != "ContainersReady") continue;
            set_path(c, "status", json(status, a), a);
            set_path(c, "lastTransitionTime", json(now.c_str(), a), a);
            if (c.HasMember("reason")) c.RemoveMember("reason");
            if (!ready) set_path(c, "reason", json("ContainersNotReady", a), a);
        }
    }
    if (json* statuses = at("status.containerStatuses"); statuses && statuses->IsArray())
        for (auto& s : statuses->GetArray())
            set_path(s, "ready", json(ready), a);
    (void)store.update(pods, pod.namespace_, pod.name, std::move(next),
                       write_mode::internal_status);
}

} // namespace hpaplus::sim
