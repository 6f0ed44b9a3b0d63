// sim/apiserver/collections.cpp — the verbs on objects and collections: get, list, create, update,
// patch, delete, deletecollection, with schema checks and mutating admission of creates.
#include "sim/apiserver/server.hpp"

#include "kube/yaml_json.hpp"
#include "net/json_parse.hpp"
#include "sim/apiserver/admission.hpp"
#include "sim/apiserver/cel_rules.hpp"
#include "sim/apiserver/conversion.hpp"
#include "sim/apiserver/defaults.hpp"
#include "sim/apiserver/hpa_versions.hpp"
#include "sim/apiserver/openapi.hpp"
#include "sim/apiserver/pod_limits.hpp"
#include "sim/apiserver/pod_rules.hpp"
#include "sim/apiserver/priority.hpp"
#include "sim/apiserver/schema.hpp"
#include "sim/apiserver/server_side_apply.hpp"
#include "sim/apiserver/strategic_merge.hpp"
#include "sim/apiserver/table.hpp"
#include "sim/apiserver/validation.hpp"
#include "sim/pod_state.hpp"

#include <boost/asio/use_awaitable.hpp>

#include <charconv>

namespace hpaplus::sim {
namespace {

// A whole unsigned number: digits only, none left over, not past the type's range.
template <class T> bool whole_number(std::string_view text, T& out) {
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end;
}

// The kinds whose registry answers a DELETE with the deleted object (`ReturnDeletedObject: true`
// in kube-apiserver's stores: pods, service accounts, services, namespaces, storage classes, CRDs
// and custom resources); every other kind answers a `Status` of success naming what went.
bool returns_deleted_object(const resource_type& t) {
    if (t.custom) return true;
    if (t.group.empty())
        return t.plural == "pods" || t.plural == "serviceaccounts" || t.plural == "services" ||
               t.plural == "namespaces";
    return (t.group == "storage.k8s.io" && t.plural == "storageclasses") ||
           (t.group == "apiextensions.k8s.io" && t.plural == "customresourcedefinitions");
}

std::string deleted_status(const resource_type& t, const stored_object& o) {
    json_doc doc = status_document("Success");
    auto& a = doc.GetAllocator();
    json details(rapidjson::kObjectType);
    details.AddMember("name", json(o.name.c_str(), a), a);
    details.AddMember("group", json(t.group.c_str(), a), a);
    details.AddMember("kind", json(t.plural.c_str(), a), a);
    details.AddMember("uid", json(string_at(o.doc, "metadata.uid").c_str(), a), a);
    doc.AddMember("details", details, a);
    return to_string(doc);
}

} // namespace

bool api_server::impl::wants_table(const http_request& r) {
    const auto accept = r.header("accept");
    return accept.find("as=Table") != std::string_view::npos;
}

std::optional<filter> api_server::impl::make_filter(const http_request& r, const target& t,
                                                    api_error& error) {
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

http_response api_server::impl::list(const http_request& r, collection& c, const target& t) {
    api_error error;
    auto f = make_filter(r, t, error);
    if (!f) return error_response(error);
    std::size_t limit = 0;
    if (auto l = r.query_param("limit")) {
        if (!whole_number(*l, limit)) return error_response(bad_request("invalid limit"));
    }
    // The continue token: "<rv>:<objects before the cursor>:<last key>" (opaque to clients).
    std::string after;
    std::size_t before = 0;
    if (auto token = r.query_param("continue"); token && !token->empty()) {
        const auto colon = token->find(':');
        const auto second = token->find(':', colon == std::string_view::npos ? 0 : colon + 1);
        std::uint64_t token_rv = 0;
        if (second == std::string_view::npos || !whole_number(token->substr(0, colon), token_rv) ||
            !whole_number(token->substr(colon + 1, second - colon - 1), before))
            return error_response(bad_request("continue key is not valid"));
        if (token_rv < c.compacted_rv)
            return error_response(
                expired("The provided continue parameter is too old to display a consistent "
                        "list result. "
                        "You can start a new list without the continue parameter."));
        after = std::string(token->substr(second + 1));
    }
    // As the etcd store: remainingItemCount only when no selector filtered the list.
    const bool selected = !r.query_param("labelSelector").value_or("").empty() ||
                          !r.query_param("fieldSelector").value_or("").empty();
    // A page costs what it holds, as a range read from etcd does: a namespace's list starts at
    // its first key and ends past its last; the rest of a whole collection is counted, not walked
    // (an informer lists 100,000 pods in 200 pages).
    const std::string prefix = f->ns.empty() ? "" : f->ns + "/";
    std::vector<object_ptr> items;
    std::string next;
    std::size_t remaining = 0; // after this page, when it is cut short
    std::size_t passed = 0;    // objects of the collection this page went past
    for (auto it = after.empty() ? c.objects.lower_bound(prefix) : c.objects.upper_bound(after);
         it != c.objects.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
        if (!f->matches(*it->second)) {
            ++passed;
            continue;
        }
        if (limit > 0 && items.size() == limit) {
            if (next.empty())
                next = std::to_string(store.resource_version()) + ":" +
                       std::to_string(before + passed) + ":" + std::prev(it)->first;
            if (selected) break; // not reported
            if (prefix.empty()) {
                // every object matches: the ones not yet passed remain (an estimate while the
                // collection changes between pages, as the API allows)
                remaining = c.objects.size() - std::min(c.objects.size(), before + passed);
                break;
            }
            ++remaining;
            continue;
        }
        items.push_back(it->second);
        ++passed;
    }
    if (wants_table(r))
        return ok(table_json(c.type, items, store.resource_version(), now_time(), next));
    std::string body = R"({"kind":")" + c.type.list_kind + R"(","apiVersion":")" +
                       served_group_version(c.type, t) + R"(","metadata":{"resourceVersion":")" +
                       std::to_string(store.resource_version()) + "\"";
    if (!next.empty()) body += R"(,"continue":")" + next + "\"";
    if (!next.empty() && !selected) body += R"(,"remainingItemCount":)" + std::to_string(remaining);
    body += R"(},"items":[)";
    for (std::size_t i = 0; i < items.size(); ++i)
        body += (i ? "," : "") + served_text(c.type, t, *items[i]);
    body += "]}";
    return ok(std::move(body));
}

std::string api_server::impl::served_group_version(const resource_type& type, const target& t) {
    return type.stored_as(t.group, t.version) ? type.group_version()
           : t.group.empty()                  ? t.version
                                              : t.group + "/" + t.version;
}

std::string api_server::impl::served_text(const resource_type& type, const target& t,
                                          const stored_object& o) {
    if (type.stored_as(t.group, t.version)) return o.text;
    return to_string(converted_from_stored(type, t.group, t.version, o.doc));
}

write_origin api_server::impl::origin_of(const http_request& r, const resource_type& type,
                                         const target& t) {
    write_origin origin;
    origin.manager =
        field_manager_of(r.query_param("fieldManager").value_or(""), r.header("user-agent"));
    origin.api_version = served_group_version(type, t);
    return origin;
}

// Every request but a watch: one complete response.
http_response api_server::impl::objects(http_request& r, target t) {
    collection* c = store.find(t.group, t.version, t.plural);
    if (!c || (!c->type.namespaced && !t.ns.empty())) return error_response(not_found_path(r.path));
    const std::string& method = r.method;
    if (t.name.empty()) return collection_request(r, *c, t);

    const bool pod = c->type.plural == "pods" && c->type.group.empty();
    if (!t.sub.empty() && t.sub != "status" && !(t.sub == "scale" && c->type.scale) &&
        !(pod && (t.sub == "resize" || t.sub == "eviction")))
        return error_response(not_found_path(r.path));
    const object_ptr current = store.get(*c, t.ns, t.name);
    if (method == "PATCH" && t.sub.empty() &&
        r.header("content-type").find("application/apply-patch+yaml") == 0)
        return apply(r, *c, t, current);
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
        return ok(served_text(c->type, t, *current));
    }
    if (method == "DELETE") {
        if (!t.sub.empty()) return error_response(method_not_supported(c->type, method));
        const auto options = delete_options_of(r);
        if (!options) return error_response(options.error());
        if (auto e = check_preconditions(c->type, *current, *options)) return error_response(*e);
        if (c->type.plural == "namespaces" && c->type.group.empty()) {
            // Terminating: the namespace controller (sim/workload/namespaces.cpp) deletes what is
            // in it, then the namespace, as kube-controller-manager's does, a little later.
            // NamespaceLifecycle: the namespaces every cluster has are immortal.
            if (t.name == "default" || t.name == "kube-system" || t.name == "kube-public")
                return error_response(api_error{403,
                                                "Forbidden",
                                                "namespaces \"" + t.name +
                                                    "\" is forbidden: this namespace may not be "
                                                    "deleted",
                                                t.name,
                                                "",
                                                "namespaces",
                                                {},
                                                std::nullopt});
            if (find_path(current->doc, "metadata.deletionTimestamp"))
                return ok(served_text(c->type, t, *current));
            return ok(served_text(c->type, t, *mark_terminating(*c, current)));
        }
        if (pod) {
            // Graceful, as the pod strategy deletes: Terminating until the kubelet is done.
            auto deleted = delete_pod(store, *c, current, options->grace_seconds, now_time());
            if (!deleted) return error_response(deleted.error());
            return ok(served_text(c->type, t, *deleted->pod));
        }
        const std::string& policy = options->propagation;
        if (policy == "Orphan" || policy == "Foreground") {
            const object_ptr marked = delete_propagating(*c, current, policy == "Orphan");
            return ok(served_text(c->type, t, *marked));
        }
        auto removed = store.remove(*c, t.ns, t.name);
        if (!removed) return error_response(removed.error());
        return ok(returns_deleted_object(c->type) ? served_text(c->type, t, **removed)
                                                  : deleted_status(c->type, **removed));
    }
    if (method != "PUT" && method != "PATCH")
        return error_response(method_not_supported(c->type, method));

