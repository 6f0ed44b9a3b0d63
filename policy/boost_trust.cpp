// policy/boost_trust.cpp — believing a start-up boost record only where the cluster agrees.
#include "policy/boost_trust.hpp"

#include <algorithm>

namespace hpaplus::policy {
namespace {

bool same_milli(const std::optional<core::quantity>& claimed,
                const std::optional<std::int64_t>& known) {
    return claimed && known && claimed->milli_value() == *known;
}

} // namespace

bool boost_believed(const pod_info& pod, const boost_authority* authority) {
    if (!authority || authority->vpaplus.empty()) return false;
    return std::all_of(pod.boosted.begin(), pod.boosted.end(), [&](const boosted_container& b) {
        if (b.by != authority->vpaplus) return false;
        const auto c = std::find_if(authority->containers.begin(), authority->containers.end(),
                                    [&](const auto& t) { return t.name == b.name; });
        if (c == authority->containers.end() || !same_milli(b.request, c->request_milli))
            return false;
        return !b.limit || same_milli(b.limit, c->limit_milli);
    });
}

std::vector<std::string> vet_boosts(std::vector<const pod_info*>& pods,
                                    const boost_authority* authority,
                                    std::forward_list<pod_info>& vetted) {
    std::vector<std::string> ignored;
    for (const pod_info*& p : pods) {
        if (p->boosted.empty() || boost_believed(*p, authority)) continue;
        ignored.push_back(p->name);
        pod_info& copy = vetted.emplace_front(*p);
        copy.boosted.clear();
        p = &copy;
    }
    std::sort(ignored.begin(), ignored.end());
    return ignored;
}

std::string ignored_boosts_message(const std::vector<std::string>& pods) {
    std::string m = "start-up boost records not believed (no VPAPlus with startupBoost on the "
                    "target names them, or their unboosted cpu is not the pod template's); these "
                    "pods count at the cpu they request: ";
    for (std::size_t i = 0; i < pods.size() && i < 10; ++i)
        m += (i ? ", " : "") + pods[i];
    if (pods.size() > 10) m += " and " + std::to_string(pods.size() - 10) + " more";
    return m;
}

} // namespace hpaplus::policy
