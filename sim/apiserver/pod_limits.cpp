// sim/apiserver/pod_limits.cpp — see the header. Quantities are summed in milli-units (CPU in
// millicores, memory in millibytes: exact for every size a node holds).
#include "sim/apiserver/pod_limits.hpp"

#include "core/quantity.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace hpaplus::sim {
namespace {

using usage = std::map<std::string, std::int64_t>; // resource → milli-units

std::optional<core::quantity> quantity_of(const json& v) {
    if (!v.IsString()) return std::nullopt;
    auto q = core::quantity::parse(v.GetString());
    if (!q) return std::nullopt;
    return *q;
}

std::vector<object_ptr> in_namespace(object_store& store, const char* plural,
                                     const std::string& ns) {
    std::vector<object_ptr> out;
    if (collection* c = store.find("", "v1", plural))
        for (const auto& [key, o] : namespace_range(*c, ns))
            out.push_back(o);
    return out;
}

// Sets each resource of `defaults` that the container's `field` (requests or limits) lacks;
// the names set, sorted.
std::vector<std::string> fill(json& container, const char* field, const json& defaults,
                              json_alloc& a) {
    std::vector<std::string> set;
    if (!defaults.IsObject() || defaults.MemberCount() == 0) return set;
    if (!container.HasMember("resources") || !container["resources"].IsObject())
        container.AddMember("resources", json(rapidjson::kObjectType), a);
    json& resources = container["resources"];
    if (!resources.HasMember(field) || !resources[field].IsObject())
        resources.AddMember(json(field, a), json(rapidjson::kObjectType), a);
    json& list = resources[field];
    for (const auto& [k, v] : defaults.GetObject())
        if (!list.HasMember(k)) {
            list.AddMember(json(k, a), json(v, a), a);
            set.emplace_back(k.GetString());
        }
    std::sort(set.begin(), set.end());
    return set;
}

std::string joined(const std::vector<std::string>& items, const char* separator) {
    std::string out;
    for (const auto& i : items)
        out += (out.empty() ? "" : separator) + i;
    return out;
}

// A Container LimitRange item's defaults as upstream's SetDefaults_LimitRangeItem fills them:
// default from max, defaultRequest from default, then from min.
std::pair<json_doc, json_doc> container_defaults(const json& item) {
    json_doc limits(rapidjson::kObjectType), requests(rapidjson::kObjectType);
    const auto merge = [](json_doc& into, const json* from) {
        if (!from || !from->IsObject()) return;
        for (const auto& [k, v] : from->GetObject())
            if (!into.HasMember(k))
                into.AddMember(json(k, into.GetAllocator()), json(v, into.GetAllocator()),
                               into.GetAllocator());
    };
    merge(limits, find_path(item, "default"));
    merge(limits, find_path(item, "max"));
    merge(requests, find_path(item, "defaultRequest"));
    merge(requests, &limits);
    merge(requests, find_path(item, "min"));
    return {std::move(limits), std::move(requests)};
}

// The Container items of the namespace's LimitRanges.
std::vector<const json*> container_items(const std::vector<object_ptr>& ranges) {
    std::vector<const json*> out;
    for (const auto& r : ranges)
        if (const json* limits = find_path(r->doc, "spec.limits"); limits && limits->IsArray())
            for (const auto& item : limits->GetArray())
                if (text_at(item, "type") == "Container") out.push_back(&item);
    return out;
}

// What a pod counts against quotas (upstream's pod evaluator): itself, and its containers'
// requests and limits, with `cpu`/`memory` meaning the requests.
usage pod_usage(const json& pod) {
    usage u{{"pods", 1000}, {"count/pods", 1000}};
    if (const json* list = find_path(pod, "spec.containers"); list && list->IsArray())
        for (const auto& c : list->GetArray())
            for (const char* field : {"requests", "limits"})
                if (const json* m = find_path(c, std::string("resources.") + field);
                    m && m->IsObject())
                    for (const auto& [k, v] : m->GetObject())
                        if (const auto q = quantity_of(v)) {
                            const std::string name = k.GetString();
                            u[std::string(field) + "." + name] += q->milli_value();
                            if (std::string_view(field) == "requests") u[name] += q->milli_value();
                        }
    return u;
}

bool counts_against_quota(const stored_object& pod) {
    const std::string_view phase = text_at(pod.doc, "status.phase");
    return phase != "Succeeded" && phase != "Failed";
}

usage namespace_usage(object_store& store, const std::string& ns) {
    usage total;
    for (const auto& p : in_namespace(store, "pods", ns))
        if (counts_against_quota(*p))
            for (const auto& [k, v] : pod_usage(p->doc))
                total[k] += v;
    return total;
}

// A milli-unit amount in the quantity form the server prints: memory in binary units when exact.
std::string text_of(const std::string& resource, std::int64_t milli) {
    const bool memory = resource.find("memory") != std::string::npos ||
                        resource.find("storage") != std::string::npos;
    const bool whole = milli % 1000 == 0;
    if (resource == "pods" || resource.starts_with("count/") || (whole && !memory))
        return core::quantity::from_value(milli / 1000).to_string();
    if (memory && whole)
        return core::quantity::from_value(milli / 1000, core::quantity_format::binary_si)
            .to_string();
    return core::quantity::from_milli(milli).to_string();
}

std::string pretty(const usage& u) {
    std::vector<std::string> parts;
    for (const auto& [k, v] : u)
        parts.push_back(k + "=" + text_of(k, v));
    return joined(parts, ",");
}

// The resources a quota's hard limits that a pod must state (compute resources): a pod without
// them cannot be counted.
bool must_be_specified(const std::string& resource) {
    return resource == "cpu" || resource == "memory" || resource.starts_with("requests.") ||
           resource.starts_with("limits.");
}

std::string display_name(const json& pod) {
    const std::string name = string_at(pod, "metadata.name");
    return name.empty() ? string_at(pod, "metadata.generateName") : name;
}

api_error forbidden(const json& pod, const std::string& why) {
    api_error e;
    e.code = 403;
    e.reason = "Forbidden";
    e.message = "pods \"" + display_name(pod) + "\" is forbidden: " + why;
    e.name = display_name(pod);
    e.kind = "pods";
    return e;
}

// LimitRanger's min (a container's requests at least) or max (its limits at most) of one
// Container item, in upstream's words.
void check_bounds(const json& item, const json& container, bool min,
                  std::vector<std::string>& violations) {
    const json* bounds = find_path(item, min ? "min" : "max");
    if (!bounds || !bounds->IsObject()) return;
    const json* asked = find_path(container, min ? "resources.requests" : "resources.limits");
    const std::string what = min ? "request" : "limit";
    for (const auto& [k, v] : bounds->GetObject()) {
        const auto bound = quantity_of(v);
        if (!bound) continue;
        const json* value = member_of(asked, k.GetString());
        const auto have = value ? quantity_of(*value) : std::nullopt;
        const std::string head = std::string(min ? "minimum " : "maximum ") + k.GetString() +
                                 " usage per Container is " + bound->to_string();
        if (!have)
            violations.push_back(head + ".  No " + what + " is specified");
        else if (min ? *have < *bound : *have > *bound)
            violations.push_back(head + ", but " + what + " is " + have->to_string());
    }
}

} // namespace

