// sim/api_server.cpp — request routing and the semantics of each verb.
#include "sim/api_server.hpp"

#include "core/label_selector.hpp"
#include "sim/admission.hpp"
#include "sim/metrics_api.hpp"
#include "sim/openapi.hpp"
#include "sim/pod_rules.hpp"
#include "sim/protobuf.hpp"
#include "sim/schema.hpp"
#include "sim/strategic_merge.hpp"
#include "sim/table.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace hpaplus::sim {

namespace asio = boost::asio;
using net::http_request;
using net::http_responder;
using net::http_response;

namespace {

constexpr const char* json_type = "application/json";

http_response error_response(const api_error& e) {
    http_response r{e.code, json_type, status_json(e), {}};
    if (e.retry_after_seconds)
        r.headers.emplace_back("Retry-After", std::to_string(*e.retry_after_seconds));
    return r;
}

http_response ok(std::string body, int status = 200) {
    return {status, json_type, std::move(body), {}};
}

std::vector<std::string> split(std::string_view path) {
    std::vector<std::string> parts;
    while (!path.empty()) {
        if (path.front() == '/') {
            path.remove_prefix(1);
            continue;
        }
        const auto slash = path.find('/');
        parts.emplace_back(path.substr(0, slash));
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash);
    }
    return parts;
}

// Where a REST path points.
struct target {
    std::string group, version, ns, plural, name, sub;
};

// `/api/v1/...` or `/apis/G/V/...` after the group-version prefix.
std::optional<target> parse_resource_path(const std::vector<std::string>& parts, std::size_t start,
                                          std::string group, std::string version) {
    target t{std::move(group), std::move(version), {}, {}, {}, {}};
    std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(start), parts.end());
    if (rest.empty()) return std::nullopt;
    if (rest[0] == "namespaces" && rest.size() >= 3 && rest[2] != "status" &&
        rest[2] != "finalize") {
        t.ns = rest[1];
        rest.erase(rest.begin(), rest.begin() + 2);
    }
    if (rest.size() > 3) return std::nullopt;
    t.plural = rest[0];
    if (rest.size() > 1) t.name = rest[1];
    if (rest.size() > 2) t.sub = rest[2];
    return t;
}

// Field selectors: `path=value`, `path==value`, `path!=value`, ANDed; values compared as text.
struct field_requirement {
    std::string path;
    std::string value;
    bool equals = true;
};

std::optional<std::vector<field_requirement>> parse_field_selector(std::string_view s) {
    std::vector<field_requirement> out;
    while (!s.empty()) {
        const auto comma = s.find(',');
        std::string_view term = s.substr(0, comma);
        field_requirement r;
        auto at = term.find("!=");
        std::size_t skip = 2;
        if (at != std::string_view::npos) {
            r.equals = false;
        } else if ((at = term.find("==")) == std::string_view::npos) {
            at = term.find('=');
            skip = 1;
        }
        if (at == std::string_view::npos || at == 0) return std::nullopt;
        r.path = std::string(term.substr(0, at));
        r.value = std::string(term.substr(at + skip));
        out.push_back(std::move(r));
        if (comma == std::string_view::npos) break;
        s.remove_prefix(comma + 1);
    }
    return out;
}

std::string field_text(const json& obj, const std::string& path) {
    const json* v = find_path(obj, path);
    if (!v) return "";
    if (v->IsString()) return v->GetString();
    if (v->IsBool()) return v->GetBool() ? "true" : "false";
    if (v->IsInt64()) return std::to_string(v->GetInt64());
    return to_string(*v);
}

struct filter {
    std::string ns; ///< "" = all namespaces
    core::label_selector labels;
    std::vector<field_requirement> fields;

    bool matches(const stored_object& o) const {
        if (!ns.empty() && o.namespace_ != ns) return false;
        if (!labels.matches(o.labels)) return false;
        for (const auto& f : fields)
            if ((field_text(o.doc, f.path) == f.value) != f.equals) return false;
        return true;
    }
};

std::string render_selector(const json& selector) {
    std::vector<std::string> terms;
    if (const json* ml = find_path(selector, "matchLabels"); ml && ml->IsObject())
        for (const auto& m : ml->GetObject())
            if (m.value.IsString())
                terms.push_back(std::string(m.name.GetString()) + "=" + m.value.GetString());
    if (const json* me = find_path(selector, "matchExpressions"); me && me->IsArray()) {
        for (const auto& e : me->GetArray()) {
            const std::string key = string_at(e, "key");
            const std::string op = string_at(e, "operator");
            std::string values;
            if (const json* v = find_path(e, "values"); v && v->IsArray())
                for (const auto& x : v->GetArray())
                    values += (values.empty() ? "" : ",") +
                              std::string(x.IsString() ? x.GetString() : "");
            if (op == "In")
                terms.push_back(key + " in (" + values + ")");
            else if (op == "NotIn")
                terms.push_back(key + " notin (" + values + ")");
            else if (op == "Exists")
                terms.push_back(key);
            else if (op == "DoesNotExist")
                terms.push_back("!" + key);
        }
    }
    std::sort(terms.begin(), terms.end());
    std::string out;
    for (const auto& t : terms)
        out += (out.empty() ? "" : ",") + t;
    return out;
}

} // namespace

struct api_server::impl {
    asio::any_io_executor executor;
    object_store& store;
    api_server_options options;
    std::set<asio::steady_timer*> waiting; ///< idle watches, woken on every write
    std::uint64_t expire_epoch = 0;        ///< bumped to end every watch with 410
    bool stopped = false;
    api_server::usage_function usage; ///< resource metrics, when served
    fault_injector faults;
    std::function<void(std::chrono::milliseconds)> restart;
    std::function<std::string()> prometheus;
    admission* admission_chain = nullptr; ///< mutating webhooks, when the cluster has them
    std::uint64_t crd_changes = 0;        ///< bumped on every CRD write: the served kinds may change
    std::uint64_t openapi_v2_built_at = ~std::uint64_t{0};
    std::shared_ptr<const openapi_v2_document> openapi_v2_cache;

