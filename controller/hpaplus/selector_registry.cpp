// controller/hpaplus/selector_registry.cpp — see the header.
#include "controller/hpaplus/selector_registry.hpp"

#include <algorithm>

namespace hpaplus::controller {

void selector_registry::put(const std::string& ns, const std::string& name, selector_ptr selector,
                            bool tell) {
    if (!selector) { // no selector: nothing this object picks
        erase(ns, name, tell);
        return;
    }
    auto& slot = namespaces_[ns][name];
    if (slot && *slot == *selector && versions_.count(ns)) return;
    slot = std::move(selector);
    versions_[ns] = ++changes_;
    if (tell && listener_) listener_(ns, name, slot);
}

std::uint64_t selector_registry::version(const std::string& ns) const {
    const auto it = versions_.find(ns);
    return it == versions_.end() ? 0 : it->second;
}

void selector_registry::erase(const std::string& ns, const std::string& name, bool tell) {
    const auto it = namespaces_.find(ns);
    if (it == namespaces_.end()) return;
    if (it->second.erase(name) == 0) return;
    versions_[ns] = ++changes_;
    if (it->second.empty()) namespaces_.erase(it);
    if (tell && listener_) listener_(ns, name, nullptr);
}

std::vector<policy::peer_autoscaler>
selector_registry::peers_picking(const std::string& ns, const std::string& name,
                                 const std::vector<const policy::pod_info*>& pods) const {
    std::vector<policy::peer_autoscaler> peers;
    const auto it = namespaces_.find(ns);
    if (it == namespaces_.end() || pods.empty()) return peers;
    for (const auto& [peer, selector] : it->second) {
        if (peer == name) continue;
        // Clang 14 cannot capture a structured binding: the lambda takes a reference of its own.
        const core::label_selector& peer_selector = *selector;
        const bool picks = std::any_of(pods.begin(), pods.end(), [&](const policy::pod_info* p) {
            return peer_selector.matches(p->labels);
        });
        if (picks) peers.push_back({peer, peer_selector});
    }
    return peers;
}

} // namespace hpaplus::controller