void apply_limit_ranges(object_store& store, const std::string& ns, json_doc& pod) {
    auto& a = pod.GetAllocator();
    if (string_at(pod, "metadata.name").empty() && !string_at(pod, "metadata.generateName").empty())
        set_path(pod, "metadata.name",
                 json(generated_name(string_at(pod, "metadata.generateName")).c_str(), a), a);
    const auto ranges = in_namespace(store, "limitranges", ns);
    const auto items = container_items(ranges);
    if (items.empty()) return;
    std::vector<std::string> notes;
    for (const char* list : {"spec.initContainers", "spec.containers"}) {
        json* containers = const_cast<json*>(find_path(pod, list));
        if (!containers || !containers->IsArray()) continue;
        const char* who =
            std::string_view(list) == "spec.containers" ? "container" : "init container";
        for (auto& c : containers->GetArray()) {
            std::vector<std::string> requests, limits;
            for (const json* item : items) {
                auto [default_limits, default_requests] = container_defaults(*item);
                for (auto& r : fill(c, "requests", default_requests, a))
                    requests.push_back(r);
                for (auto& l : fill(c, "limits", default_limits, a))
                    limits.push_back(l);
            }
            const std::string name = string_at(c, "name");
            if (!requests.empty())
                notes.push_back(joined(requests, ", ") + " request for " + who + " " + name);
            if (!limits.empty())
                notes.push_back(joined(limits, ", ") + " limit for " + who + " " + name);
        }
    }
    if (notes.empty()) return;
    json* annotations = const_cast<json*>(find_path(pod, "metadata.annotations"));
    if (!annotations || !annotations->IsObject()) {
        set_path(pod, "metadata.annotations", json(rapidjson::kObjectType), a);
        annotations = const_cast<json*>(find_path(pod, "metadata.annotations"));
    }
    const std::string text = "LimitRanger plugin set: " + joined(notes, "; ");
    annotations->RemoveMember("kubernetes.io/limit-ranger");
    annotations->AddMember("kubernetes.io/limit-ranger", json(text.c_str(), a), a);
}

