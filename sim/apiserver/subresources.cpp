// sim/apiserver/subresources.cpp — the scale subresource (autoscaling/v1 Scale), pods/eviction and
// pods/resize.
#include "sim/apiserver/server.hpp"

#include "sim/apiserver/pod_rules.hpp"
#include "sim/pod_state.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

namespace hpaplus::sim {

// Scale subresource: build autoscaling/v1 Scale from the object.
api_result<std::string> api_server::impl::scale_of(const collection& c, const stored_object& o) {
    const scale_paths& p = *c.type.scale;
    const json* spec = find_path(o.doc, p.spec_replicas);
    if (!spec && c.type.custom)
        return bad_request("the spec replicas field \"" + p.spec_replicas + "\" cannot be found");
    const json* status = find_path(o.doc, p.status_replicas);
    std::string selector;
    if (p.label_selector.empty()) {
        if (const json* s = find_path(o.doc, "spec.selector")) // text form, terms in key order
            if (const auto parsed = label_selector_of(s)) selector = core::to_string(*parsed);
    } else {
        selector = string_at(o.doc, p.label_selector);
    }
    json_doc scale(rapidjson::kObjectType);
    auto& a = scale.GetAllocator();
    scale.AddMember("kind", "Scale", a);
    scale.AddMember("apiVersion", "autoscaling/v1", a);
    json meta(rapidjson::kObjectType);
    for (const char* field : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
        if (const json* v = find_path(o.doc, std::string("metadata.") + field))
            meta.AddMember(json(field, a), json(*v, a), a);
    scale.AddMember("metadata", meta, a);
    json spec_obj(rapidjson::kObjectType);
    const std::int64_t replicas = spec && spec->IsInt64() ? spec->GetInt64() : 0;
    if (replicas != 0) spec_obj.AddMember("replicas", replicas, a); // omitempty: 0 is left out
    scale.AddMember("spec", spec_obj, a);
    json status_obj(rapidjson::kObjectType);
    status_obj.AddMember("replicas", status && status->IsInt64() ? status->GetInt64() : 0, a);
    if (!selector.empty()) status_obj.AddMember("selector", json(selector.c_str(), a), a);
    scale.AddMember("status", status_obj, a);
    return to_string(scale);
}

http_response api_server::impl::write_scale(collection& c, const target& t,
                                            const stored_object& current, const json& scale) {
    if (!scale.IsObject())
        return error_response(bad_request("the body of the request must be a Scale object"));
    const std::string rv = string_at(scale, "metadata.resourceVersion");
    if (!rv.empty() && rv != std::to_string(current.rv))
        return error_response(conflict(c.type, t.name));
    const json* replicas = find_path(scale, "spec.replicas");
    std::int64_t n = 0;
    if (replicas) {
        if (!replicas->IsInt64() || replicas->GetInt64() < 0 || replicas->GetInt64() > INT32_MAX)
            return error_response(
                invalid(c.type, t.name,
                        {{"spec.replicas", "Invalid value: must be greater than or equal to 0"}}));
        n = replicas->GetInt64();
    }
    json_doc next = clone(current.doc);
    set_path(next, c.type.scale->spec_replicas, json(n), next.GetAllocator());
    auto stored = store.update(c, t.ns, t.name, std::move(next), write_mode::internal);
    if (!stored) return error_response(stored.error());
    auto body = scale_of(c, **stored);
    return body ? ok(*body) : error_response(body.error());
}

// pods/eviction (policy/v1 Eviction): deletes the pod unless a disruption budget forbids it.
http_response api_server::impl::evict(const http_request& r, collection& pods,
                                      const stored_object& pod) {
    if (r.method != "POST") return error_response(method_not_supported(pods.type, r.method));
    json_doc body;
    if (auto e = parse_body(r, body)) return error_response(*e);
    if (!body.IsObject())
        return error_response(bad_request("the body of the request must be an Eviction object"));
    if (const std::string name = string_at(body, "metadata.name");
        !name.empty() && name != pod.name)
        return error_response(bad_request("name in URL does not match name in Eviction object"));
    if (auto e = check_disruption_budgets(store, pod)) return error_response(*e);
    // The pod is deleted with the Eviction's DeleteOptions: gracefully, unless they say 0.
    std::optional<std::int64_t> grace;
    if (const json* g = find_path(body, "deleteOptions.gracePeriodSeconds"); g && g->IsInt64())
        grace = g->GetInt64();
    auto deleted =
        delete_pod(store, pods, store.get(pods, pod.namespace_, pod.name), grace, now_time());
    if (!deleted) return error_response(deleted.error());
    return ok(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})",
              201);
}

// pods/resize: only container resources change; the simulated kubelet then actuates it.
http_response api_server::impl::resize(const http_request& r, collection& pods,
                                       const stored_object& pod) {
    json_doc body;
    if (auto e = parse_body(r, body)) return error_response(*e);
    const std::string type =
        r.method == "PATCH" ? std::string(r.header("content-type")) : std::string();
    if (r.method == "PUT") {
        const std::string rv = string_at(body, "metadata.resourceVersion");
        if (!rv.empty() && rv != std::to_string(pod.rv))
            return error_response(conflict(pods.type, pod.name));
    }
    auto next = resize_pod(pod, body, type);
    if (!next) return error_response(next.error());
    auto stored =
        store.update(pods, pod.namespace_, pod.name, std::move(*next), write_mode::internal);
    return stored ? ok((*stored)->text) : error_response(stored.error());
}

} // namespace hpaplus::sim