    const bool converted = t.sub != "scale" && !c->type.stored_as(t.group, t.version);
    json_doc body;
    if (method == "PUT") {
        if (auto e = parse_body(r, body)) return error_response(*e);
    } else {
        if (t.sub == "scale") {
            auto scale = scale_of(*c, *current);
            if (!scale) return error_response(scale.error());
            body.Parse(scale->c_str());
        } else {
            body = converted ? converted_from_stored(c->type, t.group, t.version, current->doc)
                             : clone(current->doc);
        }
        resource_type patched = c->type;
        patched.group = t.group; // a patch applies to the version the client sees
        patched.version = t.version;
        if (auto e = apply_patch(r, patched, body)) return error_response(*e);
    }
    if (t.sub == "scale") return write_scale(*c, t, *current, body);
    if (converted) convert_to_stored(c->type, t.group, t.version, body);
    if (t.sub.empty()) {
        apply_defaults(c->type, body);
        keep_pod_priority(c->type, body, current->doc);
        if (auto e = check_pod_update(c->type, current->doc, body)) return error_response(*e);
        if (auto e = validate_builtin(c->type, t.name, body, &current->doc))
            return error_response(*e);
        if (auto e = admit_priority_class(store, c->type, body, &current->doc))
            return error_response(*e);
    }
    if (t.sub == "status" && is_hpa(c->type)) drop_empty_status_lists(body);
    if (auto e = check_schema(r, c->type, t.name, body, &current->doc)) return error_response(*e);
    if (auto e = prepare_webhook_configuration(c->type, t.name, body)) return error_response(*e);
    const write_origin origin = origin_of(r, c->type, t);
    auto stored = store.update(*c, t.ns, t.name, std::move(body),
                               t.sub == "status" ? write_mode::status : write_mode::main, &origin);
    return stored ? ok(served_text(c->type, t, **stored)) : error_response(stored.error());
}