std::optional<api_error> admit_pod_limits(object_store& store, const std::string& ns,
                                          const json& pod) {
    // LimitRanger's validation: each container within every Container item's min and max.
    std::vector<std::string> violations;
    const auto ranges = in_namespace(store, "limitranges", ns);
    if (const json* list = find_path(pod, "spec.containers"); list && list->IsArray())
        for (const json* item : container_items(ranges))
            for (const auto& c : list->GetArray()) {
                check_bounds(*item, c, true, violations);
                check_bounds(*item, c, false, violations);
            }
    if (!violations.empty())
        return forbidden(pod, violations.size() == 1 ? violations.front()
                                                     : "[" + joined(violations, ", ") + "]");

    // ResourceQuota: every quota of the namespace, against what its pods use now.
    const auto quotas = in_namespace(store, "resourcequotas", ns);
    if (quotas.empty()) return std::nullopt;
    const usage asked = pod_usage(pod);
    const usage used = namespace_usage(store, ns);
    for (const auto& q : quotas) {
        const json* hard = find_path(q->doc, "spec.hard");
        if (!hard || !hard->IsObject()) continue;
        std::vector<std::string> missing;
        usage requested, in_use, limited;
        for (const auto& [k, v] : hard->GetObject()) {
            const std::string resource = k.GetString();
            const auto limit = quantity_of(v);
            if (!limit) continue;
            const auto a = asked.find(resource);
            if (a == asked.end()) {
                if (must_be_specified(resource)) missing.push_back(resource);
                continue;
            }
            const auto u = used.find(resource);
            const std::int64_t now = u == used.end() ? 0 : u->second;
            if (now + a->second > limit->milli_value()) {
                requested[resource] = a->second;
                in_use[resource] = now;
                limited[resource] = limit->milli_value();
            }
        }
        if (!missing.empty()) {
            std::sort(missing.begin(), missing.end());
            return forbidden(pod,
                             "failed quota: " + q->name + ": must specify " + joined(missing, ","));
        }
        if (!requested.empty())
            return forbidden(pod,
                             "exceeded quota: " + q->name + ", requested: " + pretty(requested) +
                                 ", used: " + pretty(in_use) + ", limited: " + pretty(limited));
    }
    return std::nullopt;
}

void refresh_quota_status(object_store& store, const std::string& ns) {
    collection* quotas = store.find("", "v1", "resourcequotas");
    if (!quotas) return;
    const auto mine = in_namespace(store, "resourcequotas", ns);
    if (mine.empty()) return;
    const usage used = namespace_usage(store, ns);
    for (const auto& q : mine) {
        json_doc status(rapidjson::kObjectType);
        auto& a = status.GetAllocator();
        json hard(rapidjson::kObjectType), in_use(rapidjson::kObjectType);
        if (const json* h = find_path(q->doc, "spec.hard"); h && h->IsObject())
            for (const auto& [k, v] : h->GetObject()) {
                hard.AddMember(json(k, a), json(v, a), a);
                const auto u = used.find(k.GetString());
                const std::string text = text_of(k.GetString(), u == used.end() ? 0 : u->second);
                in_use.AddMember(json(k, a), json(text.c_str(), a), a);
            }
        status.AddMember("hard", hard, a);
        status.AddMember("used", in_use, a);
        const json* before = find_path(q->doc, "status");
        if (before && equal(*before, status)) continue;
        json_doc next = clone(q->doc);
        set_path(next, "status", json(status, next.GetAllocator()), next.GetAllocator());
        (void)store.update(*quotas, ns, q->name, std::move(next), write_mode::internal_status);
    }
}

} // namespace hpaplus::sim
