// controller/runtime/pod_cache.cpp — selections of the informer's decoded pods, reused while the
// namespace's pods are unchanged.
#include "controller/runtime/pod_cache.hpp"

#include "kinds/records.hpp"

namespace hpaplus::controller {

pod_cache::pod_cache(kube::object_cache& pods) : pods_(pods) {
    pods.on_change([this](kube::change, const kube::object_cptr& object, const kube::object_cptr&) {
        const std::string_view ns = object->namespace_();
        if (const auto g = generations_.find(ns); g != generations_.end())
            g->second = ++changes_;
        else
            generations_.emplace(ns, ++changes_);
    });
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
    if (auto parsed = core::parse_label_selector(selector))
        for (const auto& object : pods_.select(ns, *parsed))
            if (const auto r = object->share<kinds::pod_record>(); r && r->pod)
                last.pods.push_back(pod_cptr(r, &*r->pod));
    return last.pods;
}

} // namespace hpaplus::controller
