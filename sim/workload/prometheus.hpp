// sim/workload/prometheus.hpp — per-pod series of the simulated workloads in the Prometheus text
// format (0.0.4), so that a real Prometheus can scrape the simulated cluster
// (`/sim/v1/prometheus`).
#pragma once

#include "sim/store.hpp"
#include "sim/workload/workload.hpp"

#include <string>

namespace hpaplus::sim {

/// sim_pod_cpu_usage_cores, sim_pod_cpu_seconds_total, sim_pod_memory_usage_bytes and
/// sim_pod_metric{metric="NAME"} for every running pod, labelled namespace, pod and deployment.
std::string prometheus_text(object_store& store, const workload_model& workload);

} // namespace hpaplus::sim
