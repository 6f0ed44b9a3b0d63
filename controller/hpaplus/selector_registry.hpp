// controller/hpaplus/selector_registry.hpp — the selector each autoscaler last scaled by
// (upstream's hpaSelectors), so a reconcile can tell when another autoscaler picks the same pods
// (AmbiguousSelector).
#pragma once

#include "core/label_selector.hpp"
#include "policy/decision.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hpaplus::controller {

class selector_registry {
  public:
    /// A selector as the object's memory holds it (immutable: the lanes share one).
    using selector_ptr = std::shared_ptr<const core::label_selector>;
    /// Told of each change put and erase make (selector null: erased), unless called with `tell`
    /// false: with --threads, each lane's registry passes its news on to the other lanes'.
    using listener = std::function<void(const std::string& ns, const std::string& name,
                                        const selector_ptr& selector)>;
    void on_change(listener l) { listener_ = std::move(l); }

    /// Records the selector of `ns/name`'s target, as this reconcile read it; a null one forgets
    /// it, as erase does.
    void put(const std::string& ns, const std::string& name, selector_ptr selector,
             bool tell = true);
    /// Changes whenever a selector of namespace `ns` is put differently or erased (never reused),
    /// so a reconcile may keep its peers_picking answer while this and its pods stay the same.
    std::uint64_t version(const std::string& ns) const;
    /// Forgets `ns/name` (its object is gone).
    void erase(const std::string& ns, const std::string& name, bool tell = true);
    /// The namespace's other autoscalers whose selector picks one of `pods`. Costs one match per
    /// autoscaler of the namespace and pod.
    std::vector<policy::peer_autoscaler>
    peers_picking(const std::string& ns, const std::string& name,
                  const std::vector<const policy::pod_info*>& pods) const;

  private:
    using by_name = std::map<std::string, selector_ptr, std::less<>>;
    std::map<std::string, by_name, std::less<>> namespaces_;
    std::map<std::string, std::uint64_t, std::less<>> versions_;
    std::uint64_t changes_ = 0;
    listener listener_;
};

} // namespace hpaplus::controller
