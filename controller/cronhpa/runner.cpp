// controller/cronhpa/runner.cpp — one wake of one CronHPA.
#include "controller/cronhpa/runner.hpp"

#include "controller/coordination.hpp"
#include "core/kubernetes.hpp"
#include "cron/plan.hpp"
#include "kinds/api_group.hpp"
#include "kinds/records.hpp"
#include "kinds/scale_target.hpp"
#include "kube/resources.hpp"
#include "kube/status_writer.hpp"

#include <spdlog/spdlog.h>

#include <deque>

namespace hpaplus::controller {
namespace {

using cron::run_mode;
using cron::run_report;

// Sets the target's replicas through /scale (conflicts read again and retried) for the CronHPA
// `key` (namespace/name).
boost::asio::awaitable<run_report> scale_directly(cron_env& env, const std::string& ns,
                                                  const core::object_reference& ref,
                                                  std::int32_t size, const std::string& key) {
    run_report r;
    r.mode = run_mode::direct;
    bool fresh = false;
    for (int attempt = 1;; ++attempt) {
        const kinds::target_view target =
            co_await kinds::read_target(env.client, &env.deployments, ns, ref, fresh);
        if (!target.scale) {
            r.message =
                "cannot read the scale of " + ref.kind + "/" + ref.name + ": " + target.error;
            co_return r;
        }
        const std::int32_t from = target.scale->spec_replicas;
        if (from == size) {
            r.ok = true;
            r.message =
                ref.kind + "/" + ref.name + " already has " + std::to_string(size) + " replicas";
            co_return r;
        }
        const auto response =
            co_await kinds::write_scale(env.client, ns, ref, size, target.resource_version, key);
        if (response) {
            r.ok = true;
            r.message = "scaled " + ref.kind + "/" + ref.name + " from " + std::to_string(from) +
                        " to " + std::to_string(size);
            co_return r;
        }
        r.message = "cannot scale " + ref.kind + "/" + ref.name + ": " + response.message();
        // A conflict, or no answer (the write may have landed): read the target again first.
        const bool again = response.ec == kube::errc::conflict || response.unanswered();
        if (!again || attempt >= env.options.scale_write_attempts) co_return r;
        fresh = true;
    }
}

// Runs a job: a floor when an HPAPlus or a plain HPA scales the target (it stays the only /scale
// writer), otherwise replicas set directly.
boost::asio::awaitable<run_report> run_job(cron_env& env, const kinds::cronhpa& c,
                                           std::int32_t size) {
    const core::object_reference& ref = c.spec.target;
    run_report r;
    r.mode = run_mode::floor;
    if (ref.kind == kinds::hpaplus_kind) {
        r.ok = true;
        r.hpaplus = ref.name;
        r.message = "floor " + std::to_string(size) + " for HPAPlus " + ref.name;
        if (!env.hpapluses.find(c.ns, ref.name))
            r.message += " (not found yet: the floor applies once it exists)";
        co_return r;
    }
    r.hpaplus = autoscaler_scaling(env.hpapluses, c.ns, ref);
    if (!r.hpaplus.empty()) {
        r.ok = true;
        r.message = "floor " + std::to_string(size) + " for HPAPlus " + r.hpaplus +
                    ", which scales " + ref.kind + "/" + ref.name;
        co_return r;
    }
    if (const std::string hpa = env.hpas ? autoscaler_scaling(*env.hpas, c.ns, ref) : "";
        !hpa.empty()) {
        r.ok = true;
        r.message = "floor " + std::to_string(size) + " for HorizontalPodAutoscaler " + hpa +
                    ", which scales " + ref.kind + "/" + ref.name;
        co_return r;
    }
    const std::int32_t target_size = size; // named: GCC 12 and co_await arguments
    const std::string key = c.ns + "/" + c.name;
    r = co_await scale_directly(env, c.ns, ref, target_size, key);
    co_return r;
}

} // namespace

boost::asio::awaitable<cron_outcome> run_cronhpa(cron_env& env, const std::string& ns,
                                                 const std::string& name,
                                                 cron::run_memory& memory) {
    cron_outcome out;
    const kube::object_cptr object = env.cronhpas.find(ns, name);
    if (!object) {
        out.exists = false;
        co_return out;
    }
    if (env.caches_current && !env.caches_current()) {
        out.held = true; // the informers fell behind (an outage): run nothing from what they hold
        co_return out;
    }
    const auto now_tp = env.options.wall_clock();
    const auto record = object->share<kinds::cronhpa_record>();
    if (!record) {
        out.error = "the cached " + object->key + " has no CronHPA record";
        co_return out;
    }
    const kinds::status_tree stored = record->stored_status; // alive across the waits below
    kinds::cronhpa c = record->c;                            // its status changes as the wake goes
    const kube::involved_object involved{ns, name, c.uid, "CronHPA", kinds::group_version, {}};

    const date::time_zone* zone = record->invalid ? nullptr : cron::find_zone(c.spec.time_zone);
    if (!zone) {
        const std::string why =
            record->invalid ? *record->invalid
                            : "spec.timeZone: unknown time zone \"" + c.spec.time_zone + "\"";
        out.error = "invalid spec: " + why;
        const core::event e = cron::mark_invalid(c.status, c.generation, why, now_tp);
        const std::string status = kinds::encode_cronhpa_status(c);
        co_await kube::write_status(env.client, kinds::resources::cronhpas, *object, stored.get(),
                                    status, nullptr, kube::request_class::backlog);
        co_await env.events.record(involved, e, now_tp, kube::request_class::backlog);
        co_return out;
    }

    cron::wake_context ctx;
    ctx.zone = zone;
    ctx.zone_name = c.spec.time_zone;
    if (c.spec.starting_deadline_seconds)
        ctx.deadline = std::chrono::seconds(*c.spec.starting_deadline_seconds);
    ctx.now_precise = now_tp;
    ctx.now = std::chrono::floor<std::chrono::seconds>(now_tp);
    ctx.created = c.created;
    cron::wake wake = cron::begin_wake(c.spec.jobs, c.spec.exclude_dates, c.status, memory, ctx);
    std::vector<run_report> reports(wake.plan.due.size());
    for (std::size_t i = 0; i < wake.plan.due.size(); ++i)
        if (wake.plan.due[i].result == cron::run_result::fire) {
            const std::int32_t size = c.spec.jobs[wake.plan.due[i].job].target_size;
            reports[i] = co_await run_job(env, c, size);
        }
    const auto limit = static_cast<std::size_t>(env.options.cron_history_limit);
    cron::wake_outcome done =
        cron::finish_wake(wake, c.spec.jobs, reports, limit, c.generation, ctx, memory, c.status);
    out.fired = done.fired;
    out.error = std::move(done.error);
    const std::string status = kinds::encode_cronhpa_status(c);
    co_await kube::write_status(env.client, kinds::resources::cronhpas, *object, stored.get(),
                                status);
    for (const auto& e : done.events)
        co_await env.events.record(involved, e, now_tp);
    out.wake = wake.plan.wake;
    co_return out;
}

} // namespace hpaplus::controller
