// vertical/updater/boost.hpp — PURE: the CPU start-up boost (AEP-7862, VPAPlus spec.startupBoost):
// what a new pod's containers get while they start, what the pod's annotation records of it, and
// where a running pod stands — to be boosted, boosted and waiting, or due to come back down.
#pragma once

#include "core/time.hpp"
#include "vertical/recommender/types.hpp"
#include "vertical/updater/plan.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::vertical {

/// spec.startupBoost.cpu.
struct cpu_startup_boost {
    /// Factor: × the unboosted request (rounded up to the millicore); Quantity (AEP-7862): added
    /// to it; Value (HPAPlus): the boosted request itself.
    enum class kind { factor, quantity, value };
    kind type = kind::factor;
    double factor = 1;
    std::int64_t milli = 0; ///< Quantity and Value
    /// How long the boost lasts after the pod becomes Ready (a pod that is not Ready stays
    /// boosted).
    std::chrono::nanoseconds duration{0};
    friend bool operator==(const cpu_startup_boost&, const cpu_startup_boost&) = default;
};

/// The pod annotation that records a boost: what each boosted container's CPU request was raised
/// to and what it was before (request and limit), so the boost can be undone and the horizontal
/// side can count the pod at its unboosted request meanwhile.
inline constexpr const char* boost_annotation = "vpaplus.hpaplus.io/startup-boost";

struct boosted_cpu {
    std::string container;
    std::int64_t boosted_milli = 0;            ///< the boosted CPU request
    std::optional<std::int64_t> request_milli; ///< before the boost
    std::optional<std::int64_t> limit_milli;   ///< before the boost (none: no limit)
    friend bool operator==(const boosted_cpu&, const boosted_cpu&) = default;
};

struct boost_record {
    std::string vpaplus; ///< which VPAPlus boosted the pod
    std::vector<boosted_cpu> containers;
    bool ended = false; ///< the boost was taken back (the pod is never boosted again)
    friend bool operator==(const boost_record&, const boost_record&) = default;
};

/// `base` (the containers' resources without the boost: the recommendation where there is one,
/// else the pod's own) with every container's CPU request boosted; the boosted containers are
/// added to `record`. Limits follow the container's controlledValues, as AEP-7862 says:
/// RequestsAndLimits scales a limit by the boost (keeping its ratio to the request; no limit
/// stays none), RequestsOnly caps the boosted request at the limit. A container without a CPU
/// request, or whose boost would not raise it, is left as it is.
std::vector<container_resources> boosted(const std::vector<container_resources>& base,
                                         const cpu_startup_boost& boost,
                                         const std::vector<container_policy>& policies,
                                         boost_record& record);

/// `current` with the CPU request and limit each boosted container had before the boost, for
/// the containers whose request is still the boosted one.
std::vector<container_resources> unboosted(const std::vector<container_resources>& current,
                                           const boost_record& record);

/// Where one running pod stands with the boost of its VPAPlus.
enum class boost_step {
    none,       ///< no boost to give or take back
    boost,      ///< not boosted yet and still starting: boost it in place now
    hold,       ///< boosted, still starting (not Ready, or Ready for less than the duration)
    unboost,    ///< boosted and done starting: resize it back down
    mark_ended, ///< the boost is no longer in the pod (resized by someone else): record the end
};
std::string_view to_string(boost_step s);

/// `record` is the pod's boost annotation (nullopt: none); `ready_since` the time its Ready
/// condition became True (nullopt: not Ready).
boost_step step_of(const std::vector<container_resources>& desired,
                   const std::optional<boost_record>& record,
                   const std::optional<core::time_point>& ready_since,
                   const cpu_startup_boost& boost, core::time_point now);

} // namespace hpaplus::vertical
