// controller/cronhpa/runner.hpp — one wake of one CronHPA, an I/O shell around cron/status.hpp:
// read it from the cache, plan its jobs, run the job that is due — set the target's replicas
// through `/scale` when no autoscaler scales it, or hand the HPAPlus (or plain HPA) a floor by
// recording the job in force — and write the status and Events. Returns when to wake next.
#pragma once

#include "controller/runtime/options.hpp"
#include "cron/status.hpp"
#include "kube/event_recorder.hpp"
#include "kube/object_cache.hpp"

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <optional>
#include <string>

namespace hpaplus::controller {

struct cron_env {
    kube::api_client& client;
    const kube::object_cache& cronhpas;
    const kube::object_cache& hpapluses;
    const kube::object_cache* hpas; ///< plain HPAs (null with --native-hpas=none)
    const kube::object_cache& deployments;
    kube::event_recorder& events;
    const controller_options& options;
    /// Whether the caches are current (null: always): a run waits while they are behind.
    std::function<bool()> caches_current = {};
};

struct cron_outcome {
    bool exists = true;
    bool held = false;                 ///< the caches are behind: nothing ran, nothing written
    bool fired = false;                ///< a job ran (scaled or set a floor)
    std::optional<std::string> error;  ///< the spec cannot be used, or a run failed
    std::optional<cron::instant> wake; ///< the next fire time; nullopt = none (wait for a change)
};

/// Runs on: the client's executor. Cancellation: none; bounded by the request timeouts.
boost::asio::awaitable<cron_outcome> run_cronhpa(cron_env& env, const std::string& ns,
                                                 const std::string& name, cron::run_memory& memory);

} // namespace hpaplus::controller