// List, create, or delete a collection.
http_response api_server::impl::collection_request(const http_request& r, collection& c,
                                                   target& t) {
    if (r.method == "GET") return list(r, c, t);
    if (r.method == "POST") {
        json_doc body;
        if (auto e = parse_body(r, body)) return error_response(*e);
        if (c.type.namespaced && t.ns.empty()) {
            const std::string ns = string_at(body, "metadata.namespace");
            t.ns = ns.empty() ? "default" : ns;
        }
        const std::string name = string_at(body, "metadata.name");
        if (auto e = check_schema(r, c.type, name, body)) return error_response(*e);
        if (auto e = prepare_webhook_configuration(c.type, name, body)) return error_response(*e);
        if (!c.type.stored_as(t.group, t.version)) {
            if (auto e = validate_served_create(c.type, t.group, t.version, body))
                return error_response(*e);
            convert_to_stored(c.type, t.group, t.version, body);
        }
        apply_defaults(c.type, body);
        // The namespace of the path is the object's before it is validated (rest.BeforeCreate).
        if (c.type.namespaced && string_at(body, "metadata.namespace").empty())
            set_path(body, "metadata.namespace", json(t.ns.c_str(), body.GetAllocator()),
                     body.GetAllocator());
        write_origin origin = origin_of(r, c.type, t);
        if (c.type.group == "batch" && c.type.plural == "jobs")
            generate_job_selector(body, origin.uid = new_uid());
        const bool pod = c.type.group.empty() && c.type.plural == "pods";
        if (pod) { // LimitRanger and Priority, mutating plugins
            apply_limit_ranges(store, t.ns, body);
            if (auto e = admit_pod_priority(store, body)) return error_response(*e);
        }
        // Validated once it is known to be this kind (a wrong kind is the store's 400 first).
        if (const std::string kind = string_at(body, "kind"); kind.empty() || kind == c.type.kind)
            if (auto e = validate_builtin(c.type, name, body)) return error_response(*e);
        if (pod) // LimitRanger's bounds and ResourceQuota, validating plugins
            if (auto e = admit_pod_limits(store, t.ns, body)) return error_response(*e);
        if (auto e = admit_priority_class(store, c.type, body, nullptr)) return error_response(*e);
        auto stored = store.create(c, t.ns, std::move(body), &origin);
        return stored ? ok(served_text(c.type, t, **stored), 201) : error_response(stored.error());
    }
    if (r.method == "DELETE") {
        api_error error;
        auto f = make_filter(r, t, error);
        if (!f) return error_response(error);
        std::vector<object_ptr> doomed;
        for (const auto& [k, o] : c.objects)
            if (f->matches(*o)) doomed.push_back(o);
        // deletecollection answers the list of what it deleted, as the generic registry does.
        std::string body = R"({"kind":")" + c.type.list_kind + R"(","apiVersion":")" +
                           served_group_version(c.type, t) + R"(","metadata":{},"items":[)";
        bool first = true;
        for (const auto& o : doomed)
            if (auto removed = store.remove(c, o->namespace_, o->name)) {
                body += (first ? "" : ",") + served_text(c.type, t, **removed);
                first = false;
            }
        return ok(body + "]}");
    }
    return error_response(method_not_supported(c.type, r.method));
}