    impl(asio::any_io_executor ex, object_store& s, api_server_options o)
        : executor(ex), store(s), options(o) {
        store.on_change([this](collection& c, const watch_event& e) {
            wake_watches();
            if (c.type.plural == "customresourcedefinitions" &&
                c.type.group == "apiextensions.k8s.io")
                on_crd_change(e);
        });
    }

    void wake_watches() {
        for (auto* t : waiting)
            t->cancel();
    }

    // --- CustomResourceDefinitions -----------------------------------------------------------

    std::optional<resource_type> crd_type(const json& crd) const {
        resource_type t;
        t.custom = true;
        t.group = string_at(crd, "spec.group");
        t.plural = string_at(crd, "spec.names.plural");
        t.singular = string_at(crd, "spec.names.singular");
        t.kind = string_at(crd, "spec.names.kind");
        t.list_kind = string_at(crd, "spec.names.listKind");
        if (t.list_kind.empty()) t.list_kind = t.kind + "List";
        if (t.singular.empty()) {
            t.singular = t.kind;
            for (auto& ch : t.singular)
                ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        }
        t.namespaced = string_at(crd, "spec.scope") != "Cluster";
        for (const char* path : {"spec.names.shortNames", "spec.names.categories"}) {
            if (const json* list = find_path(crd, path); list && list->IsArray())
                for (const auto& v : list->GetArray())
                    if (v.IsString())
                        (std::string_view(path).find("short") != std::string_view::npos
                             ? t.short_names
                             : t.categories)
                            .emplace_back(v.GetString());
        }
        const json* versions = find_path(crd, "spec.versions");
        if (t.group.empty() || t.plural.empty() || t.kind.empty() || !versions ||
            !versions->IsArray())
            return std::nullopt;
        const json* chosen = nullptr;
        for (const auto& v : versions->GetArray()) {
            const json* storage = find_path(v, "storage");
            if (!chosen || (storage && storage->IsBool() && storage->GetBool())) chosen = &v;
        }
        if (!chosen) return std::nullopt;
        t.version = string_at(*chosen, "name");
        t.status_subresource = find_path(*chosen, "subresources.status") != nullptr;
        if (const json* scale = find_path(*chosen, "subresources.scale");
            scale && scale->IsObject())
            t.scale = scale_paths{string_at(*scale, "specReplicasPath"),
                                  string_at(*scale, "statusReplicasPath"),
                                  string_at(*scale, "labelSelectorPath")};
        if (const json* schema = find_path(*chosen, "schema.openAPIV3Schema");
            schema && schema->IsObject()) {
            auto copy = std::make_shared<json_doc>();
            copy->CopyFrom(*schema, copy->GetAllocator());
            t.schema = std::move(copy);
        }
        if (const json* cols = find_path(*chosen, "additionalPrinterColumns");
            cols && cols->IsArray()) {
            for (const auto& c : cols->GetArray()) {
                const json* priority = find_path(c, "priority");
                t.columns.push_back({string_at(c, "name"), string_at(c, "type"),
                                     string_at(c, "jsonPath"), string_at(c, "description"),
                                     string_at(c, "format"),
                                     priority && priority->IsInt() ? priority->GetInt() : 0});
            }
        }
        return t;
    }

    void on_crd_change(const watch_event& e) {
        ++crd_changes;
        const json& crd = e.object->doc;
        auto type = crd_type(crd);
        if (!type) return;
        if (std::string_view(e.type) == "DELETED") {
            store.remove_type(type->group, type->version, type->plural);
            return;
        }
        store.add_type(*type);
        const json* conditions = find_path(crd, "status.conditions");
        if (conditions && conditions->IsArray() && conditions->Size() > 0)
            return; // already established
        // Report Established like the real server does (after this write completes).
        asio::post(executor, [this, name = e.object->name] {
            collection* crds =
                store.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
            object_ptr current = crds ? store.get(*crds, "", name) : nullptr;
            if (!current) return;
            json_doc doc = clone(current->doc);
            auto& a = doc.GetAllocator();
            const std::string now = core::format_rfc3339(now_time());
            json conds(rapidjson::kArrayType);
            for (const char* type : {"NamesAccepted", "Established"}) {
                json c(rapidjson::kObjectType);
                c.AddMember("type", json(type, a), a);
                c.AddMember("status", "True", a);
                c.AddMember("lastTransitionTime", json(now.c_str(), a), a);
                c.AddMember("reason",
                            json(std::string_view(type) == "Established" ? "InitialNamesAccepted"
                                                                         : "NoConflicts",
                                 a),
                            a);
                c.AddMember("message",
                            json(std::string_view(type) == "Established"
                                     ? "the initial names have been accepted"
                                     : "no conflicts found",
                                 a),
                            a);
                conds.PushBack(c, a);
            }
            set_path(doc, "status.conditions", std::move(conds), a);
            set_path(doc, "status.acceptedNames", json(*find_path(current->doc, "spec.names"), a),
                     a);
            (void)store.update(*crds, "", name, std::move(doc), write_mode::internal_status);
        });
    }

    static core::time_point now_time() {
        return std::chrono::time_point_cast<std::chrono::nanoseconds>(
            std::chrono::system_clock::now());
    }

    // --- discovery ---------------------------------------------------------------------------

    std::string resource_list(const std::string& gv) {
        json_doc doc(rapidjson::kObjectType);
        auto& a = doc.GetAllocator();
        doc.AddMember("kind", "APIResourceList", a);
        doc.AddMember("apiVersion", "v1", a);
        doc.AddMember("groupVersion", json(gv.c_str(), a), a);
        json resources(rapidjson::kArrayType);
        for (collection* c : store.collections()) {
            const resource_type& t = c->type;
            if (t.group_version() != gv) continue;
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
            else
                add(t.plural, t.singular, t.kind,
                    {"create", "delete", "deletecollection", "get", "list", "patch", "update",
                     "watch"},
                    true, nullptr, nullptr);
            if (t.status_subresource)
                add(t.plural + "/status", "", t.kind, {"get", "patch", "update"}, false, nullptr,
                    nullptr);
            if (t.scale)
                add(t.plural + "/scale", "", "Scale", {"get", "patch", "update"}, false,
                    "autoscaling", "v1");
        }
        doc.AddMember("resources", resources, a);
        return to_string(doc);
    }

