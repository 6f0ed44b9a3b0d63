// controller/runtime/pod_cache.hpp — a worker's selection of decoded pods from the pod informer,
// which decodes each pod once as it enters the cache (kinds/records.hpp: pod_record) and keeps no
// pod JSON. A reconcile used to parse every pod of its target
// from JSON each time; at thousands of reconciles a second that was most of the controller's CPU.
#pragma once

#include "core/hash.hpp"
#include "kube/object_cache.hpp"
#include "policy/types.hpp"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hpaplus::controller {

using pod_cptr = std::shared_ptr<const policy::pod_info>;

class pod_cache {
  public:
    explicit pod_cache(kube::object_cache& pods);
    pod_cache(const pod_cache&) = delete;
    pod_cache& operator=(const pod_cache&) = delete;

    /// The pods of namespace `ns` that match `selector` (the label selector's text; unparseable
    /// pods left out), kept in `last`: the pointers stay valid while `last` holds them, whatever
    /// the informer does. `last` — the previous answer to the same question — is reused while no
    /// pod of the namespace changed, so the steady-state reconcile neither scans nor matches.
    struct selection {
        std::string ns, selector;
        std::uint64_t generation = 0; ///< 0: nothing selected yet
        std::vector<pod_cptr> pods;
    };
    const std::vector<pod_cptr>& select(const std::string& ns, const std::string& selector,
                                        selection& last);

  private:
    const kube::object_cache& pods_;
    /// Per namespace (found by a view of its name): bumped, from one counter and never reused, on
    /// every change of one of its pods.
    std::unordered_map<std::string, std::uint64_t, core::string_hash, std::equal_to<>> generations_;
    std::uint64_t changes_ = 0;
};

} // namespace hpaplus::controller
