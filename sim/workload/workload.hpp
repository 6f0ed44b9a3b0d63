// sim/workload/workload.hpp — the simulated cluster's workloads: a deployment controller (pods
// created and deleted on replica changes, a rolling update when the pod template changes,
// Deployment status as the real controller reports it), pod lifecycle with scheduling, start and
// readiness delays, and resource usage from a load you set on the Deployment:
//   kubectl annotate deployment web sim.hpaplus.io/cpu-load=2500m --overwrite
// spreads 2.5 CPU over the ready pods (sim.hpaplus.io/memory-per-pod sets memory; a pod's own
// sim.hpaplus.io/cpu-usage overrides its share).
#pragma once

#include "sim/store.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace hpaplus::sim {

struct container_log; // sim/pod_log.hpp

class admission;

struct workload_options {
    std::chrono::milliseconds tick{100};             ///< how often controllers and pods advance
    std::chrono::milliseconds scheduling_delay{100}; ///< Pending → bound to a node
    std::chrono::milliseconds start_delay{200};      ///< bound → Running (containers started)
    std::chrono::milliseconds readiness_delay{300};  ///< Running → Ready
    std::string node_name = "sim-node-1";
    std::int64_t node_cpu_milli = 16000;         ///< allocatable CPU of the one node
    std::int64_t node_memory_bytes = 64LL << 30; ///< allocatable memory
    std::chrono::milliseconds resize_delay{300}; ///< PodResizeInProgress → actuated
    /// A Terminating pod's containers stop this long after SIGTERM (at most its grace period;
    /// a pod's annotation sim.hpaplus.io/termination-seconds says otherwise), then it is gone.
    std::chrono::milliseconds termination_delay{1000};
    /// How often the node's Lease in kube-node-lease is renewed (the kubelet: 10 s); 0: there is
    /// no node Lease (a cluster where only the test writes).
    std::chrono::milliseconds node_lease_renewal{10000};
    /// The CA every namespace's kube-root-ca.crt ConfigMap publishes (`hpaplus sim` gives the one
    /// that signed its serving certificate); empty: no such ConfigMap.
    std::string root_ca_pem;
};

/// Usage of one pod, in milli-CPU and bytes.
struct pod_usage {
    std::int64_t cpu_milli = 0;
    std::int64_t memory_bytes = 0;
};

class workload_model {
  public:
    workload_model(boost::asio::any_io_executor executor, object_store& store,
                   workload_options options = {});
    ~workload_model();

    /// Pods the Deployment controller makes go through `chain`'s mutating webhooks first (the
    /// chain must outlive the model).
    void use_admission(admission& chain);

    /// Registers the node and starts the tick loop. Runs on: the executor.
    void start();
    void stop();

    /// Advances every controller and pod once (tests call it directly).
    void tick();

    /// What a running pod uses now; nullopt for pods that are not running (no metrics yet).
    std::optional<pod_usage> usage_of(const stored_object& pod) const;

    /// CPU seconds the pod has used since the model first saw it running (a Prometheus counter).
    double cpu_seconds_of(const stored_object& pod) const;

    /// The kubelet's `/stats/summary` of `node` (statsapi.Summary, what metrics-server scrapes):
    /// the node's and each running pod's and container's CPU (usageNanoCores and the cumulative
    /// usageCoreNanoSeconds) and memory (workingSetBytes); nullopt for a node the model does not
    /// run.
    std::optional<std::string> stats_summary(const std::string& node) const;

    /// The log of a container of the pod with `uid` (sim/pod_log.hpp), null when it has none.
    const container_log* log_of(std::string_view uid, std::string_view container) const;

  private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

} // namespace hpaplus::sim
