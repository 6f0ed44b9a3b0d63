// sim/apiserver/pod_rules.cpp — pods/resize, pods/eviction and pod update rules.
#include "sim/apiserver/pod_rules.hpp"

#include "sim/pod_state.hpp"

#include <charconv>
#include <cmath>

namespace hpaplus::sim {
namespace {

api_error forbidden_resize(const std::string& pod, const std::string& message) {
    resource_type pods;
    pods.version = "v1";
    pods.plural = "pods";
    pods.kind = "Pod";
    return invalid(pods, pod, {{"spec", "Forbidden: " + message}});
}

// Merges the containers of `patch` into `pod` by name (strategic merge on the containers lists).
void merge_containers(json_doc& pod, const json& patch) {
    auto& a = pod.GetAllocator();
    for (const char* list : {"spec.containers", "spec.initContainers"}) {
        const json* incoming = find_path(patch, list);
        json* existing = const_cast<json*>(find_path(pod, list));
        if (!incoming || !incoming->IsArray() || !existing || !existing->IsArray()) continue;
        for (const auto& c : incoming->GetArray()) {
            const std::string name = string_at(c, "name");
            for (auto& e : existing->GetArray()) {
                if (string_at(e, "name") != name) continue;
                if (const json* r = find_path(c, "resources")) {
                    json* target = const_cast<json*>(find_path(e, "resources"));
                    if (!target) {
                        set_path(e, "resources", json(rapidjson::kObjectType), a);
                        target = const_cast<json*>(find_path(e, "resources"));
                    }
                    merge_patch(*target, *r, a);
                }
            }
        }
    }
}

// The spec with resources (and the fields a resize may not touch anyway) taken out.
json_doc spec_without_resources(const json& pod) {
    json_doc spec = clone(*find_path(pod, "spec"));
    for (const char* list : {"containers", "initContainers"}) {
        if (json* cs = const_cast<json*>(find_path(spec, list)); cs && cs->IsArray())
            for (auto& c : cs->GetArray())
                erase_path(c, "resources");
    }
    return spec;
}

} // namespace

api_result<json_doc> resize_pod(const stored_object& pod, const json& body,
                                const std::string& patch_type) {
    json_doc next = clone(pod.doc);
    if (patch_type.find("application/json-patch+json") == 0) {
        if (auto e = json_patch(next, body))
            return api_error{422, "Invalid", *e, pod.name, "", "pods", {}, std::nullopt};
    } else {
        merge_containers(next, body); // strategic merge by container name (PUT bodies too)
    }
    // Only resources may change through this subresource, and only cpu and memory.
    if (!equal(spec_without_resources(pod.doc), spec_without_resources(next)))
        return forbidden_resize(
            pod.name,
            "only cpu and memory resources of containers may be changed through pods/resize");
    for (const json* c : all_containers(next)) {
        for (const char* kind : {"requests", "limits"}) {
            const json* list = find_path(*c, std::string("resources.") + kind);
            if (!list || !list->IsObject()) continue;
            for (const auto& m : list->GetObject()) {
                const std::string name = m.name.GetString();
                if (name != "cpu" && name != "memory") continue;
                if (!quantity_of(&m.value))
                    return forbidden_resize(pod.name, "invalid quantity for " + name +
                                                          " in container " + string_at(*c, "name"));
            }
        }
    }
    for (std::size_t i = 0; i < all_containers(pod.doc).size(); ++i) {
        const json* before = all_containers(pod.doc)[i];
        const json* after = all_containers(next)[i];
        for (const char* kind : {"requests", "limits"})
            for (const char* name : {"cpu", "memory"})
                if (container_resource(*before, kind, name) &&
                    !container_resource(*after, kind, name))
                    return forbidden_resize(pod.name, std::string("resource ") + kind +
                                                          " may not be removed");
    }
    if (qos_class(pod.doc) != qos_class(next))
        return forbidden_resize(pod.name, "Pod QOS Class may not change as a result of resizing");
    return next;
}

std::optional<api_error> check_pod_update(const resource_type& t, const json& before,
                                          const json& after) {
    if (t.plural != "pods" || !t.group.empty()) return std::nullopt;
    const json* old_spec = find_path(before, "spec");
    const json* new_spec = find_path(after, "spec");
    if (!old_spec || !new_spec) return std::nullopt;
    auto mutable_removed = [](const json& spec) {
        json_doc s = clone(spec);
        for (const char* list : {"containers", "initContainers"})
            if (json* cs = const_cast<json*>(find_path(s, list)); cs && cs->IsArray())
                for (auto& c : cs->GetArray())
                    erase_path(c, "image");
        erase_path(s, "activeDeadlineSeconds");
        erase_path(s, "tolerations");
        return s;
    };
    if (equal(mutable_removed(*old_spec), mutable_removed(*new_spec))) return std::nullopt;
    return invalid(
        t, string_at(before, "metadata.name"),
        {{"spec",
          "Forbidden: pod updates may not change fields other than `spec.containers[*].image`, "
          "`spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only "
          "additions to existing tolerations); resources change through the pods/resize "
          "subresource"}});
}

std::optional<api_error> check_disruption_budgets(object_store& store, const stored_object& pod) {
    // Evicting an unhealthy pod, or one already on its way, never costs budget.
    if (!pod_ready(pod) || pod_terminating(pod)) return std::nullopt;
    collection* pdbs = store.find("policy", "v1", "poddisruptionbudgets");
    collection* pods = store.find("", "v1", "pods");
    if (!pdbs || !pods) return std::nullopt;
    for (const auto& [k, pdb] : pdbs->objects) {
        if (pdb->namespace_ != pod.namespace_) continue;
        const auto selector = label_selector_of(find_path(pdb->doc, "spec.selector"));
        if (!selector || !selector->matches(pod.labels)) continue;
        std::int64_t expected = 0, healthy = 0;
        for (const auto& [pk, p] : pods->objects) {
            if (p->namespace_ != pod.namespace_ || !selector->matches(p->labels)) continue;
            if (pod_terminating(*p)) continue; // neither expected nor healthy: it is going
            ++expected;
            if (pod_ready(*p)) ++healthy;
        }
        auto absolute =
            [&](const json* v) -> std::int64_t { // int, or a percent of expected (rounded up)
            if (!v) return -1;
            if (v->IsInt64()) return v->GetInt64();
            if (v->IsString()) {
                // An integer percentage, as intstr's GetScaledValueFromIntOrPercent reads it;
                // anything else counts as unset.
                const std::string_view s(v->GetString(), v->GetStringLength());
                int percent = -1;
                if (s.size() < 2 || s.back() != '%') return -1;
                const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size() - 1, percent);
                if (ec != std::errc{} || end != s.data() + s.size() - 1 || percent < 0) return -1;
                return (static_cast<std::int64_t>(expected) * percent + 99) / 100;
            }
            return -1;
        };
        std::int64_t desired_healthy = 0;
        if (const auto min = absolute(find_path(pdb->doc, "spec.minAvailable")); min >= 0)
            desired_healthy = min;
        else if (const auto max = absolute(find_path(pdb->doc, "spec.maxUnavailable")); max >= 0)
            desired_healthy = expected - max;
        if (healthy - 1 >= desired_healthy) continue;
        api_error e = too_many_requests(10);
        e.message = "Cannot evict pod as it would violate the pod's disruption budget.";
        e.causes = {{"DisruptionBudget",
                     "The disruption budget " + pdb->name + " needs " +
                         std::to_string(desired_healthy) + " healthy pods and has " +
                         std::to_string(healthy) + " currently",
                     ""}};
        return e;
    }
    return std::nullopt;
}

} // namespace hpaplus::sim