std::optional<api_error> api_server::impl::parse_body(const http_request& r, json_doc& body) {
    if (std::string e = net::parse_json(body, r.body); !e.empty())
        return bad_request("the body of the request could not be decoded as JSON: " + e);
    return std::nullopt;
}

// Applies a PATCH body to `base` according to its content type.
std::optional<api_error> api_server::impl::apply_patch(const http_request& r,
                                                       const resource_type& type, json_doc& base) {
    const std::string_view ct = r.header("content-type");
    json_doc patch;
    if (auto e = parse_body(r, patch)) return e;
    if (ct.find("application/json-patch+json") == 0) {
        if (auto e = json_patch(base, patch))
            return api_error{422, "Invalid", *e, {}, {}, {}, {}, std::nullopt};
        return std::nullopt;
    }
    if (ct.find("application/strategic-merge-patch+json") == 0 && !type.custom) {
        if (auto e = strategic_merge_patch(base, patch,
                                           builtin_kind_schema(type.group, type.version, type.kind),
                                           base.GetAllocator()))
            return bad_request(*e);
        return std::nullopt;
    }
    if (ct.find("application/merge-patch+json") == 0) {
        merge_patch(base, patch, base.GetAllocator());
        return std::nullopt;
    }
    // Every patch type this kind accepts.
    return unsupported_media_type(
        std::string("the body of the request was in an unknown format - accepted media types "
                    "include: application/json-patch+json, application/merge-patch+json") +
        (type.custom ? "" : ", application/strategic-merge-patch+json") +
        ", application/apply-patch+yaml");
}

