// policy/boost_trust.hpp — whether a pod's start-up boost record may decide how its CPU counts.
// The record is an annotation anyone who may patch the pod can write, and it names the request
// the pod's CPU is measured against: believed blindly, a forged one pins a workload at its
// minimum or maximum. So it counts only when it agrees with what the cluster says
// (docs/vertical.md, "Trust model").
#pragma once

#include "policy/types.hpp"

#include <cstdint>
#include <forward_list>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::policy {

/// What a boost record must agree with: the VPAPlus that boosts the target's pods, and the CPU of
/// the target's pod template — the request (and limit) the autoscaler's target utilization was set
/// against, which a boosted container's unboosted request is (a VPAPlus leaves CPU to an autoscaler
/// that scales on it).
struct boost_authority {
    /// A VPAPlus of the namespace with `startupBoost`, aimed at the autoscaler's target.
    std::string vpaplus;
    struct container {
        std::string name;
        std::optional<std::int64_t> request_milli;
        std::optional<std::int64_t> limit_milli;
        friend bool operator==(const container&, const container&) = default;
    };
    std::vector<container> containers; ///< the target's pod template
    friend bool operator==(const boost_authority&, const boost_authority&) = default;
};

/// Whether every boosted container of `pod` agrees with `authority`: its record names the
/// VPAPlus, and each unboosted request (and limit, when it has one) is the template container's.
bool boost_believed(const pod_info& pod, const boost_authority* authority);

/// Replaces each pod of `pods` whose boost record is not believed by a copy without it (held in
/// `vetted`, which must outlive `pods`' use): its CPU counts at the request it has, as upstream
/// counts it. Returns the names of those pods, sorted.
std::vector<std::string> vet_boosts(std::vector<const pod_info*>& pods,
                                    const boost_authority* authority,
                                    std::forward_list<pod_info>& vetted);

/// The Warning Event's message for `pods` whose boost records were ignored.
std::string ignored_boosts_message(const std::vector<std::string>& pods);

} // namespace hpaplus::policy