    std::vector<std::pair<std::string, std::string>> groups() { // group → version
        std::vector<std::pair<std::string, std::string>> out;
        for (collection* c : store.collections()) {
            if (c->type.group.empty()) continue;
            std::pair<std::string, std::string> gv{c->type.group, c->type.version};
            if (std::find(out.begin(), out.end(), gv) == out.end()) out.push_back(gv);
        }
        return out;
    }

    static json group_json(const std::string& group, const std::string& version, json_alloc& a) {
        json g(rapidjson::kObjectType);
        g.AddMember("name", json(group.c_str(), a), a);
        json v(rapidjson::kObjectType);
        const std::string gv = group + "/" + version;
        v.AddMember("groupVersion", json(gv.c_str(), a), a);
        v.AddMember("version", json(version.c_str(), a), a);
        json versions(rapidjson::kArrayType);
        versions.PushBack(json(v, a), a);
        g.AddMember("versions", versions, a);
        g.AddMember("preferredVersion", v, a);
        return g;
    }

    // OpenAPI v3, just enough for kubectl to see that this server validates fields itself
    // (a PATCH operation per kind carrying x-kubernetes-group-version-kind and a fieldValidation
    // parameter), so `kubectl apply/create -f` need no client-side schema.
    http_response openapi_v3(const std::vector<std::string>& parts) {
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
            const std::string path =
                "/" + std::string(group.empty() ? "api/" : "apis/" + group + "/") + version +
                (t.namespaced ? "/namespaces/{namespace}/" : "/") + t.plural + "/{name}";
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
    http_response openapi_v2(const http_request& r) {
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

    std::optional<http_response> discovery(const http_request& r,
                                           const std::vector<std::string>& parts) {
        if (parts.size() == 2 && parts[0] == "openapi" && parts[1] == "v2") return openapi_v2(r);
        if (parts.size() == 1 && parts[0] == "version") {
            return ok(
                R"({"major":"1","minor":"33","gitVersion":"v1.33.0-hpaplus-sim","gitCommit":"0000000000000000000000000000000000000000",)"
                R"("gitTreeState":"clean","buildDate":"2026-01-01T00:00:00Z","goVersion":"go1.24.0","compiler":"gc","platform":"linux/amd64"})");
        }
        if (parts.size() == 1 &&
            (parts[0] == "healthz" || parts[0] == "readyz" || parts[0] == "livez"))
            return http_response{200, "text/plain", "ok", {}};
        if (parts.size() >= 2 && parts[0] == "openapi" && parts[1] == "v3")
            return openapi_v3(parts);
        if (parts.size() == 1 && parts[0] == "api")
            return ok(
                R"({"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]})");
        if (parts.size() == 2 && parts[0] == "api" && parts[1] == "v1")
            return ok(resource_list("v1"));
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
            if (parts[2] != it->second) return error_response(not_found_path(""));
            return ok(resource_list(it->first + "/" + it->second));
        }
        return std::nullopt;
    }

    // --- objects -----------------------------------------------------------------------------

    static bool wants_table(const http_request& r) {
        const auto accept = r.header("accept");
        return accept.find("as=Table") != std::string_view::npos;
    }

    std::optional<filter> make_filter(const http_request& r, const target& t, api_error& error) {
        filter f;
        f.ns = t.ns;
        if (auto ls = r.query_param("labelSelector")) {
            auto parsed = core::parse_label_selector(*ls);
            if (!parsed) {
                error = bad_request("unable to parse requirement: " + parsed.error().text);
                return std::nullopt;
            }
            f.labels = std::move(*parsed);
        }
        if (auto fs = r.query_param("fieldSelector"); fs && !fs->empty()) {
            auto parsed = parse_field_selector(*fs);
            if (!parsed) {
                error = bad_request("invalid field selector: \"" + std::string(*fs) + "\"");
                return std::nullopt;
            }
            f.fields = std::move(*parsed);
        }
        return f;
    }

    http_response list(const http_request& r, collection& c, const target& t) {
        api_error error;
        auto f = make_filter(r, t, error);
        if (!f) return error_response(error);
        std::size_t limit = 0;
        if (auto l = r.query_param("limit")) {
            const auto* end = l->data() + l->size();
            if (std::from_chars(l->data(), end, limit).ptr != end)
                return error_response(bad_request("invalid limit"));
        }
        std::string after; // continue token: "<rv>:<last key>"
        if (auto token = r.query_param("continue"); token && !token->empty()) {
            const auto colon = token->find(':');
            std::uint64_t token_rv = 0;
            if (colon == std::string_view::npos ||
                std::from_chars(token->data(), token->data() + colon, token_rv).ec != std::errc())
                return error_response(bad_request("continue key is not valid"));
            if (token_rv < c.compacted_rv)
                return error_response(
                    expired("The provided continue parameter is too old to display a consistent "
                            "list result. "
                            "You can start a new list without the continue parameter."));
            after = std::string(token->substr(colon + 1));
        }
        std::vector<object_ptr> items;
        std::string next;
        for (auto it = after.empty() ? c.objects.begin() : c.objects.upper_bound(after);
             it != c.objects.end(); ++it) {
            if (!f->matches(*it->second)) continue;
            if (limit > 0 && items.size() == limit) {
                next = std::to_string(store.resource_version()) + ":" + std::prev(it)->first;
                break;
            }
            items.push_back(it->second);
        }
        if (wants_table(r))
            return ok(table_json(c.type, items, store.resource_version(), now_time()));
        std::string body = R"({"kind":")" + c.type.list_kind + R"(","apiVersion":")" +
                           c.type.group_version() + R"(","metadata":{"resourceVersion":")" +
                           std::to_string(store.resource_version()) + "\"";
        if (!next.empty()) body += R"(,"continue":")" + next + "\"";
        body += R"(},"items":[)";
        for (std::size_t i = 0; i < items.size(); ++i)
            body += (i ? "," : "") + items[i]->text;
        body += "]}";
        return ok(std::move(body));
    }

    asio::awaitable<void> watch(const http_request& r, const target& t, http_responder& out) {
        api_error error;
        auto f = make_filter(r, t, error);
        if (!f) {
            co_await out.send(error_response(error));
            co_return;
        }
        std::chrono::seconds timeout = options.default_watch_timeout;
        if (auto ts = r.query_param("timeoutSeconds")) {
            long long v = 0;
            if (std::from_chars(ts->data(), ts->data() + ts->size(), v).ec == std::errc() && v > 0)
                timeout = std::min(timeout, std::chrono::seconds(v));
        }
        const bool bookmarks = r.query_param("allowWatchBookmarks").value_or("") == "true";
        const std::string rv_text(r.query_param("resourceVersion").value_or(""));
        collection* c = store.find(t.group, t.version, t.plural);
        std::uint64_t last = 0;
        bool replay = rv_text.empty() || rv_text == "0";
        if (!replay && std::from_chars(rv_text.data(), rv_text.data() + rv_text.size(), last).ec !=
                           std::errc()) {
            co_await out.send(
                error_response(bad_request("invalid resource version \"" + rv_text + "\"")));
            co_return;
        }
        if (!co_await out.begin_stream(200, json_type)) co_return;
        auto event_line = [](const char* type, const std::string& object) {
            return std::string(R"({"type":")") + type + R"(","object":)" + object + "}\n";
        };
        auto send_expired = [&](std::uint64_t rv) -> asio::awaitable<void> {
            const api_error e = expired("too old resource version: " + std::to_string(rv) + " (" +
                                        std::to_string(c ? c->compacted_rv : 0) + ")");
            co_await out.send_chunk(event_line("ERROR", status_json(e)));
            co_await out.end_stream();
        };
        if (replay) {
            last = store.resource_version();
            for (const auto& [k, o] : c->objects)
                if (f->matches(*o) && !co_await out.send_chunk(event_line("ADDED", o->text)))
                    co_return;
        } else if (!store.first_event_after(*c, last)) {
            co_await send_expired(last);
            co_return;
        }
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        auto last_sent = std::chrono::steady_clock::now();
        asio::steady_timer timer(executor);
        const std::uint64_t drop_epoch = faults.watch_epoch();
        const std::uint64_t my_expire_epoch = expire_epoch;
        while (!stopped) {
            if (faults.watch_epoch() != drop_epoch)
                co_return; // dropped: the connection closes without an end
            if (expire_epoch != my_expire_epoch) {
                co_await send_expired(last);
                co_return;
            }
            c = store.find(t.group, t.version, t.plural);
            if (!c) break; // the CRD went away
            const auto first = store.first_event_after(*c, last);
            if (!first) {
                co_await send_expired(last);
                co_return;
            }
            std::string batch;
            for (std::size_t i = *first; i < c->log.size(); ++i) {
                const watch_event& e = c->log[i];
                last = e.rv;
                const bool now_in = f->matches(*e.object);
                const bool was_in = e.previous && f->matches(*e.previous);
                const char* type = e.type;
                if (std::string_view(type) == "MODIFIED") {
                    if (!now_in && !was_in) continue;
                    if (!now_in)
                        type = "DELETED"; // left the selection
                    else if (!was_in)
                        type = "ADDED"; // entered it
                } else if (!now_in) {
                    continue;
                }
                batch += event_line(type, e.object->text);
            }
            if (!batch.empty()) {
                if (!co_await out.send_chunk(batch)) co_return;
                last_sent = std::chrono::steady_clock::now();
            }
            const auto now = std::chrono::steady_clock::now();
            if (now >= deadline) break;
            if (bookmarks && now - last_sent >= options.bookmark_interval) {
                const std::string bookmark = R"({"kind":")" + c->type.kind + R"(","apiVersion":")" +
                                             c->type.group_version() +
                                             R"(","metadata":{"resourceVersion":")" +
                                             std::to_string(store.resource_version()) + "\"}}";
                last = std::max(last, store.resource_version());
                if (!co_await out.send_chunk(event_line("BOOKMARK", bookmark))) co_return;
                last_sent = now;
            }
            auto wake = deadline;
            if (bookmarks) wake = std::min(wake, last_sent + options.bookmark_interval);
            timer.expires_at(wake);
            waiting.insert(&timer);
            co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
            waiting.erase(&timer);
        }
        co_await out.end_stream();
    }

    // Scale subresource: build autoscaling/v1 Scale from the object.
    api_result<std::string> scale_of(const collection& c, const stored_object& o) {
        const scale_paths& p = *c.type.scale;
        const json* spec = find_path(o.doc, p.spec_replicas);
        if (!spec && c.type.custom)
            return bad_request("the spec replicas field \"" + p.spec_replicas +
                               "\" cannot be found");
        const json* status = find_path(o.doc, p.status_replicas);
        std::string selector;
        if (p.label_selector.empty()) {
            if (const json* s = find_path(o.doc, "spec.selector")) selector = render_selector(*s);
        } else {
            selector = string_at(o.doc, p.label_selector);
        }
        json_doc scale(rapidjson::kObjectType);
        auto& a = scale.GetAllocator();
        scale.AddMember("kind", "Scale", a);
        scale.AddMember("apiVersion", "autoscaling/v1", a);
        json meta(rapidjson::kObjectType);
        for (const char* field :
             {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
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

    http_response write_scale(collection& c, const target& t, const stored_object& current,
                              const json& scale) {
        if (!scale.IsObject())
            return error_response(bad_request("the body of the request must be a Scale object"));
        const std::string rv = string_at(scale, "metadata.resourceVersion");
        if (!rv.empty() && rv != std::to_string(current.rv))
            return error_response(conflict(c.type, t.name));
        const json* replicas = find_path(scale, "spec.replicas");
        std::int64_t n = 0;
        if (replicas) {
            if (!replicas->IsInt64() || replicas->GetInt64() < 0 ||
                replicas->GetInt64() > INT32_MAX)
                return error_response(invalid(
                    c.type, t.name,
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

    // Applies a PATCH body to `base` according to its content type.
    std::optional<api_error> apply_patch(const http_request& r, const resource_type& type,
                                         json_doc& base) {
        const std::string_view ct = r.header("content-type");
        json_doc patch;
        patch.Parse(r.body.c_str(), r.body.size());
        if (patch.HasParseError())
            return bad_request("the body of the request could not be decoded as JSON");
        if (ct.find("application/json-patch+json") == 0) {
            if (auto e = json_patch(base, patch))
                return api_error{422, "Invalid", *e, {}, {}, {}, {}, std::nullopt};
            return std::nullopt;
        }
        if (ct.find("application/strategic-merge-patch+json") == 0 && !type.custom) {
            if (auto e = strategic_merge_patch(
                    base, patch, builtin_kind_schema(type.group, type.version, type.kind),
                    base.GetAllocator()))
                return bad_request(*e);
            return std::nullopt;
        }
        if (ct.find("application/merge-patch+json") == 0) {
            merge_patch(base, patch, base.GetAllocator());
            return std::nullopt;
        }
        return unsupported_media_type(
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json");
    }

    // metrics.k8s.io/v1beta1: PodMetrics computed from the workload model, like metrics-server.
    std::string pod_metrics_json(const stored_object& pod,
                                 const std::pair<std::int64_t, std::int64_t>& use) {
        json_doc doc(rapidjson::kObjectType);
        auto& a = doc.GetAllocator();
        doc.AddMember("kind", "PodMetrics", a);
        doc.AddMember("apiVersion", "metrics.k8s.io/v1beta1", a);
        json meta(rapidjson::kObjectType);
        meta.AddMember("name", json(pod.name.c_str(), a), a);
        meta.AddMember("namespace", json(pod.namespace_.c_str(), a), a);
        const std::string now = core::format_rfc3339(now_time());
        meta.AddMember("creationTimestamp", json(now.c_str(), a), a);
        if (const json* labels = find_path(pod.doc, "metadata.labels"))
            meta.AddMember("labels", json(*labels, a), a);
        doc.AddMember("metadata", meta, a);
        doc.AddMember("timestamp",
                      json(core::format_rfc3339(now_time() - std::chrono::seconds(1)).c_str(), a),
                      a);
        doc.AddMember("window", "15s", a);
        json containers(rapidjson::kArrayType);
        const json* spec = find_path(pod.doc, "spec.containers");
        const auto count = spec && spec->IsArray() && spec->Size() > 0 ? spec->Size() : 1u;
        for (rapidjson::SizeType i = 0; i < count; ++i) {
            // CPU in nanocores and memory in Ki, as metrics-server reports them.
            const std::int64_t cpu = use.first / count + (i == 0 ? use.first % count : 0);
            const std::int64_t mem = use.second / count;
            json c(rapidjson::kObjectType);
            const std::string name =
                spec && spec->IsArray() && spec->Size() > i ? string_at((*spec)[i], "name") : "app";
            c.AddMember("name", json(name.c_str(), a), a);
            json usage_obj(rapidjson::kObjectType);
            usage_obj.AddMember("cpu", json((std::to_string(cpu * 1000000) + "n").c_str(), a), a);
            usage_obj.AddMember("memory", json((std::to_string(mem / 1024) + "Ki").c_str(), a), a);
            c.AddMember("usage", usage_obj, a);
            containers.PushBack(c, a);
        }
        doc.AddMember("containers", containers, a);
        return to_string(doc);
    }

    http_response resource_metrics(const http_request& r, const target& t) {
        if (r.method != "GET")
            return error_response(api_error{405,
                                            "MethodNotAllowed",
                                            "only get and list are supported",
                                            {},
                                            "metrics.k8s.io",
                                            t.plural,
                                            {},
                                            std::nullopt});
        collection* pods = store.find("", "v1", "pods");
        if (t.plural == "nodes") {
            std::int64_t cpu = 0, mem = 0;
            for (const auto& [k, p] : pods->objects)
                if (auto u = usage(*p)) cpu += u->first, mem += u->second;
            const std::string node =
                R"({"kind":"NodeMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"name":"sim-node-1"},"timestamp":")" +
                core::format_rfc3339(now_time()) + R"(","window":"15s","usage":{"cpu":")" +
                std::to_string(cpu * 1000000) + R"(n","memory":")" + std::to_string(mem / 1024) +
                R"(Ki"}})";
            if (!t.name.empty())
                return t.name == "sim-node-1"
                           ? ok(node)
                           : error_response(api_error{404,
                                                      "NotFound",
                                                      "nodemetrics.metrics.k8s.io \"" + t.name +
                                                          "\" not found",
                                                      t.name,
                                                      "metrics.k8s.io",
                                                      "nodes",
                                                      {},
                                                      std::nullopt});
            return ok(
                R"({"kind":"NodeMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[)" +
                node + "]}");
        }
        if (t.plural != "pods") return error_response(not_found_path(r.path));
        api_error error;
        auto f = make_filter(r, t, error);
        if (!f) return error_response(error);
        if (!t.name.empty()) {
            const object_ptr pod = store.get(*pods, t.ns, t.name);
            const auto u = pod ? usage(*pod) : std::nullopt;
            if (!u)
                return error_response(
                    api_error{404,
                              "NotFound",
                              "podmetrics.metrics.k8s.io \"" + t.ns + "/" + t.name + "\" not found",
                              t.name,
                              "metrics.k8s.io",
                              "pods",
                              {},
                              std::nullopt});
            return ok(pod_metrics_json(*pod, *u));
        }
        std::string body =
            R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[)";
        bool first = true;
        for (const auto& [k, p] : namespace_range(*pods, f->ns)) {
            if (!f->matches(*p)) continue;
            const auto u = usage(*p);
            if (!u) continue;
            body += (first ? "" : ",") + pod_metrics_json(*p, *u);
            first = false;
        }
        return ok(body + "]}");
    }

    // The verb in RBAC's terms and the resource (a subresource counts as itself) for fault rules.
    static std::pair<std::string, std::string>
    verb_and_resource(const http_request& r, const std::vector<std::string>& parts) {
        std::string resource = "*";
        std::optional<target> t;
        if (parts.size() >= 3 && parts[0] == "api")
            t = parse_resource_path(parts, 2, "", "v1");
        else if (parts.size() >= 4 && parts[0] == "apis")
            t = parse_resource_path(parts, 3, parts[1], parts[2]);
        if (t) resource = t->sub.empty() ? t->plural : t->sub;
        const bool named = t && !t->name.empty();
        const auto w = r.query_param("watch");
        std::string verb = "get";
        if (r.method == "GET")
            verb = w && (*w == "true" || *w == "1") ? "watch" : named ? "get" : "list";
        else if (r.method == "POST")
            verb = "create";
        else if (r.method == "PUT")
            verb = "update";
        else if (r.method == "PATCH")
            verb = "patch";
        else if (r.method == "DELETE")
            verb = "delete";
        return {verb, resource};
    }

    // Applies latency and injected errors; returns true when the request was answered with an
    // error.
    asio::awaitable<bool> apply_faults(const http_request& r, const std::vector<std::string>& parts,
                                       http_responder& out) {
        if (faults.rules().empty()) co_return false;
        const auto [verb, resource] = verb_and_resource(r, parts);
        const auto verdict = faults.judge(verb, resource);
        if (verdict.latency.count() > 0) {
            asio::steady_timer timer(executor, verdict.latency);
            co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        }
        if (!verdict.error_code) co_return false;
        api_error e;
        switch (*verdict.error_code) {
        case 429:
            e = too_many_requests(1);
            break;
        case 500:
            e = internal_error("injected failure");
            break;
        case 504:
            e = api_error{504,
                          "Timeout",
                          "the server was unable to return a response in the time allotted, but "
                          "may still be processing the request",
                          {},
                          {},
                          {},
                          {},
                          std::nullopt};
            break;
        default:
            e = api_error{503,
                          "ServiceUnavailable",
                          "the server is currently unable to handle the request",
                          {},
                          {},
                          {},
                          {},
                          std::nullopt};
        }
        co_await out.send(error_response(e));
        co_return true;
    }

    // /sim/v1/...: the simulated cluster's own controls.
    http_response control(const http_request& r, const std::vector<std::string>& parts) {
        const std::string what = parts.size() >= 3 ? parts[2] : "";
        const std::string sub = parts.size() >= 4 ? parts[3] : "";
        if (what == "faults" && sub.empty()) {
            if (r.method == "DELETE") {
                faults.clear();
                return ok(R"({"rules":[]})");
            }
            if (r.method == "POST" || r.method == "PUT") {
                auto rules = fault_injector::parse_rules(r.body);
                if (!rules) return error_response(bad_request(rules.error().text));
                if (r.method == "PUT") faults.clear();
                for (auto& rule : *rules)
                    faults.add(std::move(rule));
            }
            std::string body = R"({"rules":[)";
            for (std::size_t i = 0; i < faults.rules().size(); ++i) {
                const auto& f = faults.rules()[i];
                body += (i ? "," : "") + std::string(R"({"verb":")") + f.verb +
                        R"(","resource":")" + f.resource + R"(","errorRate":)" +
                        std::to_string(f.error_rate) + R"(,"errorCode":)" +
                        std::to_string(f.error_code) + R"(,"latencyMs":)" +
                        std::to_string(f.latency.count()) + "}";
            }
            return ok(body + "]}");
        }
        if (what == "faults" && sub == "drop-watches" && r.method == "POST") {
            faults.drop_watches();
            wake_watches();
            return ok(R"({"dropped":true})");
        }
        if (what == "faults" && sub == "expire" && r.method == "POST") {
            // Every watch of the resource gets 410 and no resourceVersion before now can be
            // resumed.
            const std::string resource(r.query_param("resource").value_or(""));
            bool found = false;
            for (collection* c : store.collections()) {
                if (!resource.empty() && c->type.plural != resource) continue;
                store.compact(*c);
                found = true;
            }
            if (!found) return error_response(bad_request("no such resource \"" + resource + "\""));
            expire_epoch++;
            wake_watches();
            return ok(R"({"expired":true})");
        }
        if (what == "prometheus" && r.method == "GET" && prometheus)
            return http_response{200, "text/plain; version=0.0.4; charset=utf-8", prometheus(), {}};
        if (what == "restart" && r.method == "POST" && restart) {
            long long down = 0;
            if (auto d = r.query_param("downSeconds"))
                std::from_chars(d->data(), d->data() + d->size(), down);
            restart(std::chrono::milliseconds(std::clamp<long long>(down, 0, 600) * 1000));
            return http_response{202, json_type, R"({"restarting":true})", {}};
        }
        return error_response(not_found_path(r.path));
    }

    http_response metrics_apis(const http_request& r, const std::vector<std::string>& parts) {
        if (r.method != "GET")
            return error_response(api_error{
                405, "MethodNotAllowed", "only get is supported", {}, {}, {}, {}, std::nullopt});
        core::label_selector selector;
        if (auto ls = r.query_param("labelSelector")) {
            auto parsed = core::parse_label_selector(*ls);
            if (!parsed)
                return error_response(
                    bad_request("unable to parse requirement: " + parsed.error().text));
            selector = std::move(*parsed);
        }
        const std::vector<std::string> rest(parts.begin() + 3, parts.end());
        const auto answer = parts[1] == "custom.metrics.k8s.io"
                                ? custom_metrics(store, rest, selector)
                                : external_metrics(store, rest, selector);
        return ok(answer.body, answer.status);
    }

    // Every request but a watch: one complete response.
    http_response objects(http_request& r, target t) {
        collection* c = store.find(t.group, t.version, t.plural);
        if (!c || (!c->type.namespaced && !t.ns.empty()))
            return error_response(not_found_path(r.path));
        const std::string& method = r.method;
        if (t.name.empty()) return collection_request(r, *c, t);

        const bool pod = c->type.plural == "pods" && c->type.group.empty();
        if (!t.sub.empty() && t.sub != "status" && !(t.sub == "scale" && c->type.scale) &&
            !(pod && (t.sub == "resize" || t.sub == "eviction")))
            return error_response(not_found_path(r.path));
        const object_ptr current = store.get(*c, t.ns, t.name);
        if (!current) return error_response(not_found(c->type, t.name));
        if (pod && t.sub == "eviction") return evict(r, *c, *current);
        if (pod && t.sub == "resize" && method != "GET") return resize(r, *c, *current);
        if (method == "GET") {
            if (t.sub == "scale") {
                auto scale = scale_of(*c, *current);
                return scale ? ok(*scale) : error_response(scale.error());
            }
            if (wants_table(r))
                return ok(table_json(c->type, {current}, store.resource_version(), now_time()));
            return ok(current->text);
        }
        if (method == "DELETE") {
            if (!t.sub.empty()) return error_response(method_not_supported(c->type, method));
            if (c->type.plural == "namespaces" && c->type.group.empty())
                delete_namespace_contents(t.name);
            auto removed = store.remove(*c, t.ns, t.name);
            return removed ? ok((*removed)->text) : error_response(removed.error());
        }
        if (method != "PUT" && method != "PATCH")
            return error_response(method_not_supported(c->type, method));

        json_doc body;
        if (method == "PUT") {
            body.Parse(r.body.c_str(), r.body.size());
            if (body.HasParseError())
                return error_response(
                    bad_request("the body of the request could not be decoded as JSON"));
        } else {
            if (t.sub == "scale") {
                auto scale = scale_of(*c, *current);
                if (!scale) return error_response(scale.error());
                body.Parse(scale->c_str());
            } else {
                body = clone(current->doc);
            }
            if (auto e = apply_patch(r, c->type, body)) return error_response(*e);
        }
        if (t.sub == "scale") return write_scale(*c, t, *current, body);
        if (t.sub.empty()) {
            if (auto e = check_pod_update(c->type, current->doc, body)) return error_response(*e);
        }
        if (auto e = check_schema(r, c->type, t.name, body)) return error_response(*e);
        if (auto e = prepare_webhook_configuration(c->type, t.name, body))
            return error_response(*e);
        auto stored = store.update(*c, t.ns, t.name, std::move(body),
                                   t.sub == "status" ? write_mode::status : write_mode::main);
        return stored ? ok((*stored)->text) : error_response(stored.error());
    }

    // A custom resource is pruned, defaulted and validated against its CRD's schema; with
    // `fieldValidation=Strict` (what kubectl sends by default) an unknown field is refused.
    static std::optional<api_error> check_schema(const http_request& r, const resource_type& type,
                                                 const std::string& name, json_doc& body) {
        if (!type.schema) return std::nullopt;
        std::vector<std::string> unknown;
        auto errors = apply_schema(*type.schema, body, body.GetAllocator(), &unknown);
        if (!errors.empty()) return invalid(type, name, std::move(errors));
        if (unknown.empty() || r.query_param("fieldValidation") != "Strict") return std::nullopt;
        std::string message = "strict decoding error: ";
        for (std::size_t i = 0; i < unknown.size(); ++i)
            message += (i ? ", " : "") + std::string("unknown field \"") + unknown[i] + "\"";
        return bad_request(message);
    }

    // pods/eviction (policy/v1 Eviction): deletes the pod unless a disruption budget forbids it.
    http_response evict(const http_request& r, collection& pods, const stored_object& pod) {
        if (r.method != "POST") return error_response(method_not_supported(pods.type, r.method));
        json_doc body;
        body.Parse(r.body.c_str(), r.body.size());
        if (body.HasParseError() || !body.IsObject())
            return error_response(
                bad_request("the body of the request must be an Eviction object"));
        if (const std::string name = string_at(body, "metadata.name");
            !name.empty() && name != pod.name)
            return error_response(
                bad_request("name in URL does not match name in Eviction object"));
        if (auto e = check_disruption_budgets(store, pod)) return error_response(*e);
        auto removed = store.remove(pods, pod.namespace_, pod.name);
        if (!removed) return error_response(removed.error());
        return ok(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})",
            201);
    }

    // pods/resize: only container resources change; the simulated kubelet then actuates it.
    http_response resize(const http_request& r, collection& pods, const stored_object& pod) {
        json_doc body;
        body.Parse(r.body.c_str(), r.body.size());
        if (body.HasParseError())
            return error_response(
                bad_request("the body of the request could not be decoded as JSON"));
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

    // List, create, or delete a collection.
    http_response collection_request(const http_request& r, collection& c, target& t) {
        if (r.method == "GET") return list(r, c, t);
        if (r.method == "POST") {
            json_doc body;
            body.Parse(r.body.c_str(), r.body.size());
            if (body.HasParseError())
                return error_response(
                    bad_request("the body of the request could not be decoded as JSON"));
            if (c.type.namespaced && t.ns.empty()) {
                const std::string ns = string_at(body, "metadata.namespace");
                t.ns = ns.empty() ? "default" : ns;
            }
            const std::string name = string_at(body, "metadata.name");
            if (auto e = check_schema(r, c.type, name, body)) return error_response(*e);
            if (auto e = prepare_webhook_configuration(c.type, name, body))
                return error_response(*e);
            auto stored = store.create(c, t.ns, std::move(body));
            return stored ? ok((*stored)->text, 201) : error_response(stored.error());
        }
        if (r.method == "DELETE") {
            api_error error;
            auto f = make_filter(r, t, error);
            if (!f) return error_response(error);
            std::vector<object_ptr> doomed;
            for (const auto& [k, o] : c.objects)
                if (f->matches(*o)) doomed.push_back(o);
            for (const auto& o : doomed)
                (void)store.remove(c, o->namespace_, o->name);
            return ok(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"})");
        }
        return error_response(method_not_supported(c.type, r.method));
    }

    void delete_namespace_contents(const std::string& ns) {
        for (collection* c : store.collections()) {
            if (!c->type.namespaced) continue;
            std::vector<object_ptr> doomed;
            for (const auto& [k, o] : c->objects)
                if (o->namespace_ == ns) doomed.push_back(o);
            for (const auto& o : doomed)
                (void)store.remove(*c, ns, o->name);
        }
    }

    asio::awaitable<void> handle(http_request& r, http_responder& out) {
        if (std::getenv("HPAPLUS_SIM_TRACE"))
            std::fprintf(stderr, "sim: %s %s [%s] accept=[%s] %zu bytes\n", r.method.c_str(),
                         r.target.c_str(), std::string(r.header("content-type")).c_str(),
                         std::string(r.header("accept")).c_str(), r.body.size());
        // kubectl's typed commands send built-in kinds as protobuf; we decode them and answer JSON.
        if (r.header("content-type").find("application/vnd.kubernetes.protobuf") == 0 &&
            !r.body.empty()) {
            auto decoded = protobuf_to_json(r.body);
            if (!decoded) {
                co_await out.send(error_response(unsupported_media_type(decoded.error().text)));
                co_return;
            }
            r.body = std::move(*decoded);
            for (auto& [k, v] : r.headers)
                if (k == "content-type") v = json_type;
        }
        const auto parts = split(r.path);
        if (parts.size() >= 2 && parts[0] == "sim" && parts[1] == "v1") {
            co_await out.send(control(r, parts));
            co_return;
        }
        if (auto delay = co_await apply_faults(r, parts, out); delay) co_return;
        if (auto d = discovery(r, parts)) {
            co_await out.send(std::move(*d));
            co_return;
        }
        std::optional<target> t;
        if (parts.size() >= 3 && parts[0] == "api" && parts[1] == "v1")
            t = parse_resource_path(parts, 2, "", "v1");
        else if (parts.size() >= 4 && parts[0] == "apis")
            t = parse_resource_path(parts, 3, parts[1], parts[2]);
        if (!t) {
            co_await out.send(error_response(not_found_path(r.path)));
            co_return;
        }
        if (t->group == "custom.metrics.k8s.io" || t->group == "external.metrics.k8s.io") {
            co_await out.send(metrics_apis(r, parts));
            co_return;
        }
        if (t->group == "metrics.k8s.io" && usage) {
            co_await out.send(resource_metrics(r, *t));
            co_return;
        }
        const auto w = r.query_param("watch");
        if (r.method == "GET" && t->name.empty() && w && (*w == "true" || *w == "1")) {
            if (!store.find(t->group, t->version, t->plural)) {
                co_await out.send(error_response(not_found_path(r.path)));
                co_return;
            }
            co_await watch(r, *t, out);
            co_return;
        }
        if (r.method == "POST" && t->name.empty() && admission_chain) {
            if (auto e = co_await admit(r, *t)) {
                co_await out.send(error_response(*e));
                co_return;
            }
        }
        co_await out.send(objects(r, *t));
    }

    // Mutating admission of a create: the webhooks' patches end up in the request body, which
    // the create then stores (after schema validation, as on the real server).
    asio::awaitable<std::optional<api_error>> admit(http_request& r, const target& t) {
        collection* c = store.find(t.group, t.version, t.plural);
        if (!c || !t.sub.empty()) co_return std::nullopt;
        json_doc body;
        body.Parse(r.body.c_str(), r.body.size());
        if (body.HasParseError() || !body.IsObject()) co_return std::nullopt; // create says why
        std::string ns = t.ns;
        if (c->type.namespaced && ns.empty()) {
            ns = string_at(body, "metadata.namespace");
            if (ns.empty()) ns = "default";
        }
        if (!admission_chain->wants(c->type, ns, body)) co_return std::nullopt;
        const resource_type type = c->type; // the collection may change while the calls run
        auto error = co_await admission_chain->admit_create(type, ns, body);
        if (!error) r.body = to_string(body);
        co_return error;
    }
};

api_server::api_server(asio::any_io_executor executor, object_store& store,
                       api_server_options options)
    : impl_(std::make_unique<impl>(executor, store, options)) {
    for (auto& t : builtin_resource_types())
        store.add_type(std::move(t));
}

api_server::~api_server() = default;

asio::awaitable<void> api_server::handle(http_request& request, http_responder& responder) {
    return impl_->handle(request, responder);
}

void api_server::stop() {
    impl_->stopped = true;
    impl_->wake_watches();
}

void api_server::serve_resource_metrics(usage_function usage) {
    impl_->usage = std::move(usage);
    resource_type pods{"metrics.k8s.io",
                       "v1beta1",
                       "pods",
                       "",
                       "PodMetrics",
                       "PodMetricsList",
                       {},
                       {},
                       true,
                       false,
                       {},
                       {},
                       false,
                       true};
    resource_type nodes{"metrics.k8s.io",
                        "v1beta1",
                        "nodes",
                        "",
                        "NodeMetrics",
                        "NodeMetricsList",
                        {},
                        {},
                        false,
                        false,
                        {},
                        {},
                        false,
                        true};
    impl_->store.add_type(std::move(pods));
    impl_->store.add_type(std::move(nodes));
    // custom and external metrics, for discovery (requests are answered by metrics_api.cpp)
    impl_->store.add_type({"custom.metrics.k8s.io",
                           "v1beta2",
                           "pods/*",
                           "",
                           "MetricValueList",
                           "MetricValueList",
                           {},
                           {},
                           true,
                           false,
                           {},
                           {},
                           false,
                           true});
    impl_->store.add_type({"external.metrics.k8s.io",
                           "v1beta1",
                           "*",
                           "",
                           "ExternalMetricValueList",
                           "ExternalMetricValueList",
                           {},
                           {},
                           true,
                           false,
                           {},
                           {},
                           false,
                           true});
}

fault_injector& api_server::faults() {
    return impl_->faults;
}

void api_server::on_restart_request(std::function<void(std::chrono::milliseconds)> f) {
    impl_->restart = std::move(f);
}

void api_server::use_admission(admission& chain) {
    impl_->admission_chain = &chain;
}

void api_server::serve_prometheus(std::function<std::string()> text) {
    impl_->prometheus = std::move(text);
}

void api_server::bootstrap() {
    collection* namespaces = impl_->store.find("", "v1", "namespaces");
    for (const char* ns : {"default", "kube-system", "kube-public"}) {
        json_doc doc;
        doc.Parse((std::string(R"({"metadata":{"name":")") + ns + R"("}})").c_str());
        (void)impl_->store.create(*namespaces, "", std::move(doc));
    }
}

} // namespace hpaplus::sim