http_response api_server::impl::apply(const http_request& r, collection& c, const target& t,
                                      const object_ptr& current) {
    const std::string manager(r.query_param("fieldManager").value_or(""));
    if (manager.empty())
        return error_response(bad_request("PATCH with apply requires the fieldManager parameter"));
    const std::string force(r.query_param("force").value_or("false"));
    if (force != "true" && force != "false")
        return error_response(bad_request("invalid value for force: " + force));
    // JSON is YAML too (what kubectl and the client libraries send); other YAML is converted with
    // the same limits as any manifest.
    json_doc applied;
    if (!net::parse_json(applied, r.body).empty()) {
        auto documents = kube::yaml_documents_to_json(r.body);
        if (!documents || documents->size() != 1)
            return error_response(bad_request(
                "the body of the request could not be decoded as YAML: " +
                (documents ? std::string("expected one document") : documents.error().text)));
        if (auto e = net::parse_json(applied, documents->front()); !e.empty())
            return error_response(bad_request(e));
    }
    if (!applied.IsObject())
        return error_response(bad_request("the applied configuration must be an object"));
    // The applied object names its type, as the apply decoder needs it.
    if (string_at(applied, "apiVersion").empty() || string_at(applied, "kind").empty()) {
        const std::string version = string_at(applied, "apiVersion");
        const auto slash = version.find('/');
        return error_response(
            bad_request("invalid object type: " +
                        (slash == std::string::npos
                             ? "/" + version
                             : version.substr(0, slash) + "/" + version.substr(slash + 1)) +
                        ", Kind=" + string_at(applied, "kind")));
    }
    const std::string body_name = string_at(applied, "metadata.name");
    if (!body_name.empty() && body_name != t.name)
        return error_response(bad_request("the name of the object (" + body_name +
                                          ") does not match the name on the URL (" + t.name + ")"));
    const bool converted = !c.type.stored_as(t.group, t.version);
    json_doc live;
    if (current)
        live = converted ? converted_from_stored(c.type, t.group, t.version, current->doc)
                         : clone(current->doc);
    const json* schema =
        c.type.schema ? c.type.schema.get() : builtin_kind_schema(t.group, t.version, c.type.kind);
    auto result = server_side_apply({applied, current ? &live : nullptr, schema, manager,
                                     served_group_version(c.type, t), force == "true", now_time()});
    if (auto* e = std::get_if<api_error>(&result)) return error_response(*e);
    json_doc body = std::move(std::get<json_doc>(result));
    set_path(body, "metadata.name", json(t.name.c_str(), body.GetAllocator()), body.GetAllocator());
    if (converted) convert_to_stored(c.type, t.group, t.version, body);
    apply_defaults(c.type, body);
    if (c.type.namespaced && string_at(body, "metadata.namespace").empty())
        set_path(body, "metadata.namespace", json(t.ns.c_str(), body.GetAllocator()),
                 body.GetAllocator());
    write_origin origin = origin_of(r, c.type, t);
    const bool pod = !current && c.type.group.empty() && c.type.plural == "pods";
    if (!current && c.type.group == "batch" && c.type.plural == "jobs")
        generate_job_selector(body, origin.uid = new_uid());
    if (pod) {
        apply_limit_ranges(store, t.ns, body);
        if (auto e = admit_pod_priority(store, body)) return error_response(*e);
    } else if (current) {
        keep_pod_priority(c.type, body, current->doc);
    }
    if (auto e = validate_builtin(c.type, t.name, body, current ? &current->doc : nullptr))
        return error_response(*e);
    if (pod)
        if (auto e = admit_pod_limits(store, t.ns, body)) return error_response(*e);
    const json_doc managed = clone(*find_path(body, "metadata.managedFields"));
    origin.applied_fields = &managed;
    if (auto e = check_schema(r, c.type, t.name, body, current ? &current->doc : nullptr))
        return error_response(*e);
    if (auto e = admit_priority_class(store, c.type, body, current ? &current->doc : nullptr))
        return error_response(*e);
    if (!current) {
        if (auto e = prepare_webhook_configuration(c.type, t.name, body)) return error_response(*e);
        auto stored = store.create(c, t.ns, std::move(body), &origin);
        return stored ? ok(served_text(c.type, t, **stored), 201) : error_response(stored.error());
    }
    if (auto e = check_pod_update(c.type, current->doc, body)) return error_response(*e);
    if (auto e = prepare_webhook_configuration(c.type, t.name, body)) return error_response(*e);
    // As an update of the object the apply read: no precondition of its own.
    set_path(body, "metadata.resourceVersion",
             json(std::to_string(current->rv).c_str(), body.GetAllocator()), body.GetAllocator());
    auto stored = store.update(c, t.ns, t.name, std::move(body), write_mode::main, &origin);
    return stored ? ok(served_text(c.type, t, **stored)) : error_response(stored.error());
}

