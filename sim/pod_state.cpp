// sim/pod_state.cpp — readings of pod state.
#include "sim/pod_state.hpp"

#include "core/quantity.hpp"

namespace hpaplus::sim {

bool pod_ready(const stored_object& pod) {
    const json* conditions = find_path(pod.doc, "status.conditions");
    if (!conditions || !conditions->IsArray()) return false;
    for (const auto& c : conditions->GetArray())
        if (text_at(c, "type") == "Ready") return text_at(c, "status") == "True";
    return false;
}

namespace {

const json* controller_reference(const stored_object& object) {
    const json* owners = find_path(object.doc, "metadata.ownerReferences");
    if (!owners || !owners->IsArray()) return nullptr;
    for (const auto& o : owners->GetArray())
        if (const json* c = find_path(o, "controller"); c && c->IsTrue()) return &o;
    return nullptr;
}

// The apps/v1 controller of `object` when it is of `kind` (looked up by name, checked by uid).
object_ptr apps_controller(object_store& store, const stored_object& object, const char* kind,
                           const char* plural) {
    const json* ref = controller_reference(object);
    if (!ref || text_at(*ref, "kind") != kind || text_at(*ref, "apiVersion") != "apps/v1")
        return nullptr;
    collection* c = store.find("apps", "v1", plural);
    object_ptr owner = c ? store.get(*c, object.namespace_, string_at(*ref, "name")) : nullptr;
    return owner && text_at(owner->doc, "metadata.uid") == text_at(*ref, "uid") ? owner : nullptr;
}

} // namespace

std::string controller_uid(const stored_object& object) {
    const json* ref = controller_reference(object);
    return ref ? string_at(*ref, "uid") : std::string();
}

std::string controller_key(const stored_object& object, std::string_view kind) {
    const json* ref = controller_reference(object);
    if (!ref || string_at(*ref, "kind") != kind || string_at(*ref, "apiVersion") != "apps/v1")
        return {};
    return object_store::key(object.namespace_, string_at(*ref, "name"));
}

object_ptr workload_of(object_store& store, const stored_object& pod) {
    if (object_ptr set = apps_controller(store, pod, "StatefulSet", "statefulsets")) return set;
    if (object_ptr set = apps_controller(store, pod, "DaemonSet", "daemonsets")) return set;
    object_ptr replica_set = apps_controller(store, pod, "ReplicaSet", "replicasets");
    if (!replica_set) return nullptr;
    object_ptr deployment = apps_controller(store, *replica_set, "Deployment", "deployments");
    return deployment ? deployment : replica_set;
}

bool orphaned(object_store& store, const stored_object& object) {
    const json* ref = controller_reference(object);
    if (!ref || string_at(*ref, "apiVersion") != "apps/v1") return false;
    const std::string kind = string_at(*ref, "kind");
    const char* plural = kind == "Deployment"    ? "deployments"
                         : kind == "ReplicaSet"  ? "replicasets"
                         : kind == "StatefulSet" ? "statefulsets"
                         : kind == "DaemonSet"   ? "daemonsets"
                                                 : nullptr;
    return plural && !apps_controller(store, object, kind.c_str(), plural);
}

std::string_view annotation_text(const json& obj, std::string_view key) {
    const json* annotations = find_path(obj, "metadata.annotations");
    if (!annotations || !annotations->IsObject()) return {};
    const auto it =
        annotations->FindMember(json(key.data(), static_cast<rapidjson::SizeType>(key.size())));
    return it != annotations->MemberEnd() && it->value.IsString()
               ? std::string_view(it->value.GetString(), it->value.GetStringLength())
               : std::string_view();
}

std::string annotation(const json& obj, const std::string& key) {
    return std::string(annotation_text(obj, key));
}

const json* container_resource(const json& container, const char* kind, const char* name) {
    const json* list = find_path(container, std::string("resources.") + kind);
    if (!list || !list->IsObject()) return nullptr;
    const auto it = list->FindMember(name);
    return it == list->MemberEnd() ? nullptr : &it->value;
}

std::optional<core::quantity> quantity_of(const json* v) {
    if (!v || !v->IsString()) return std::nullopt;
    auto q = core::quantity::parse(v->GetString());
    return q ? std::optional<core::quantity>(*q) : std::nullopt;
}

std::vector<const json*> all_containers(const json& pod) {
    std::vector<const json*> out;
    for (const char* list : {"spec.containers", "spec.initContainers"}) {
        if (const json* cs = find_path(pod, list); cs && cs->IsArray())
            for (const auto& c : cs->GetArray())
                out.push_back(&c);
    }
    return out;
}

std::string qos_class(const json& pod) {
    bool any = false;
    bool guaranteed = true;
    for (const json* c : all_containers(pod)) {
        for (const char* name : {"cpu", "memory"}) {
            const auto req = quantity_of(container_resource(*c, "requests", name));
            const auto lim = quantity_of(container_resource(*c, "limits", name));
            any = any || req || lim;
            // requests default to limits; Guaranteed needs limits == requests for both resources
            if (!lim || (req && *req != *lim)) guaranteed = false;
        }
    }
    if (!any) return "BestEffort";
    return guaranteed ? "Guaranteed" : "Burstable";
}

bool pod_terminating(const stored_object& pod) {
    return find_path(pod.doc, "metadata.deletionTimestamp") != nullptr;
}

api_result<pod_deletion> delete_pod(object_store& store, collection& pods, const object_ptr& pod,
                                    std::optional<std::int64_t> grace_seconds,
                                    core::time_point now) {
    std::int64_t grace =
        grace_seconds ? *grace_seconds : int_at(pod->doc, "spec.terminationGracePeriodSeconds", 30);
    const std::string phase = string_at(pod->doc, "status.phase");
    if (string_at(pod->doc, "spec.nodeName").empty() || phase == "Succeeded" || phase == "Failed")
        grace = 0;
    if (grace <= 0) {
        auto removed = store.remove(pods, pod->namespace_, pod->name);
        if (!removed) return removed.error();
        return pod_deletion{*removed, true};
    }
    if (pod_terminating(*pod) &&
        grace >= int_at(pod->doc, "metadata.deletionGracePeriodSeconds", grace))
        return pod_deletion{pod, false}; // already on its way, no sooner
    json_doc next = clone(pod->doc);
    auto& a = next.GetAllocator();
    const std::string at = core::format_rfc3339(now + std::chrono::seconds(grace));
    set_path(next, "metadata.deletionTimestamp", json(at.c_str(), a), a);
    set_path(next, "metadata.deletionGracePeriodSeconds", json(grace), a);
    auto marked =
        store.update(pods, pod->namespace_, pod->name, std::move(next), write_mode::internal);
    if (!marked) return marked.error();
    return pod_deletion{*marked, false};
}

} // namespace hpaplus::sim
