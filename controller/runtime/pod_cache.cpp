// controller/runtime/pod_cache.cpp — decode on first use, forget on DELETED.
#include "controller/runtime/pod_cache.hpp"

#include "kube/decode.hpp"

#include <rapidjson/document.h>

namespace hpaplus::controller {
namespace {

pod_cptr decode(const kube::cached_object& object) {
    rapidjson::Document doc;
    doc.Parse(object.json.data(), object.json.size());
    if (doc.HasParseError()) return nullptr;
    kube::json_decoder d;
    auto pod = kube::decode_pod(d, {&doc, ""});
    if (!d.ok()) return nullptr;
    return std::make_shared<const policy::pod_info>(std::move(pod));
}

} // namespace

pod_cache::pod_cache(kube::informer& pods) : pods_(pods) {
    pods.on_change(
        [this](kube::change what, const kube::object_cptr& object, const kube::object_cptr&) {
            if (what == kube::change::deleted) decoded_.erase(object->key);
            generations_[object->namespace_] = ++changes_;
        });
}

void pod_cache::select(const std::string& ns, const core::label_selector& selector,
                       std::vector<pod_cptr>& out) {
    for (const auto& object : pods_.select(ns, selector)) {
        auto [it, added] = decoded_.try_emplace(object->key);
        entry& e = it->second;
        if (added || e.resource_version != object->resource_version) {
            e.resource_version = object->resource_version;
            e.pod = decode(*object);
        }
        if (e.pod) out.push_back(e.pod);
    }
}

const std::vector<pod_cptr>& pod_cache::select(const std::string& ns, const std::string& selector,
                                               selection& last) {
    const auto g = generations_.find(ns);
    // A namespace whose pods never changed has generation 1 here (and none was ever 0).
    const std::uint64_t now = g == generations_.end() ? 1 : g->second + 1;
    if (last.generation == now && last.ns == ns && last.selector == selector) return last.pods;
    last.ns = ns;
    last.selector = selector;
    last.generation = now;
    last.pods.clear();
    if (auto parsed = core::parse_label_selector(selector)) select(ns, *parsed, last.pods);
    return last.pods;
}

} // namespace hpaplus::controller
