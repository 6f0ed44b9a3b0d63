// bench/bench_cluster.hpp — the benchmarks' cluster: `hpaplus sim` in its own process (so its CPU
// and memory are accounted apart from the controller's), filled with N autoscaled workloads.
//
// Layout: object i lives in namespace bench-<i/10> as Deployment o-<i> (10 pods, 100m CPU
// requested, 50m used each: exactly the 50 % target, so nothing rescales in steady state) and an
// HPAPlus o-<i> on CPU utilization with spec.syncPeriodSeconds = the period. The optional probe
// is namespace bench-probe: a 1 s object whose load the benchmark can raise (a spike).
#pragma once

#include "kube/config.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace hpaplus::bench {

struct cluster_layout {
    int objects = 1000;
    int pods_per_object = 10;
    int period_seconds = 1;
    bool probe = false; ///< add the 1 s probe object
};

class bench_cluster {
  public:
    /// Starts `hpaplus sim` (the binary next to this one, or $HPAPLUS_BINARY) in a temporary
    /// directory. Throws std::runtime_error with the reason when it does not start.
    bench_cluster();
    ~bench_cluster();
    bench_cluster(const bench_cluster&) = delete;
    bench_cluster& operator=(const bench_cluster&) = delete;

    /// Creates the CRDs and the layout's objects and waits until every pod is ready.
    /// Throws std::runtime_error naming what failed.
    void populate(const cluster_layout& layout);

    /// Sets the probe Deployment's total CPU load (a quantity, e.g. "4").
    void set_probe_load(const std::string& cpu);

    const kube::cluster_config& config() const { return config_; }
    const std::string& kubeconfig_path() const { return kubeconfig_path_; }
    const std::string& directory() const { return directory_; }
    int sim_pid() const;
    /// GET targets the controller sends for object i's metrics (for the bare baseline).
    static std::string pod_metrics_target(int object);

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
    kube::cluster_config config_;
    std::string kubeconfig_path_;
    std::string directory_;
};

/// The layout's namespace of object `object`: ten objects to a namespace, `bench-<object / 10>`.
std::string namespace_of(int object);

/// A Namespace named `name`.
std::string namespace_json(const std::string& name);

/// The Namespaces that `objects` objects of the layout live in (see namespace_of).
std::vector<std::string> namespaces_json(int objects);

/// The pod annotations of the layout's steady load: 50m CPU (half the request) and 40Mi used.
inline constexpr const char* steady_usage =
    R"("sim.hpaplus.io/cpu-usage":"50m","sim.hpaplus.io/memory-usage":"40Mi")";

/// A Deployment of the layout: `replicas` pods of one container requesting 100m CPU and 64Mi,
/// with `pod_annotations` (JSON members, may be empty) on the pod template.
std::string deployment_json(const std::string& ns, const std::string& name, int replicas,
                            const std::string& pod_annotations);

/// The hpaplus binary: $HPAPLUS_BINARY, else `hpaplus` next to the running program.
std::string hpaplus_binary();

} // namespace hpaplus::bench