// A custom resource is pruned, defaulted and validated against its CRD's schema; with
// `fieldValidation=Strict` (what kubectl sends by default) an unknown field is refused.
std::optional<api_error> api_server::impl::check_schema(const http_request& r,
                                                        const resource_type& type,
                                                        const std::string& name, json_doc& body,
                                                        const json* old) {
    if (!type.schema) return std::nullopt;
    std::vector<std::string> unknown;
    bool blocked = false;
    auto errors = apply_schema(*type.schema, body, body.GetAllocator(), &unknown, &blocked);
    // The CEL rules run once the object has the schema's shape (strategy.go's hasBlockingErr).
    if (type.rules && blocked) errors.emplace_back("<nil>", rules_not_checked);
    if (type.rules && !blocked) {
        auto broken = check_rules(*type.rules, *type.schema, body, old);
        errors.insert(errors.end(), broken.begin(), broken.end());
    }
    if (!errors.empty()) return invalid(type, name, std::move(errors));
    if (unknown.empty() || r.query_param("fieldValidation") != "Strict") return std::nullopt;
    std::string message = "strict decoding error: ";
    for (std::size_t i = 0; i < unknown.size(); ++i)
        message += (i ? ", " : "") + std::string("unknown field \"") + unknown[i] + "\"";
    return bad_request(message);
}

// DeleteOptions.propagationPolicy, from the query or the body ("" when neither says; the old
// orphanDependents: true counts as Orphan).
api_result<api_server::impl::delete_options>
api_server::impl::delete_options_of(const http_request& r) {
    delete_options d;
    if (auto p = r.query_param("propagationPolicy"); p && !p->empty()) d.propagation = *p;
    if (auto g = r.query_param("gracePeriodSeconds"); g && !g->empty()) {
        std::int64_t seconds = 0;
        const auto [end, ec] = std::from_chars(g->data(), g->data() + g->size(), seconds);
        if (ec != std::errc() || end != g->data() + g->size())
            return bad_request("gracePeriodSeconds: invalid value \"" + std::string(*g) + "\"");
        d.grace_seconds = seconds;
    }
    if (r.body.empty()) return d;
    json_doc options;
    if (auto e = parse_body(r, options)) return *e;
    if (!options.IsObject()) return bad_request("the body of a DELETE must be a DeleteOptions");
    if (d.propagation.empty()) d.propagation = string_at(options, "propagationPolicy");
    const json* orphan = find_path(options, "orphanDependents");
    if (d.propagation.empty() && orphan && orphan->IsBool() && orphan->GetBool())
        d.propagation = "Orphan";
    if (const json* g = find_path(options, "gracePeriodSeconds"); g && g->IsInt64())
        d.grace_seconds = g->GetInt64();
    if (const json* uid = find_path(options, "preconditions.uid"); uid && uid->IsString())
        d.uid = uid->GetString();
    if (const json* rv = find_path(options, "preconditions.resourceVersion"); rv && rv->IsString())
        d.resource_version = rv->GetString();
    return d;
}

std::optional<api_error> api_server::impl::check_preconditions(const resource_type& type,
                                                               const stored_object& o,
                                                               const delete_options& d) {
    const std::string uid = string_at(o.doc, "metadata.uid");
    const std::string rv = std::to_string(o.rv);
    std::string failed;
    if (d.uid && *d.uid != uid)
        failed =
            "Precondition failed: UID in precondition: " + *d.uid + ", UID in object meta: " + uid;
    else if (d.resource_version && *d.resource_version != rv)
        failed = "Precondition failed: ResourceVersion in precondition: " + *d.resource_version +
                 ", ResourceVersion in object meta: " + rv;
    if (failed.empty()) return std::nullopt;
    // The registry's storage error, as it reaches the client (namespaces check theirs first).
    if (!(type.group.empty() && type.plural == "namespaces"))
        failed = "StorageError: invalid object, Code: 4, Key: /registry/" +
                 (type.custom ? type.group + "/" : std::string()) + type.plural + "/" +
                 (o.namespace_.empty() ? "" : o.namespace_ + "/") + o.name +
                 ", ResourceVersion: 0, AdditionalErrorMsg: " + failed;
    api_error e = conflict(type, o.name);
    e.message = "Operation cannot be fulfilled on " + type.qualified_plural() + " \"" + o.name +
                "\": " + failed;
    return e;
}

