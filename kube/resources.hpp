// kube/resources.hpp — typed calls on top of api_client: REST paths of the resources HPAPlus uses,
// and builders/parsers for the bodies with a fixed shape (Scale, Event, Lease). The calls are plain
// functions returning the transport's awaitable (no extra coroutine frames).
#pragma once

#include "core/kubernetes.hpp"
#include "kube/api_client.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::kube {

/// Where a resource lives on the API server.
struct resource_path {
    std::string group; ///< "" = core
    std::string version;
    std::string plural;
    bool namespaced = true;

    /// `/api/v1/namespaces/NS/pods/NAME/SUB` (parts left empty are left out).
    std::string path(const std::string& ns, const std::string& name = "",
                     const std::string& sub = "") const;
};

/// Where an object named by a CrossVersionObjectReference lives: the well-known workload kinds,
/// else the kind's lower-case plural (the convention every CRD with a scale subresource we know
/// of follows).
resource_path target_resource(const core::object_reference& ref);

namespace resources {
extern const resource_path pods;
extern const resource_path deployments;
extern const resource_path replicasets;
extern const resource_path events;
extern const resource_path leases;
extern const resource_path hpas; ///< autoscaling/v2 HorizontalPodAutoscalers
} // namespace resources

boost::asio::awaitable<api_response> get(api_client& c, const resource_path& r,
                                         const std::string& ns, const std::string& name);
/// One page of a list (`limit` 0 = everything).
boost::asio::awaitable<api_response> list(api_client& c, const resource_path& r,
                                          const std::string& ns,
                                          const std::string& label_selector = "",
                                          std::size_t limit = 0,
                                          const std::string& continue_token = "");
// Writes take `fence_key`: the `namespace/name` of the object they are made for (api_request).
boost::asio::awaitable<api_response> create(api_client& c, const resource_path& r,
                                            const std::string& ns, std::string body,
                                            std::string_view fence_key = {},
                                            request_class priority = request_class::decide);
/// PUT of the whole object (its metadata.resourceVersion is the precondition).
boost::asio::awaitable<api_response> update(api_client& c, const resource_path& r,
                                            const std::string& ns, const std::string& name,
                                            std::string body, const std::string& sub = "",
                                            std::string_view fence_key = {});
/// RFC 7386 merge patch (sub = "status" or "scale" for a subresource).
boost::asio::awaitable<api_response> merge_patch(api_client& c, const resource_path& r,
                                                 const std::string& ns, const std::string& name,
                                                 std::string patch, const std::string& sub = "",
                                                 std::string_view fence_key = {},
                                                 request_class priority = request_class::decide);
/// POST pods/<name>/eviction (policy/v1): the API server deletes the pod unless a
/// PodDisruptionBudget forbids it (then 429, errc::too_many_requests).
boost::asio::awaitable<api_response> evict_pod(api_client& c, const std::string& ns,
                                               const std::string& name,
                                               std::string_view fence_key = {});
/// RFC 6902 JSON patch.
boost::asio::awaitable<api_response> json_patch(api_client& c, const resource_path& r,
                                                const std::string& ns, const std::string& name,
                                                std::string patch, const std::string& sub = "",
                                                std::string_view fence_key = {});
boost::asio::awaitable<api_response> remove(api_client& c, const resource_path& r,
                                            const std::string& ns, const std::string& name,
                                            std::string_view fence_key = {});

/// autoscaling/v1 Scale, as read.
struct scale_info {
    std::int32_t spec_replicas = 0;
    std::int32_t status_replicas = 0;
    std::string selector;
    std::string resource_version;
};
/// Parses a Scale (spec.replicas omitted = 0); nullopt for anything else.
std::optional<scale_info> parse_scale(const std::string& json);
/// A Scale body setting `replicas`, conditional on `resource_version` when it is not empty.
std::string scale_body(const std::string& name, const std::string& ns, std::int32_t replicas,
                       const std::string& resource_version);

/// core/v1 Event about an object (kind, name, uid, apiVersion), with the counters at 1.
struct event_source {
    std::string component = "hpaplus";
    std::string host;
};
std::string event_body(const std::string& ns, const std::string& kind, const std::string& name,
                       const std::string& uid, const std::string& api_version,
                       const std::string& type, const std::string& reason,
                       const std::string& message, const event_source& source,
                       const std::string& now_rfc3339);

/// coordination.k8s.io/v1 Lease fields leader election uses.
struct lease_info {
    std::string holder;
    std::int32_t duration_seconds = 0;
    std::string acquire_time; ///< MicroTime text
    std::string renew_time;
    std::int32_t transitions = 0;
    std::string resource_version;
    std::string name = {}; ///< metadata.name, as parsed (lease_body takes the name apart)
    /// The shard count (--shards) of the replica that wrote it, the annotation
    /// autoscaling.hpaplus.io/shards; 0 when absent or not a count (an older release, someone
    /// else).
    std::size_t shards = 0;
};
/// The annotation a Lease of HPAPlus's records the writer's shard count in.
inline constexpr const char* lease_shards_annotation = "autoscaling.hpaplus.io/shards";
std::optional<lease_info> parse_lease(const std::string& json);
/// The items of a LeaseList; nullopt when it is not one (or an item is not a Lease).
std::optional<std::vector<lease_info>> parse_lease_list(const std::string& json);
/// A Lease body (with resourceVersion when set, for a conditional update).
std::string lease_body(const std::string& ns, const std::string& name, const lease_info& lease);

} // namespace hpaplus::kube
