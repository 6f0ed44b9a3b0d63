// kinds/scale_target.hpp — the autoscaler's target as a Scale: read from the Deployment
// cache (its records) when the target is an apps/v1 Deployment (no request), through `/scale`
// otherwise or when fresh data is needed after a conflict; and the conditional `/scale` write.
#pragma once

#include "kube/object_cache.hpp"
#include "kube/resources.hpp"
#include "policy/boost_trust.hpp"
#include "policy/rollout.hpp"
#include "policy/types.hpp"

#include <boost/asio/awaitable.hpp>

#include <rapidjson/fwd.h>

#include <memory>
#include <optional>
#include <string>

namespace hpaplus::kinds {

struct target_view {
    std::optional<policy::scale_snapshot> scale; ///< nullopt: `error` says why
    std::string error;
    std::string resource_version;                 ///< precondition of the /scale write
    std::optional<policy::rollout_state> rollout; ///< Deployments (StatefulSets: read_rollout)
    /// The CPU request and limit of each container of its pod template (Deployments from the
    /// cache; null otherwise): what a start-up boost record's unboosted CPU must be.
    std::shared_ptr<const std::vector<policy::boost_authority::container>> template_cpu;
};

/// The target's Scale view of a Deployment (`scale` nullopt when it cannot be read).
target_view scale_from_deployment(const rapidjson::Value& object);
/// A cached Deployment's record (kinds/records.hpp decodes it with scale_from_deployment).
using deployment_view = target_view;

/// Reads the target. `deployments` may be null; `fresh` forces a GET of `/scale`.
/// Runs on: the client's executor. Cancellation: none (bounded by the request timeout).
boost::asio::awaitable<target_view> read_target(kube::api_client& client,
                                                const kube::object_cache* deployments,
                                                const std::string& ns,
                                                const core::object_reference& ref, bool fresh);

/// True when `last`, an earlier read_target of the same target, is still what it would read: a
/// Deployment whose cached resourceVersion is the one `last` was read at. A caller that keeps its
/// last view then needs neither a wait nor a copy.
bool target_unchanged(const kube::object_cache* deployments, const std::string& ns,
                      const core::object_reference& ref, const target_view& last);

/// The rollout of an apps/v1 StatefulSet target, read with a GET of the StatefulSet (its /scale
/// does not carry it); a failed read is "not rolling out" with the error as its message. nullopt
/// for other kinds (Deployments come from the cache in read_target).
boost::asio::awaitable<std::optional<policy::rollout_state>>
read_rollout(kube::api_client& client, const std::string& ns, const core::object_reference& ref);

/// Writes `replicas` through `/scale`, conditional on `resource_version` (409 when it moved), for
/// the autoscaler `fence_key` (namespace/name; it must outlive the call).
boost::asio::awaitable<kube::api_response>
write_scale(kube::api_client& client, const std::string& ns, const core::object_reference& ref,
            std::int32_t replicas, const std::string& resource_version, std::string_view fence_key);

} // namespace hpaplus::kinds
