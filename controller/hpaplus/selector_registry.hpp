// controller/hpaplus/selector_registry.hpp — the selector each autoscaler last scaled by
// (upstream's hpaSelectors), so a reconcile can tell when another autoscaler picks the same pods
// (AmbiguousSelector).
#pragma once

#include "core/label_selector.hpp"
#include "policy/decision.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace hpaplus::controller {

class selector_registry {
  public:
    /// Records the selector of `ns/name`'s target, as this reconcile read it.
    void put(const std::string& ns, const std::string& name, core::label_selector selector);
    /// Forgets `ns/name` (its object is gone).
    void erase(const std::string& ns, const std::string& name);
    /// The namespace's other autoscalers whose selector picks one of `pods`. Costs one match per
    /// autoscaler of the namespace and pod.
    std::vector<policy::peer_autoscaler>
    peers_picking(const std::string& ns, const std::string& name,
                  const std::vector<const policy::pod_info*>& pods) const;

  private:
    using by_name = std::map<std::string, core::label_selector, std::less<>>;
    std::map<std::string, by_name, std::less<>> namespaces_;
};

} // namespace hpaplus::controller
