// sim/apiserver/priority.cpp — PriorityClasses and the Priority admission plugin
// (plugin/pkg/admission/priority in upstream).
#include "sim/apiserver/priority.hpp"

#include <string>

namespace hpaplus::sim {
namespace {

bool is_priority_class(const resource_type& t) {
    return t.group == "scheduling.k8s.io" && t.plural == "priorityclasses";
}

collection* classes(object_store& store) {
    return store.find("scheduling.k8s.io", "v1", "priorityclasses");
}

// The global default class: of several (only possible through races upstream), the lowest value.
object_ptr default_class(object_store& store) {
    object_ptr best;
    if (collection* c = classes(store))
        for (const auto& [key, o] : c->objects) {
            const json* global = find_path(o->doc, "globalDefault");
            if (!global || !global->IsTrue()) continue;
            if (!best || int_at(o->doc, "value") < int_at(best->doc, "value")) best = o;
        }
    return best;
}

api_error forbidden(const std::string& resource, const std::string& name, const std::string& why,
                    const std::string& group = "") {
    api_error e;
    e.code = 403;
    e.reason = "Forbidden";
    e.message =
        resource + (group.empty() ? "" : "." + group) + " \"" + name + "\" is forbidden: " + why;
    e.name = name;
    e.group = group;
    e.kind = resource;
    return e;
}

} // namespace

void bootstrap_priority_classes(object_store& store) {
    collection* c = classes(store);
    if (!c) return;
    struct system_class {
        const char* name;
        std::int64_t value;
        const char* description;
    };
    for (const auto& s :
         {system_class{"system-node-critical", 2000001000,
                       "Used for system critical pods that must not be moved from their current "
                       "node."},
          system_class{"system-cluster-critical", 2000000000,
                       "Used for system critical pods that must run in the cluster, but can be "
                       "moved to another node if necessary."}}) {
        json_doc doc(rapidjson::kObjectType);
        auto& a = doc.GetAllocator();
        set_path(doc, "metadata.name", json(s.name, a), a);
        doc.AddMember("value", json(s.value), a);
        doc.AddMember("description", json(s.description, a), a);
        doc.AddMember("preemptionPolicy", json("PreemptLowerPriority"), a);
        (void)store.create(*c, "", std::move(doc));
    }
}

std::optional<api_error> admit_pod_priority(object_store& store, json_doc& pod) {
    auto& a = pod.GetAllocator();
    std::string name = string_at(pod, "spec.priorityClassName");
    std::int64_t priority = 0;
    std::string preemption = "PreemptLowerPriority";
    const auto pod_name = [&] {
        const std::string n = string_at(pod, "metadata.name");
        return n.empty() ? string_at(pod, "metadata.generateName") : n;
    };
    if (name.empty()) {
        if (const object_ptr d = default_class(store)) {
            name = d->name;
            priority = int_at(d->doc, "value");
            preemption = string_at(d->doc, "preemptionPolicy");
        }
    } else {
        collection* c = classes(store);
        const object_ptr found = c ? store.get(*c, "", name) : nullptr;
        if (!found)
            return forbidden("pods", pod_name(),
                             "no PriorityClass with name " + name + " was found");
        priority = int_at(found->doc, "value");
        preemption = string_at(found->doc, "preemptionPolicy");
    }
    if (preemption.empty()) preemption = "PreemptLowerPriority";
    if (const json* given = find_path(pod, "spec.priority");
        given && given->IsInt64() && given->GetInt64() != priority)
        return forbidden("pods", pod_name(),
                         "the integer value of priority (" + std::to_string(given->GetInt64()) +
                             ") must not be provided in pod spec; priority admission controller "
                             "computed " +
                             std::to_string(priority) + " from the given PriorityClass name");
    if (const std::string given = string_at(pod, "spec.preemptionPolicy");
        !given.empty() && given != preemption)
        return forbidden("pods", pod_name(),
                         "the string value of PreemptionPolicy (" + given +
                             ") must not be provided in pod spec; priority admission controller "
                             "computed " +
                             preemption + " from the given PriorityClass name");
    if (!name.empty()) set_path(pod, "spec.priorityClassName", json(name.c_str(), a), a);
    set_path(pod, "spec.priority", json(priority), a);
    set_path(pod, "spec.preemptionPolicy", json(preemption.c_str(), a), a);
    return std::nullopt;
}

void keep_pod_priority(const resource_type& type, json_doc& pod, const json& old) {
    if (!type.group.empty() || type.plural != "pods" || !find_path(pod, "spec")) return;
    auto& a = pod.GetAllocator();
    for (const char* field : {"priority", "preemptionPolicy"}) {
        const std::string path = std::string("spec.") + field;
        if (const json* before = find_path(old, path))
            set_path(pod, path, json(*before, a), a);
        else
            erase_path(pod, path);
    }
}

std::optional<api_error> admit_priority_class(object_store& store, const resource_type& type,
                                              const json& object, const json* old) {
    if (!is_priority_class(type)) return std::nullopt;
    const json* global = member_of(&object, "globalDefault");
    if (!global || !global->IsTrue()) return std::nullopt;
    const object_ptr current = default_class(store);
    const std::string name = string_at(object, "metadata.name");
    if (current && (!old || current->name != name))
        return forbidden("priorityclasses", name,
                         "PriorityClass " + current->name +
                             " is already marked as default. Only one default can exist",
                         "scheduling.k8s.io");
    return std::nullopt;
}

} // namespace hpaplus::sim
