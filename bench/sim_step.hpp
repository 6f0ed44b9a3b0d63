// bench/sim_step.hpp — `hpaplus-bench sim-step` (see sim_step.cpp).
#pragma once

namespace hpaplus::bench {

/// Fills an in-process simulated cluster with `deployments` Deployments of `pods_per_deployment`
/// ready pods, runs `steps` steps of its workload model and prints one result line.
int sim_step(int deployments, int pods_per_deployment, int steps);

} // namespace hpaplus::bench
