// sim/workload/resize.cpp — the simulated kubelet's side of an in-place resize (see the header).
#include "sim/workload/resize.hpp"

#include "core/quantity.hpp"

namespace hpaplus::sim {

std::int64_t quantity_milli(std::string_view text, std::int64_t fallback) {
    auto q = core::quantity::parse(text);
    return q ? q->milli_value() : fallback;
}

std::pair<std::int64_t, std::int64_t> pod_requests(const json& pod) {
    std::int64_t cpu = 0, mem = 0;
    for (const char* list : {"spec.containers", "spec.initContainers"}) {
        const json* cs = find_path(pod, list);
        if (!cs || !cs->IsArray()) continue;
        for (const auto& c : cs->GetArray()) {
            if (std::string_view(list) == "spec.initContainers" &&
                string_at(c, "restartPolicy") != "Always")
                continue;
            cpu += quantity_milli(string_at(c, "resources.requests.cpu"), 0);
            mem += quantity_milli(string_at(c, "resources.requests.memory"), 0) / 1000;
        }
    }
    return {cpu, mem};
}

bool resize_wanted(const json& pod) {
    const json* containers = find_path(pod, "spec.containers");
    const json* statuses = find_path(pod, "status.containerStatuses");
    if (!containers || !containers->IsArray() || !statuses || !statuses->IsArray()) return false;
    for (const auto& c : containers->GetArray()) {
        for (const auto& st : statuses->GetArray()) {
            if (string_at(st, "name") != string_at(c, "name")) continue;
            const json* want = find_path(c, "resources");
            const json* have = find_path(st, "resources");
            if ((want == nullptr) != (have == nullptr) || (want && !equal(*want, *have)))
                return true;
        }
    }
    return false;
}

std::pair<std::string, std::string> resize_pending(const collection& pods, const stored_object& pod,
                                                   const std::string& node,
                                                   std::int64_t node_cpu_milli,
                                                   std::int64_t node_memory_bytes) {
    const auto [cpu, mem] = pod_requests(pod.doc);
    std::int64_t used_cpu = 0, used_mem = 0;
    for (const auto& [k, other] : pods.objects) {
        if (other->name == pod.name && other->namespace_ == pod.namespace_) continue;
        if (string_at(other->doc, "spec.nodeName") != node) continue;
        const auto [oc, om] = pod_requests(other->doc);
        used_cpu += oc;
        used_mem += om;
    }
    if (cpu > node_cpu_milli || mem > node_memory_bytes) {
        const bool for_cpu = cpu > node_cpu_milli;
        return {"Infeasible",
                "Node didn't have enough capacity: " + std::string(for_cpu ? "cpu" : "memory") +
                    ", requested: " + std::to_string(for_cpu ? cpu : mem) +
                    ", capacity: " + std::to_string(for_cpu ? node_cpu_milli : node_memory_bytes)};
    }
    if (used_cpu + cpu > node_cpu_milli || used_mem + mem > node_memory_bytes) {
        const bool for_cpu = used_cpu + cpu > node_cpu_milli;
        return {"Deferred",
                "Node didn't have enough resource: " + std::string(for_cpu ? "cpu" : "memory") +
                    ", requested: " + std::to_string(for_cpu ? cpu : mem) +
                    ", used: " + std::to_string(for_cpu ? used_cpu : used_mem)};
    }
    return {};
}

void actuate_resize_of(json_doc& pod, const json& containers) {
    auto& a = pod.GetAllocator();
    json* statuses = const_cast<json*>(find_path(pod, "status.containerStatuses"));
    if (!statuses || !statuses->IsArray() || !containers.IsArray()) return;
    for (const auto& c : containers.GetArray()) {
        for (auto& st : statuses->GetArray()) {
            if (string_at(st, "name") != string_at(c, "name")) continue;
            const json* want = find_path(c, "resources");
            const json* have = find_path(st, "resources");
            bool restart = false;
            if (const json* policies = find_path(c, "resizePolicy");
                policies && policies->IsArray()) {
                for (const auto& policy : policies->GetArray()) {
                    if (string_at(policy, "restartPolicy") != "RestartContainer") continue;
                    const std::string res = string_at(policy, "resourceName");
                    for (const char* kind : {"requests", "limits"}) {
                        const std::string path = std::string(kind) + "." + res;
                        if ((want ? string_at(*want, path) : "") !=
                            (have ? string_at(*have, path) : ""))
                            restart = true;
                    }
                }
            }
            if (want) set_path(st, "resources", json(*want, a), a);
            if (const json* req = want ? find_path(*want, "requests") : nullptr)
                set_path(st, "allocatedResources", json(*req, a), a);
            if (restart) set_path(st, "restartCount", json(int_at(st, "restartCount", 0) + 1), a);
        }
    }
}

} // namespace hpaplus::sim
