// controller/cronhpa/runner.hpp — one wake of one CronHPA: read it from the cache, plan its jobs
// (cron/plan.hpp), run the job that is due — set the target's replicas through `/scale` when no
// HPAPlus scales it, or hand the HPAPlus a floor by recording the job in force — and write the
// status (per job, a bounded history) and Events. Returns when to wake next.
#pragma once

#include "controller/runtime/options.hpp"
#include "cron/next_fire.hpp"
#include "kube/event_recorder.hpp"
#include "kube/informer.hpp"

#include <boost/asio/awaitable.hpp>

#include <map>
#include <optional>
#include <string>

namespace hpaplus::controller {

struct cron_env {
    kube::api_client& client;
    const kube::informer& cronhpas;
    const kube::informer& hpapluses;
    const kube::informer& deployments;
    kube::event_recorder& events;
    const controller_options& options;
};

/// What a worker keeps between wakes: the runs it made, so that a status write that failed
/// does not make a job fire twice.
struct cron_memory {
    std::map<std::string, cron::instant, std::less<>> last_run; ///< job name + schedule → time
};

struct cron_outcome {
    bool exists = true;
    bool fired = false;                ///< a job ran (scaled or set a floor)
    std::optional<std::string> error;  ///< the spec cannot be used, or a run failed
    std::optional<cron::instant> wake; ///< the next fire time; nullopt = none (wait for a change)
};

/// Runs on: the client's executor. Cancellation: none; bounded by the request timeouts.
boost::asio::awaitable<cron_outcome> run_cronhpa(cron_env& env, const std::string& ns,
                                                 const std::string& name, cron_memory& memory);

} // namespace hpaplus::controller
