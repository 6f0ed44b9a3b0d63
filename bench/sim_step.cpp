// bench/sim_step.cpp — `hpaplus-bench sim-step`: what one step of the simulated cluster's workload
// model costs the API server's thread once every pod is ready (issue 21 item 6: the sim must keep
// up, so that G2 measures the controller and not the sim). In-process, no HTTP.
//
// Reports the step's CPU against a bare pass over the pods collection measured in the same run
// (reading each pod's resourceVersion: the least any step that looks at every pod must do), and
// the longest time one step held the thread without letting a request in.
#include "sim_step.hpp"

#include "bench_cluster.hpp"
#include "json_line.hpp"

#include "sim/cluster.hpp"
#include "sim/pod_state.hpp"

#include <boost/asio/io_context.hpp>

#include <algorithm>
#include <stdexcept>

namespace hpaplus::bench {
namespace {

using clock = std::chrono::steady_clock;

double elapsed_ms(clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

std::size_t ready_pods(sim::object_store& store) {
    sim::collection* pods = store.find("", "v1", "pods");
    std::size_t ready = 0;
    for (const auto& [key, pod] : pods->objects)
        ready += sim::pod_ready(*pod) ? 1 : 0;
    return ready;
}

} // namespace

int sim_step(int deployments, int pods_per_deployment, int steps) {
    boost::asio::io_context io;
    sim::cluster_options options;
    options.workload.scheduling_delay = options.workload.start_delay =
        options.workload.readiness_delay = std::chrono::milliseconds(0);
    options.workload.node_cpu_milli = 1'000'000'000;
    options.workload.node_memory_bytes = 1LL << 60;
    options.storage_quota_bytes = std::size_t{2} << 30;
    sim::cluster cluster(io, options);
    sim::scenario objects;
    objects.objects = namespaces_json(deployments);
    for (int i = 0; i < deployments; ++i)
        objects.objects.push_back(deployment_json(namespace_of(i), "o-" + std::to_string(i),
                                                  pods_per_deployment, steady_usage));
    if (auto error = cluster.play(objects)) throw std::runtime_error(*error);
    const std::size_t pods = static_cast<std::size_t>(deployments) * pods_per_deployment;
    for (int i = 0; i < 20 && ready_pods(cluster.store()) < pods; ++i) {
        cluster.workload().tick();
        io.poll();
    }
    if (ready_pods(cluster.store()) < pods)
        throw std::runtime_error("only " + std::to_string(ready_pods(cluster.store())) + " of " +
                                 std::to_string(pods) + " pods became ready");

    // Settle: the last pods' readiness reaches ReplicaSet and Deployment status a step later.
    for (int i = 0; i < 20; ++i) {
        const auto before = cluster.store().resource_version();
        cluster.workload().tick();
        if (cluster.store().resource_version() == before) break;
    }

    // The baseline: one pass over the pods reading each one's resourceVersion.
    std::uint64_t sum = 0;
    const auto bare_start = clock::now();
    for (int s = 0; s < steps; ++s)
        for (const auto& [key, pod] : cluster.store().find("", "v1", "pods")->objects)
            sum += pod->rv;
    const double bare = elapsed_ms(clock::now() - bare_start) / steps;
    // The sum is used, so the bare pass is not optimised away.
    [[maybe_unused]] volatile std::uint64_t keep_the_pass = sum;

    auto timed_step = [&] {
        const auto start = clock::now();
        cluster.workload().tick();
        return elapsed_ms(clock::now() - start);
    };
    double steady = 0, longest = 0;
    for (int s = 0; s < steps; ++s) {
        const double step = timed_step();
        steady += step / steps;
        longest = std::max(longest, step);
    }
    // A step after 1 % of the Deployments got a new load (their pods' usage is read again).
    sim::collection* workloads = cluster.store().find("apps", "v1", "deployments");
    double changed = 0;
    for (int s = 0; s < steps; ++s) {
        for (int i = s; i < deployments; i += 100) {
            const auto d =
                cluster.store().get(*workloads, namespace_of(i), "o-" + std::to_string(i));
            sim::json_doc next = sim::clone(d->doc);
            sim::set_path(next, "metadata.annotations", sim::json(rapidjson::kObjectType),
                          next.GetAllocator());
            auto& annotations = next["metadata"]["annotations"];
            annotations.AddMember("sim.hpaplus.io/cpu-load",
                                  sim::json(std::to_string(100 + s).c_str(), next.GetAllocator()),
                                  next.GetAllocator());
            (void)cluster.store().update(*workloads, d->namespace_, d->name, std::move(next),
                                         sim::write_mode::internal);
        }
        const double step = timed_step();
        changed += step / steps;
        longest = std::max(longest, step);
    }
    json_line("sim_step")
        .add("pods", static_cast<double>(pods))
        .add("steady_step_ms", steady)
        .add("bare_pass_ms", bare)
        .add("ratio", steady / std::max(bare, 1e-6))
        .add("one_percent_changed_step_ms", changed)
        .add("longest_step_ms", longest)
        .print();
    return 0;
}

} // namespace hpaplus::bench
