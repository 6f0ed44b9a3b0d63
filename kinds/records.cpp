// kinds/records.cpp — decoding objects into their records, once, as they enter a cache.
#include "kinds/records.hpp"

#include "core/interner.hpp"
#include "kinds/decode.hpp"
#include "policy/defaults.hpp"
#include "policy/validation.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string_view>

namespace hpaplus::kinds {
namespace {

// A copy of a value with the pool that holds its nodes.
struct pooled_value {
    static constexpr std::size_t chunk = 512; // a status is a few hundred bytes to a few KiB
    rapidjson::MemoryPoolAllocator<> pool{chunk};
    rapidjson::Value value;
};

status_tree stored_status(const rapidjson::Value& object) {
    if (!object.IsObject()) return nullptr;
    const auto it = object.FindMember("status");
    if (it == object.MemberEnd()) return nullptr;
    auto copy = std::make_shared<pooled_value>();
    copy->value.CopyFrom(it->value, copy->pool);
    return status_tree(copy, &copy->value);
}

std::optional<std::string> error_of(const kube::json_decoder& d) {
    if (d.ok()) return std::nullopt;
    return d.error().to_string();
}

// A plain HPA's sync period is its annotation; an HPAPlus's, spec.syncPeriodSeconds read alone.
std::optional<std::chrono::seconds> sync_period_of(const kube::json_node& root) {
    kube::json_decoder d;
    const auto v = d.opt_int(root["spec"]["syncPeriodSeconds"], 1, 86400);
    if (!d.ok() || !v) return std::nullopt;
    return std::chrono::seconds(*v);
}

// One shared copy of each distinct pod template (the pods of a ReplicaSet are alike), one interner
// per informer. The namespace, owner and container names tell templates apart; pods resized in
// place differ in their requests only, and equality sorts those out.
struct template_identity {
    std::size_t operator()(const std::shared_ptr<const policy::pod_template>& t) const noexcept {
        std::size_t h = std::hash<std::string_view>{}(t->namespace_);
        const auto mix = [&h](std::string_view s) {
            h ^= std::hash<std::string_view>{}(s) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        };
        mix(t->controller.kind);
        mix(t->controller.name);
        for (const auto& c : t->containers)
            mix(c.name);
        return h;
    }
};
struct same_template {
    bool operator()(const std::shared_ptr<const policy::pod_template>& a,
                    const std::shared_ptr<const policy::pod_template>& b) const noexcept {
        return *a == *b;
    }
};
// A use count of 1 is the interner's own: no pod holds that template any more.
struct template_unused {
    bool operator()(const std::shared_ptr<const policy::pod_template>& t) const noexcept {
        return t.use_count() == 1;
    }
};
using template_interner = core::interner<std::shared_ptr<const policy::pod_template>,
                                         template_identity, same_template, template_unused>;

} // namespace

autoscaler_record decode_autoscaler_record(const rapidjson::Value& object, bool native) {
    autoscaler_record r;
    const kube::json_node root{&object, ""};
    kube::json_decoder d;
    r.hpa = decode_autoscaler(d, root);
    kube::json_decoder lenient; // a bad uid or an unreadable status is no error of the spec
    r.uid = lenient.meta(root).uid;
    r.stored_status = stored_status(object);
    if (native) {
        hpa_annotations extras = hpa_annotations_of(object);
        if (extras.sync_period_seconds)
            r.sync_period = std::chrono::seconds(*extras.sync_period_seconds);
        apply_hpa_annotations(extras, r.hpa.spec);
        r.annotation_problems = std::move(extras.problems);
        r.status_writes = status_writes(object);
        r.asks_for_hpaplus = asks_for_hpaplus(object);
        r.hpaplus_annotations = hpaplus_annotations_text(object);
    } else {
        r.sync_period = sync_period_of(root);
    }
    r.invalid = error_of(d);
    if (!r.invalid) {
        policy::apply_defaults(r.hpa.spec);
        if (auto errors = policy::validate(r.hpa.spec); !errors.empty())
            r.invalid = errors.front().field + ": " + errors.front().message;
    }
    if (r.invalid) {
        kube::json_decoder status_decoder;
        r.status_read_alone = decode_autoscaler_status(status_decoder, root["status"]);
    }
    return r;
}

policy::autoscaler_status written_autoscaler_status(std::string_view status_json) {
    rapidjson::Document doc;
    doc.Parse(status_json.data(), status_json.size());
    kube::json_decoder d;
    return decode_autoscaler_status(d, kube::json_node{&doc, "status"});
}

cronhpa_record decode_cronhpa_record(const rapidjson::Value& object) {
    cronhpa_record r;
    kube::json_decoder d;
    r.c = decode_cronhpa(d, {&object, ""});
    r.invalid = error_of(d);
    r.stored_status = stored_status(object);
    return r;
}

vpaplus_record decode_vpaplus_record(const rapidjson::Value& object) {
    vpaplus_record r;
    const kube::json_node root{&object, ""};
    kube::json_decoder d;
    r.v = decode_vpaplus(d, root);
    r.invalid = error_of(d);
    r.status = decode_vpaplus_status(root["status"]);
    if (!r.invalid) r.recommendations = decode_recommendations(root["status"], r.v.policies);
    r.stored_status = stored_status(object);
    return r;
}

record_decoder autoscaler_decoder(bool native) {
    return [native](const rapidjson::Value& object, const kube::cached_object&) {
        return kube::make_record(decode_autoscaler_record(object, native));
    };
}

record_decoder cronhpa_decoder() {
    return [](const rapidjson::Value& object, const kube::cached_object&) {
        return kube::make_record(decode_cronhpa_record(object));
    };
}

record_decoder vpaplus_decoder() {
    return [](const rapidjson::Value& object, const kube::cached_object&) {
        return kube::make_record(decode_vpaplus_record(object));
    };
}

record_decoder pod_decoder(bool vertical) {
    auto templates = std::make_shared<template_interner>();
    return [vertical, templates](const rapidjson::Value& object, const kube::cached_object& meta) {
        pod_record r;
        kube::json_decoder d;
        auto pod = decode_pod(d, {&object, ""});
        if (d.ok()) {
            pod.labels = meta.labels; // the cache's copy: equal sets share one buffer
            pod.shared = templates->intern(std::move(pod.shared));
            r.pod = std::move(pod);
        }
        if (vertical)
            r.view = std::make_unique<const vertical::pod_view>(decode_vertical_pod({&object, ""}));
        return kube::make_record(std::move(r));
    };
}

record_decoder deployment_decoder() {
    return [](const rapidjson::Value& object, const kube::cached_object&) {
        return kube::make_record<deployment_view>(scale_from_deployment(object));
    };
}

record_decoder replicaset_decoder() {
    return [](const rapidjson::Value& object, const kube::cached_object&) {
        kube::json_decoder d;
        replicaset_record r{decode_controller(d, kube::json_node{&object, ""}["metadata"])};
        if (!d.ok()) r.controller = {};
        return kube::make_record(std::move(r));
    };
}

namespace {
void write_target_key(std::string& key, std::string_view ns, const core::object_reference& ref) {
    key.reserve(ns.size() + ref.kind.size() + ref.name.size() + 2);
    key.append(ns).append("/").append(ref.kind).append("/").append(ref.name);
}
} // namespace

std::string target_key(std::string_view ns, const core::object_reference& ref) {
    std::string key;
    write_target_key(key, ns, ref);
    return key;
}

target_lookup::target_lookup(std::string_view ns, const core::object_reference& ref) {
    const std::string_view parts[] = {ns, "/", ref.kind, "/", ref.name};
    std::size_t size = 0;
    for (const auto part : parts)
        size += part.size();
    if (size > sizeof inline_) {
        write_target_key(spilled_, ns, ref);
        return;
    }
    for (const auto part : parts) {
        std::memcpy(inline_ + size_, part.data(), part.size());
        size_ += part.size();
    }
}

void index_by_target(kube::object_cache& cache) {
    cache.add_index(by_target, [](const kube::cached_object& o) -> std::vector<std::string> {
        const core::object_reference* ref = nullptr;
        if (const auto* a = o.as<autoscaler_record>())
            ref = &a->hpa.spec.scale_target_ref;
        else if (const auto* c = o.as<cronhpa_record>())
            ref = &c->c.spec.target;
        else if (const auto* v = o.as<vpaplus_record>())
            ref = &v->v.target;
        if (!ref || ref->kind.empty() || ref->name.empty()) return {};
        return {target_key(o.namespace_(), *ref)};
    });
}

} // namespace hpaplus::kinds