// The objects of `ns` that name `uid` among their ownerReferences.
std::vector<std::pair<collection*, object_ptr>>
api_server::impl::dependents_of(const std::string& ns, const std::string& uid) {
    std::vector<std::pair<collection*, object_ptr>> out;
    for (collection* c : store.collections()) {
        if (!c->type.namespaced || c->type.create_only) continue;
        for (const auto& [key, o] : namespace_range(*c, ns)) {
            const json* owners = find_path(o->doc, "metadata.ownerReferences");
            if (!owners || !owners->IsArray()) continue;
            for (const auto& ref : owners->GetArray())
                if (string_at(ref, "uid") == uid) {
                    out.emplace_back(c, o);
                    break;
                }
        }
    }
    return out;
}

// Orphan and Foreground deletion as the garbage collector carries them out: the owner first gets
// a deletionTimestamp and the `orphan` or `foregroundDeletion` finalizer (what the DELETE
// answers), then its dependents lose their reference to it (Orphan) or are deleted, theirs first
// (Foreground), and only then does the owner go.
object_ptr api_server::impl::delete_propagating(collection& c, const object_ptr& owner,
                                                bool orphan) {
    json_doc next = clone(owner->doc);
    auto& a = next.GetAllocator();
    const std::string now = core::format_rfc3339(now_time());
    set_path(next, "metadata.deletionTimestamp", json(now.c_str(), a), a);
    set_path(next, "metadata.deletionGracePeriodSeconds", json(0), a);
    json finalizers(rapidjson::kArrayType);
    finalizers.PushBack(rapidjson::StringRef(orphan ? "orphan" : "foregroundDeletion"), a);
    set_path(next, "metadata.finalizers", std::move(finalizers), a);
    auto marked =
        store.update(c, owner->namespace_, owner->name, std::move(next), write_mode::internal);
    const object_ptr answer = marked ? *marked : owner;
    const std::string uid = string_at(owner->doc, "metadata.uid");
    for (const auto& [dc, dependent] : dependents_of(owner->namespace_, uid)) {
        if (!orphan) {
            (void)delete_propagating(*dc, dependent, false);
            continue;
        }
        json_doc freed = clone(dependent->doc);
        json* refs = const_cast<json*>(find_path(freed, "metadata.ownerReferences"));
        for (auto it = refs->Begin(); it != refs->End();)
            it = string_at(*it, "uid") == uid ? refs->Erase(it) : it + 1;
        if (refs->Empty()) erase_path(freed, "metadata.ownerReferences");
        (void)store.update(*dc, dependent->namespace_, dependent->name, std::move(freed),
                           write_mode::internal);
    }
    (void)store.remove(c, owner->namespace_, owner->name);
    return answer;
}

object_ptr api_server::impl::mark_terminating(collection& namespaces, const object_ptr& ns) {
    json_doc next = clone(ns->doc);
    auto& a = next.GetAllocator();
    const std::string now = core::format_rfc3339(now_time());
    set_path(next, "metadata.deletionTimestamp", json(now.c_str(), a), a);
    set_path(next, "metadata.deletionGracePeriodSeconds", json(0), a);
    auto marked = store.update(namespaces, "", ns->name, clone(next), write_mode::internal);
    if (!marked) return ns;
    json_doc status = clone((*marked)->doc);
    set_path(status, "status.phase", json("Terminating"), status.GetAllocator());
    auto terminating =
        store.update(namespaces, "", ns->name, std::move(status), write_mode::internal_status);
    return terminating ? *terminating : *marked;
}

// Mutating admission of a create: the webhooks' patches end up in the request body, which
// the create then stores (after schema validation, as on the real server).
asio::awaitable<std::optional<api_error>> api_server::impl::admit(http_request& r,
                                                                  const target& t) {
    collection* c = store.find(t.group, t.version, t.plural);
    if (!c || !t.sub.empty()) co_return std::nullopt;
    json_doc body;
    if (parse_body(r, body) || !body.IsObject()) co_return std::nullopt; // create says why
    std::string ns = t.ns;
    if (c->type.namespaced && ns.empty()) {
        ns = string_at(body, "metadata.namespace");
        if (ns.empty()) ns = "default";
    }
    apply_defaults(c->type, body); // webhooks see the defaulted object, as on the real server
    if (!admission_chain->wants(c->type, ns, body)) co_return std::nullopt;
    const resource_type type = c->type; // the collection may change while the calls run
    auto error = co_await admission_chain->admit_create(type, ns, body);
    if (!error) r.body = to_string(body);
    co_return error;
}

} // namespace hpaplus::sim
