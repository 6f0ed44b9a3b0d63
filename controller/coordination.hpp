// controller/coordination.hpp — every rule between kinds, in one place: which HPAPlus a CronHPA or
// a VPAPlus is aimed at, the floor the CronHPAs hold on an HPAPlus (and when it changed), and the
// resources an HPAPlus and a VPAPlus on the same workload share. Reads the informer caches only.
#pragma once

#include "kinds/vpaplus.hpp"
#include "kube/object_cache.hpp"
#include "policy/decision.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hpaplus::controller {

/// What a horizontal autoscaler on the same workload asks of a VPAPlus (decided by the controller's
/// coordination rules): the resources to leave to it, and the words of CoordinatedWithHPAPlus.
struct horizontal_sharing {
    std::string shared_with; ///< the HPAPlus's name, or HorizontalPodAutoscaler/<name>; "" = none
    bool leave_cpu = false;
    bool leave_memory = false;
    std::string reason; ///< of the CoordinatedWithHPAPlus condition
    std::string message;
};

/// What a start-up boost record on a pod of `workload` must agree with (policy/boost_trust.hpp):
/// the first VPAPlus of `ns` (in `vpapluses`, null without the vertical module) with startupBoost
/// aimed at `workload`, and the CPU of the workload's pod template (`template_cpu`, null when the
/// target is not a cached Deployment). Without either, no record is believed.
policy::boost_authority boost_authority_for(
    const kube::object_cache* vpapluses, const std::string& ns,
    const core::object_reference& workload,
    const std::shared_ptr<const std::vector<policy::boost_authority::container>>& template_cpu);

/// True when `ref` (a CronHPA's target) names `autoscaler` (an HPAPlus; a CronHPA cannot name a
/// plain HPA) or the workload `workload` it scales.
bool aims_at(const core::object_reference& ref, const core::object_reference& autoscaler,
             const core::object_reference& workload);

/// The floor the cached CronHPAs of `ns` hold on `autoscaler` (an HPAPlus or a plain HPA) that
/// scales `workload`: the largest targetSize of their jobs in force (ties: the latest); nullopt
/// when none.
std::optional<policy::cron_floor> find_cron_floor(const kube::object_cache& cronhpas,
                                                  const std::string& ns,
                                                  const core::object_reference& autoscaler,
                                                  const core::object_reference& workload);

/// The targets whose floor may have changed when a CronHPA went from `previous` to `current`
/// (either null: created or deleted): none when neither its target nor its job in force moved.
std::vector<core::object_reference> floor_changes(const kube::object_cptr& previous,
                                                  const kube::object_cptr& current);

/// The name of the autoscaler in `autoscalers` (HPAPlus objects or plain HPAs) of `ns` that scales
/// `workload` ("" when none).
std::string autoscaler_scaling(const kube::object_cache& hpapluses, const std::string& ns,
                               const core::object_reference& workload);

/// The resources (cpu, memory) a horizontal autoscaler scaling a workload scales on, and its name
/// ("" when none scales it): what the VPAPlus on that workload leaves to it.
struct horizontal_use {
    std::string kind = "HPAPlus"; ///< or HorizontalPodAutoscaler
    std::string name;             ///< "" when no horizontal autoscaler scales the workload
    bool cpu = false;
    bool memory = false;
};

/// What an autoscaler of `kind` in `autoscalers` (HPAPlus objects or plain HPAs) of `ns` scaling
/// `workload` scales on.
horizontal_use find_horizontal_use(const kube::object_cache& autoscalers, const std::string& kind,
                                   const std::string& ns, const core::object_reference& workload);

/// The vertical side: what the horizontal autoscaler `h` (if any) asks of the VPAPlus `v` — the
/// resources it keeps (unless allowSharedResources) and the CoordinatedWithHPAPlus words, the same
/// words note_vertical_use writes on the horizontal side.
controller::horizontal_sharing sharing_for(const kinds::vpaplus& v, const horizontal_use& h);

/// The horizontal side (`kind` HPAPlus or HorizontalPodAutoscaler): sets its
/// CoordinatedWithVPAPlus condition when a cached VPAPlus of `ns` sizes the pods of its target
/// (says which resources stay with it), removes it otherwise.
void note_vertical_use(const kube::object_cache& vpapluses, const std::string& ns,
                       const std::string& kind, const policy::autoscaler& hpa,
                       std::vector<core::condition>& conditions, core::time_point now);

} // namespace hpaplus::controller
