// sim/apiserver/crd_registry.cpp — a CustomResourceDefinition makes its kind served at once, as on
// the real server, and reports NamesAccepted and Established.
#include "sim/apiserver/server.hpp"

#include "sim/apiserver/cel_rules.hpp"

#include <boost/asio/post.hpp>

#include <cctype>

namespace hpaplus::sim {

std::optional<resource_type> api_server::impl::crd_type(const json& crd) const {
    resource_type t;
    t.custom = true;
    t.group = string_at(crd, "spec.group");
    t.plural = string_at(crd, "spec.names.plural");
    t.singular = string_at(crd, "spec.names.singular");
    t.kind = string_at(crd, "spec.names.kind");
    t.list_kind = string_at(crd, "spec.names.listKind");
    if (t.list_kind.empty()) t.list_kind = t.kind + "List";
    if (t.singular.empty()) t.singular = ascii_lower(t.kind);
    t.namespaced = string_at(crd, "spec.scope") != "Cluster";
    for (const char* path : {"spec.names.shortNames", "spec.names.categories"}) {
        if (const json* list = find_path(crd, path); list && list->IsArray())
            for (const auto& v : list->GetArray())
                if (v.IsString())
                    (std::string_view(path).find("short") != std::string_view::npos ? t.short_names
                                                                                    : t.categories)
                        .emplace_back(v.GetString());
    }
    const json* versions = find_path(crd, "spec.versions");
    if (t.group.empty() || t.plural.empty() || t.kind.empty() || !versions || !versions->IsArray())
        return std::nullopt;
    const json* chosen = nullptr;
    for (const auto& v : versions->GetArray()) {
        const json* storage = find_path(v, "storage");
        if (!chosen || (storage && storage->IsBool() && storage->GetBool())) chosen = &v;
    }
    if (!chosen) return std::nullopt;
    t.version = string_at(*chosen, "name");
    t.status_subresource = find_path(*chosen, "subresources.status") != nullptr;
    if (const json* scale = find_path(*chosen, "subresources.scale"); scale && scale->IsObject())
        t.scale = scale_paths{string_at(*scale, "specReplicasPath"),
                              string_at(*scale, "statusReplicasPath"),
                              string_at(*scale, "labelSelectorPath")};
    if (const json* schema = find_path(*chosen, "schema.openAPIV3Schema");
        schema && schema->IsObject()) {
        auto copy = std::make_shared<json_doc>();
        copy->CopyFrom(*schema, copy->GetAllocator());
        t.rules = compile_rules(*copy, "").rules; // keyed by the copy's nodes
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

void api_server::impl::on_crd_change(const watch_event& e) {
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
        collection* crds = store.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
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
        set_path(doc, "status.acceptedNames", json(*find_path(current->doc, "spec.names"), a), a);
        (void)store.update(*crds, "", name, std::move(doc), write_mode::internal_status);
    });
}

} // namespace hpaplus::sim
