// sim/apiserver/discovery.cpp — discovery (/api, /apis, resource lists), /version, health, and
// OpenAPI v2 and v3.
#include "sim/apiserver/server.hpp"

#include "sim/apiserver/openapi.hpp"

#include <algorithm>

namespace hpaplus::sim {
namespace {

// The core subresources served beside status and scale (sim/apiserver/subresources.cpp and the
// TokenRequest) and the simulated kubelet's (sim/apiserver/kubelet.cpp), listed as the real
// server lists them; pods/proxy and services/proxy are not served, so not listed.
struct core_subresource {
    const char* plural;
    const char* name;
    const char* kind;
    const char* group; ///< the request's kind's group, when not the resource's
    const char* version;
    std::vector<const char*> verbs;
};
const core_subresource core_subresources[] = {
    {"nodes",
     "nodes/proxy",
     "NodeProxyOptions",
     nullptr,
     nullptr,
     {"create", "delete", "get", "patch", "update"}},
    {"pods", "pods/attach", "PodAttachOptions", nullptr, nullptr, {"create", "get"}},
    {"pods", "pods/eviction", "Eviction", "policy", "v1", {"create"}},
    {"pods", "pods/exec", "PodExecOptions", nullptr, nullptr, {"create", "get"}},
    {"pods", "pods/log", "Pod", nullptr, nullptr, {"get"}},
    {"pods", "pods/portforward", "PodPortForwardOptions", nullptr, nullptr, {"create", "get"}},
    {"pods", "pods/resize", "Pod", nullptr, nullptr, {"get", "patch", "update"}},
    {"serviceaccounts",
     "serviceaccounts/token",
     "TokenRequest",
     "authentication.k8s.io",
     "v1",
     {"create"}},
};

} // namespace

std::string api_server::impl::resource_list(const std::string& gv) {
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("kind", "APIResourceList", a);
    doc.AddMember("apiVersion", "v1", a);
    doc.AddMember("groupVersion", json(gv.c_str(), a), a);
    json resources(rapidjson::kArrayType);
    for (collection* c : store.collections()) {
        const resource_type& t = c->type;
        const auto slash = gv.find('/');
        if (slash == std::string::npos ? !t.serves("", gv)
                                       : !t.serves(gv.substr(0, slash), gv.substr(slash + 1)))
            continue;
        auto add = [&](const std::string& name, const std::string& singular,
                       const std::string& kind, std::vector<const char*> verbs, bool main,
                       const char* group, const char* version) {
            json r(rapidjson::kObjectType);
            r.AddMember("name", json(name.c_str(), a), a);
            r.AddMember("singularName", json(singular.c_str(), a), a);
            r.AddMember("namespaced", t.namespaced, a);
            if (group) {
                r.AddMember("group", json(group, a), a);
                r.AddMember("version", json(version, a), a);
            }
            r.AddMember("kind", json(kind.c_str(), a), a);
            json v(rapidjson::kArrayType);
            for (const char* verb : verbs)
                v.PushBack(json(verb, a), a);
            r.AddMember("verbs", v, a);
            if (main) {
                json shorts(rapidjson::kArrayType), cats(rapidjson::kArrayType);
                for (const auto& s : t.short_names)
                    shorts.PushBack(json(s.c_str(), a), a);
                for (const auto& s : t.categories)
                    cats.PushBack(json(s.c_str(), a), a);
                if (!t.short_names.empty()) r.AddMember("shortNames", shorts, a);
                if (!t.categories.empty()) r.AddMember("categories", cats, a);
            }
            resources.PushBack(r, a);
        };
        if (t.read_only)
            add(t.plural, t.singular, t.kind, {"get", "list"}, true, nullptr, nullptr);
        else if (t.create_only)
            add(t.plural, t.singular, t.kind, {"create"}, true, nullptr, nullptr);
        else
            add(t.plural, t.singular, t.kind,
                {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
                true, nullptr, nullptr);
        for (const auto& s : core_subresources)
            if (t.group.empty() && t.plural == s.plural)
                add(s.name, "", s.kind, s.verbs, false, s.group, s.version);
        if (t.status_subresource)
            add(t.plural + "/status", "", t.kind, {"get", "patch", "update"}, false, nullptr,
                nullptr);
        if (t.scale)
            add(t.plural + "/scale", "", "Scale", {"get", "patch", "update"}, false, "autoscaling",
                "v1");
    }
    doc.AddMember("resources", resources, a);
    return to_string(doc);
}

// Aggregated discovery (apidiscovery.k8s.io/v2, what client-go and kubectl 1.30+ ask for first):
// every group, version and resource of the legacy lists in one document, subresources under
// their resource. Built from resource_list, so both answers always agree.
std::optional<std::string> api_server::impl::aggregated_discovery(bool core) {
    if (!core && !aggregated_group_versions().empty()) return std::nullopt;
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("kind", "APIGroupDiscoveryList", a);
    doc.AddMember("apiVersion", "apidiscovery.k8s.io/v2", a);
    doc.AddMember("metadata", json(rapidjson::kObjectType), a);
    json items(rapidjson::kArrayType);
    const auto listed =
        core ? std::vector<std::pair<std::string, std::vector<std::string>>>{{"", {"v1"}}}
             : groups();
    for (const auto& listed_group : listed) {
        const std::string& group = listed_group.first; // (no lambda captures a binding: Clang 14)
        const std::vector<std::string>& versions = listed_group.second;
        json item(rapidjson::kObjectType);
        json meta(rapidjson::kObjectType);
        if (!group.empty()) meta.AddMember("name", json(group.c_str(), a), a);
        meta.AddMember("creationTimestamp", json(rapidjson::kNullType), a);
        item.AddMember("metadata", meta, a);
        json version_list(rapidjson::kArrayType);
        for (const auto& version : versions) {
            json_doc legacy;
            legacy.Parse(resource_list(group.empty() ? version : group + "/" + version).c_str());
            json resources(rapidjson::kArrayType);
            for (const auto& r : legacy["resources"].GetArray()) {
                const std::string name = r["name"].GetString();
                const auto kind_of = [&](const json& from) {
                    json k(rapidjson::kObjectType);
                    k.AddMember(
                        "group",
                        json(from.HasMember("group") ? from["group"].GetString() : group.c_str(),
                             a),
                        a);
                    k.AddMember("version",
                                json(from.HasMember("version") ? from["version"].GetString()
                                                               : version.c_str(),
                                     a),
                                a);
                    k.AddMember("kind", json(from["kind"], a), a);
                    return k;
                };
                const auto slash = name.find('/');
                if (slash != std::string::npos) { // a subresource of the resource before it
                    if (resources.Empty()) continue;
                    json& parent = resources[resources.Size() - 1];
                    json sub(rapidjson::kObjectType);
                    sub.AddMember("subresource", json(name.substr(slash + 1).c_str(), a), a);
                    sub.AddMember("responseKind", kind_of(r), a);
                    sub.AddMember("verbs", json(r["verbs"], a), a);
                    if (!parent.HasMember("subresources"))
                        parent.AddMember("subresources", json(rapidjson::kArrayType), a);
                    parent["subresources"].PushBack(sub, a);
                    continue;
                }
                json d(rapidjson::kObjectType);
                d.AddMember("resource", json(name.c_str(), a), a);
                d.AddMember("responseKind", kind_of(r), a);
                d.AddMember(
                    "scope",
                    rapidjson::StringRef(r["namespaced"].GetBool() ? "Namespaced" : "Cluster"), a);
                d.AddMember("singularResource", json(r["singularName"], a), a);
                d.AddMember("verbs", json(r["verbs"], a), a);
                for (const char* list : {"shortNames", "categories"})
                    if (r.HasMember(list)) d.AddMember(json(list, a), json(r[list], a), a);
                resources.PushBack(d, a);
            }
            json v(rapidjson::kObjectType);
            v.AddMember("version", json(version.c_str(), a), a);
            v.AddMember("resources", resources, a);
            v.AddMember("freshness", "Current", a);
            version_list.PushBack(v, a);
        }
        item.AddMember("versions", version_list, a);
        items.PushBack(item, a);
    }
    doc.AddMember("items", items, a);
    return to_string(doc);
}

// Every served API group and its versions, the preferred (stored) one first.
std::vector<std::pair<std::string, std::vector<std::string>>> api_server::impl::groups() {
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    const auto versions_of = [&out](const std::string& group) -> std::vector<std::string>& {
        auto it = std::find_if(out.begin(), out.end(), [&](auto& g) { return g.first == group; });
        if (it == out.end()) it = out.insert(out.end(), {group, {}});
        return it->second;
    };
    const auto has = [](const std::vector<std::string>& versions, const std::string& v) {
        return std::find(versions.begin(), versions.end(), v) != versions.end();
    };
    for (collection* c : store.collections()) {
        const resource_type& t = c->type;
        if (!t.group.empty()) {
            auto& versions = versions_of(t.group);
            if (!has(versions, t.version)) versions.insert(versions.begin(), t.version);
        }
        for (const auto& [group, version] : t.converted)
            if (!group.empty() && !has(versions_of(group), version))
                versions_of(group).push_back(version);
    }
    for (const auto& [group, version] : aggregated_group_versions()) {
        auto it = std::find_if(out.begin(), out.end(),
                               [&group = group](auto& g) { return g.first == group; });
        if (it == out.end()) it = out.insert(out.end(), {group, {}});
        if (std::find(it->second.begin(), it->second.end(), version) == it->second.end())
            it->second.push_back(version);
    }
    return out;
}

json api_server::impl::group_json(const std::string& group,
                                  const std::vector<std::string>& versions, json_alloc& a) {
    json g(rapidjson::kObjectType);
    g.AddMember("name", json(group.c_str(), a), a);
    json list(rapidjson::kArrayType);
    for (const auto& version : versions) {
        json v(rapidjson::kObjectType);
        const std::string gv = group + "/" + version;
        v.AddMember("groupVersion", json(gv.c_str(), a), a);
        v.AddMember("version", json(version.c_str(), a), a);
        list.PushBack(v, a);
    }
    json preferred(list[0], a);
    g.AddMember("versions", list, a);
    g.AddMember("preferredVersion", preferred, a);
    return g;
}

// OpenAPI v3, just enough for kubectl to see that this server validates fields itself
// (a PATCH operation per kind carrying x-kubernetes-group-version-kind and a fieldValidation
// parameter), so `kubectl apply/create -f` need no client-side schema.
http_response api_server::impl::openapi_v3(const std::vector<std::string>& parts) {
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    if (parts.size() == 2) {
        json paths(rapidjson::kObjectType);
        std::vector<std::string> seen;
        for (collection* c : store.collections()) {
            const std::string prefix = c->type.group.empty()
                                           ? "api/" + c->type.version
                                           : "apis/" + c->type.group + "/" + c->type.version;
            if (std::find(seen.begin(), seen.end(), prefix) != seen.end()) continue;
            seen.push_back(prefix);
            json entry(rapidjson::kObjectType);
            const std::string url =
                "/openapi/v3/" + prefix + "?hash=" + std::to_string(store.resource_version());
            entry.AddMember("serverRelativeURL", json(url.c_str(), a), a);
            paths.AddMember(json(prefix.c_str(), a), entry, a);
        }
        doc.AddMember("paths", paths, a);
        return ok(to_string(doc));
    }
    const bool core_group = parts.size() == 4 && parts[2] == "api";
    const std::string group = core_group ? "" : (parts.size() == 5 ? parts[3] : "");
    const std::string version = parts.back();
    doc.AddMember("openapi", "3.0.0", a);
    json info(rapidjson::kObjectType);
    info.AddMember("title", "Kubernetes", a);
    info.AddMember("version", "v1.33.0", a);
    doc.AddMember("info", info, a);
    json paths(rapidjson::kObjectType);
    for (collection* c : store.collections()) {
        const resource_type& t = c->type;
        if (t.group != group || t.version != version) continue;
        const std::string path = "/" + std::string(group.empty() ? "api/" : "apis/" + group + "/") +
                                 version + (t.namespaced ? "/namespaces/{namespace}/" : "/") +
                                 t.plural + "/{name}";
        json gvk(rapidjson::kObjectType);
        gvk.AddMember("group", json(t.group.c_str(), a), a);
        gvk.AddMember("version", json(t.version.c_str(), a), a);
        gvk.AddMember("kind", json(t.kind.c_str(), a), a);
        json param(rapidjson::kObjectType);
        param.AddMember("name", "fieldValidation", a);
        param.AddMember("in", "query", a);
        json schema(rapidjson::kObjectType);
        schema.AddMember("type", "string", a);
        param.AddMember("schema", schema, a);
        json params(rapidjson::kArrayType);
        params.PushBack(param, a);
        json patch(rapidjson::kObjectType);
        patch.AddMember("x-kubernetes-group-version-kind", gvk, a);
        patch.AddMember("parameters", params, a);
        json responses(rapidjson::kObjectType);
        json ok200(rapidjson::kObjectType);
        ok200.AddMember("description", "OK", a);
        responses.AddMember("200", ok200, a);
        patch.AddMember("responses", responses, a);
        json item(rapidjson::kObjectType);
        item.AddMember("patch", patch, a);
        paths.AddMember(json(path.c_str(), a), item, a);
    }
    if (paths.MemberCount() == 0) return error_response(not_found_path(""));
    doc.AddMember("paths", paths, a);
    return ok(to_string(doc));
}

// OpenAPI v2 as kube-openapi serves it: JSON or protobuf by Accept (406 for anything else),
// an ETag per encoding, 304 for a matching If-None-Match. Rebuilt only after a CRD changed.
http_response api_server::impl::openapi_v2(const http_request& r) {
    if (!openapi_v2_cache || openapi_v2_built_at != crd_changes) {
        std::vector<const resource_type*> types;
        for (collection* c : store.collections())
            types.push_back(&c->type);
        openapi_v2_cache = std::make_shared<const openapi_v2_document>(build_openapi_v2(types));
        openapi_v2_built_at = crd_changes;
    }
    const openapi_encoding* chosen = nullptr;
    const char* content_type = nullptr;
    switch (negotiate_openapi_v2(r.header("accept"))) {
    case openapi_format::json:
        chosen = &openapi_v2_cache->json;
        content_type = json_type;
        break;
    case openapi_format::protobuf:
        chosen = &openapi_v2_cache->protobuf;
        content_type = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
        break;
    case openapi_format::none:
        return http_response{406, "text/plain", "", {{"Vary", "Accept"}}};
    }
    net::header_list headers{{"Vary", "Accept"}, {"ETag", chosen->etag}};
    if (etag_matches(r.header("if-none-match"), chosen->etag))
        return http_response{304, content_type, "", std::move(headers)};
    return http_response{200, content_type, chosen->body, std::move(headers)};
}

std::optional<http_response> api_server::impl::discovery(const http_request& r,
                                                         const std::vector<std::string>& parts) {
    if (parts.size() == 2 && parts[0] == "openapi" && parts[1] == "v2") return openapi_v2(r);
    if (parts.size() == 1 && parts[0] == "version") {
        return ok(
            R"({"major":"1","minor":"33","gitVersion":"v1.33.0-hpaplus-sim","gitCommit":"0000000000000000000000000000000000000000",)"
            R"("gitTreeState":"clean","buildDate":"2026-01-01T00:00:00Z","goVersion":"go1.24.0","compiler":"gc","platform":"linux/amd64"})");
    }
    if (parts.size() == 1 && (parts[0] == "healthz" || parts[0] == "readyz" || parts[0] == "livez"))
        return http_response{200, "text/plain", "ok", {}};
    if (parts.size() >= 2 && parts[0] == "openapi" && parts[1] == "v3") return openapi_v3(parts);
    // Aggregated discovery when the client lists it in Accept (in any encoding: the JSON one is
    // always answered).
    if (parts.size() == 1 && (parts[0] == "api" || parts[0] == "apis") &&
        r.header("accept").find("g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList") !=
            std::string_view::npos)
        if (auto v2 = aggregated_discovery(parts[0] == "api"))
            return http_response{
                200,
                "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
                std::move(*v2),
                {{"Vary", "Accept"}}};
    if (parts.size() == 1 && parts[0] == "api")
        return ok(
            R"({"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]})");
    if (parts.size() == 2 && parts[0] == "api" && parts[1] == "v1") return ok(resource_list("v1"));
    if (!parts.empty() && parts[0] == "apis" && parts.size() <= 3) {
        json_doc doc(rapidjson::kObjectType);
        auto& a = doc.GetAllocator();
        const auto all = groups();
        if (parts.size() == 1) {
            doc.AddMember("kind", "APIGroupList", a);
            doc.AddMember("apiVersion", "v1", a);
            json list(rapidjson::kArrayType);
            for (const auto& [g, v] : all)
                list.PushBack(group_json(g, v, a), a);
            doc.AddMember("groups", list, a);
            return ok(to_string(doc));
        }
        const auto it = std::find_if(all.begin(), all.end(),
                                     [&](const auto& gv) { return gv.first == parts[1]; });
        if (it == all.end()) return error_response(not_found_path(""));
        if (parts.size() == 2) {
            json g = group_json(it->first, it->second, a);
            doc.AddMember("kind", "APIGroup", a);
            doc.AddMember("apiVersion", "v1", a);
            for (auto& m : g.GetObject())
                doc.AddMember(m.name, m.value, a);
            return ok(to_string(doc));
        }
        if (std::find(it->second.begin(), it->second.end(), parts[2]) == it->second.end())
            return error_response(not_found_path(""));
        return ok(resource_list(it->first + "/" + parts[2]));
    }
    return std::nullopt;
}

} // namespace hpaplus::sim
