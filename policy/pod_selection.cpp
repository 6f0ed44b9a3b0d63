// policy/pod_selection.cpp — following a pod's controllers up to the target.
#include "policy/pod_selection.hpp"

#include <algorithm>

namespace hpaplus::policy {
namespace {

// Pod → ReplicaSet → Deployment is two hops; anything deeper (an operator's own kinds) gets a few
// more, and a cycle in hostile data ends.
constexpr int max_hops = 8;

std::string_view group_of(std::string_view api_version) {
    const auto slash = api_version.find('/');
    return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

bool same_object(const core::object_reference& a, const core::object_reference& b) {
    if (a.kind != b.kind || a.name != b.name) return false;
    return a.api_version.empty() || b.api_version.empty() ||
           group_of(a.api_version) == group_of(b.api_version);
}

} // namespace

bool owned_by(const pod_info& pod, const core::object_reference& target,
              std::span<const controller_link> links) {
    const core::object_reference* at = &pod.controller();
    for (int hop = 0; hop < max_hops && !at->kind.empty(); ++hop) {
        if (same_object(*at, target)) return true;
        const auto up = std::find_if(links.begin(), links.end(), [&](const controller_link& l) {
            return same_object(l.object, *at);
        });
        if (up == links.end()) return false;
        at = &up->controller;
    }
    return false;
}

std::vector<std::string> keep_owned(std::vector<const pod_info*>& pods,
                                    const core::object_reference& target,
                                    std::span<const controller_link> links) {
    std::vector<std::string> excluded;
    std::erase_if(pods, [&](const pod_info* p) {
        if (owned_by(*p, target, links)) return false;
        excluded.push_back(p->name);
        return true;
    });
    std::sort(excluded.begin(), excluded.end());
    return excluded;
}

std::string excluded_pods_message(const std::vector<std::string>& names,
                                  const core::object_reference& target) {
    constexpr std::size_t named = 5;
    std::string m =
        std::to_string(names.size()) + (names.size() == 1 ? " pod matches" : " pods match") +
        " the target's selector but " + (names.size() == 1 ? "is" : "are") + " not owned by " +
        target.kind + "/" + target.name + " (podSelection OwnerReferences): ";
    for (std::size_t i = 0; i < names.size() && i < named; ++i)
        m += (i ? ", " : "") + names[i];
    if (names.size() > named) m += ", and " + std::to_string(names.size() - named) + " more";
    return m;
}

} // namespace hpaplus::policy
