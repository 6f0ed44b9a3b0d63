// controller/cronhpa/runner.cpp — one wake of one CronHPA.
#include "controller/cronhpa/runner.hpp"

#include "controller/coordination.hpp"
#include "cron/plan.hpp"
#include "kube/api/cronhpa.hpp"
#include "kube/resources.hpp"
#include "kube/scale_target.hpp"
#include "kube/status_writer.hpp"
#include "policy/conditions.hpp"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

#include <deque>

namespace hpaplus::controller {
namespace {

using policy::condition_status;

std::string memory_key(const kube::cron_job& j) {
    return j.name + "\n" + j.schedule;
}

// A runOnce job in one of these states has had its run.
bool ran(const std::string& state) {
    return state == "Succeeded" || state == "Failed" || state == "Missed" || state == "Superseded";
}

struct run_report {
    bool ok = false;
    std::string mode;    ///< Direct | Floor
    std::string hpaplus; ///< Floor: who holds it
    std::string message;
};

// Sets the target's replicas through /scale (conflicts read again and retried).
boost::asio::awaitable<run_report> scale_directly(cron_env& env, const std::string& ns,
                                                  const policy::object_reference& ref,
                                                  std::int32_t size) {
    run_report r;
    r.mode = "Direct";
    bool fresh = false;
    for (int attempt = 1;; ++attempt) {
        const kube::target_view target =
            co_await kube::read_target(env.client, &env.deployments, ns, ref, fresh);
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
            co_await kube::write_scale(env.client, ns, ref, size, target.resource_version);
        if (response) {
            r.ok = true;
            r.message = "scaled " + ref.kind + "/" + ref.name + " from " + std::to_string(from) +
                        " to " + std::to_string(size);
            co_return r;
        }
        r.message = "cannot scale " + ref.kind + "/" + ref.name + ": " + response.message();
        if (response.ec != kube::errc::conflict || attempt >= env.options.scale_write_attempts)
            co_return r;
        fresh = true;
    }
}

// Runs a job: a floor when an HPAPlus scales the target (it stays the only /scale writer),
// otherwise replicas set directly.
boost::asio::awaitable<run_report> run_job(cron_env& env, const kube::cronhpa& c,
                                           std::int32_t size) {
    const policy::object_reference& ref = c.spec.target;
    run_report r;
    r.mode = "Floor";
    if (ref.kind == kube::hpaplus_kind) {
        r.ok = true;
        r.hpaplus = ref.name;
        r.message = "floor " + std::to_string(size) + " for HPAPlus " + ref.name;
        if (!env.hpapluses.find(c.ns, ref.name))
            r.message += " (not found yet: the floor applies once it exists)";
        co_return r;
    }
    r.hpaplus = hpaplus_scaling(env.hpapluses, c.ns, ref);
    if (!r.hpaplus.empty()) {
        r.ok = true;
        r.message = "floor " + std::to_string(size) + " for HPAPlus " + r.hpaplus +
                    ", which scales " + ref.kind + "/" + ref.name;
        co_return r;
    }
    const std::int32_t target_size = size; // named: GCC 12 and co_await arguments
    r = co_await scale_directly(env, c.ns, ref, target_size);
    co_return r;
}

void set_ready(kube::cronhpa_status& s, bool ready, const std::string& reason,
               const std::string& message, core::time_point now) {
    policy::set_condition(s.conditions, "Ready",
                          ready ? condition_status::true_ : condition_status::false_, reason,
                          message, now);
}

} // namespace

boost::asio::awaitable<cron_outcome> run_cronhpa(cron_env& env, const std::string& ns,
                                                 const std::string& name, cron_memory& memory) {
    cron_outcome out;
    const kube::object_cptr object = env.cronhpas.find(ns, name);
    if (!object) {
        out.exists = false;
        co_return out;
    }
    const auto now_tp = core::wall_now();
    const cron::instant now = std::chrono::floor<std::chrono::seconds>(now_tp);
    rapidjson::Document doc;
    doc.Parse(object->json.data(), object->json.size());
    kube::json_decoder d;
    kube::cronhpa c = kube::decode_cronhpa(d, {&doc, ""});
    const kube::involved_object involved{ns, name, c.uid, "CronHPA",
                                         "autoscaling.hpaplus.io/v1alpha1"};
    std::vector<policy::event> events;

    const date::time_zone* zone = d.ok() ? cron::find_zone(c.spec.time_zone) : nullptr;
    if (!d.ok() || !zone) {
        const std::string why =
            !d.ok() ? d.error().to_string()
                    : "spec.timeZone: unknown time zone \"" + c.spec.time_zone + "\"";
        out.error = "invalid spec: " + why;
        c.status.observed_generation = c.generation;
        set_ready(c.status, false, "InvalidSpec", why, now_tp);
        const std::string status = kube::encode_cronhpa_status(c);
        co_await kube::write_status(env.client, kube::resources::cronhpas, *object, doc, status);
        const policy::event e{"Warning", "InvalidSpec", why};
        co_await env.events.record(involved, e, now_tp);
        co_return out;
    }

    // Excluded dates: the readable entries apply, the others are reported.
    std::vector<cron::exclusion_error> exclusion_errors;
    const cron::exclusions excluded =
        cron::parse_exclusions(c.spec.exclude_dates, exclusion_errors);
    std::vector<std::string> problems;
    for (const auto& e : exclusion_errors)
        problems.push_back("spec.excludeDates[" + std::to_string(e.index) + "]: " + e.message);

    // Jobs: carry over what the status says about each unchanged job; a new or edited job starts
    // from now (or from the object's creation on its very first run).
    const bool first_run = c.status.observed_generation == 0 && c.status.jobs.empty();
    std::deque<cron::schedule> schedules;
    std::vector<cron::job_spec> specs;
    std::vector<kube::cron_job_status> statuses;
    for (const auto& job : c.spec.jobs) {
        kube::cron_job_status js;
        const auto old = std::find_if(c.status.jobs.begin(), c.status.jobs.end(),
                                      [&](const auto& s) { return s.job == job; });
        if (old != c.status.jobs.end()) {
            js = *old;
        } else {
            js.job = job;
            js.submit_time = first_run && c.created ? *c.created : now;
            js.state = "Scheduled";
        }
        if (const auto m = memory.last_run.find(memory_key(job)); m != memory.last_run.end())
            if (!js.last_schedule_time || *js.last_schedule_time < m->second)
                js.last_schedule_time = m->second;
        cron::job_spec spec;
        spec.target_size = job.target_size;
        spec.run_once = job.run_once;
        spec.since = js.last_schedule_time.value_or(js.submit_time.value_or(now));
        spec.finished = job.run_once && js.last_schedule_time && ran(js.state);
        auto parsed = cron::parse_schedule(job.schedule);
        if (parsed) {
            schedules.push_back(*parsed);
            spec.parsed = &schedules.back();
            if (js.state == "Invalid") js.state = "Scheduled";
        } else {
            js.state = "Invalid";
            js.message = "schedule: " + parsed.error().text;
            problems.push_back("job " + job.name + ": " + js.message);
        }
        specs.push_back(spec);
        statuses.push_back(std::move(js));
    }

    cron::plan_input in;
    in.jobs = &specs;
    in.zone = zone;
    in.excluded_dates = &excluded;
    if (c.spec.starting_deadline_seconds)
        in.deadline = std::chrono::seconds(*c.spec.starting_deadline_seconds);
    in.now = now;
    const cron::plan plan = cron::plan_jobs(in);

    std::string winner_name;
    for (const auto& due : plan.due)
        if (due.result == cron::run_result::fire || due.result == cron::run_result::missed)
            winner_name = c.spec.jobs[due.job].name;
    for (const auto& due : plan.due) {
        const kube::cron_job& job = c.spec.jobs[due.job];
        kube::cron_job_status& js = statuses[due.job];
        js.last_schedule_time = due.latest;
        memory.last_run[memory_key(job)] = due.latest;
        const std::string when = cron::format_in_zone(due.at, *zone);
        switch (due.result) {
        case cron::run_result::fire: {
            const std::int32_t size = job.target_size;
            const run_report r = co_await run_job(env, c, size);
            js.state = r.ok ? "Succeeded" : "Failed";
            js.message = r.message;
            if (r.ok) {
                c.status.active = kube::cron_active{job.name, size, due.at, r.mode, r.hpaplus};
                out.fired = true;
                events.push_back({"Normal",
                                  r.mode == "Floor" ? "CronFloorSet" : "SuccessfulRescale",
                                  "job " + job.name + " (" + when + "): " + r.message});
            } else {
                out.error = r.message;
                events.push_back({"Warning", "FailedRescale",
                                  "job " + job.name + " (" + when + "): " + r.message});
            }
            break;
        }
        case cron::run_result::excluded: {
            const auto day = cron::date_in_zone(due.at, *zone);
            js.state = "Skipped";
            js.message = fmt::format("{:04}-{:02}-{:02} is an excluded date in {}", day.year,
                                     day.month, day.day, c.spec.time_zone);
            events.push_back({"Normal", "SkippedExcludedDate",
                              "job " + job.name + " (" + when + "): " + js.message});
            break;
        }
        case cron::run_result::missed:
            js.state = "Missed";
            js.message = "due at " + when + ", " + std::to_string((now - due.at).count()) +
                         "s late: beyond startingDeadlineSeconds (" +
                         std::to_string(*c.spec.starting_deadline_seconds) + ")";
            events.push_back({"Warning", "MissedSchedule", "job " + job.name + ": " + js.message});
            break;
        case cron::run_result::superseded:
            js.state = "Superseded";
            js.message = "job " + winner_name + " was due later; the latest due job wins";
            break;
        }
        c.status.history.insert(
            c.status.history.begin(),
            kube::cron_run{job.name, due.at, now, job.target_size, js.state, js.message});
    }
    const auto limit = static_cast<std::size_t>(env.options.cron_history_limit);
    if (c.status.history.size() > limit) c.status.history.resize(limit);
    for (std::size_t j = 0; j < statuses.size(); ++j)
        statuses[j].next_schedule_time =
            plan.next[j] ? cron::format_in_zone(*plan.next[j], *zone) : std::string();
    c.status.jobs = std::move(statuses);
    c.status.next_schedule_time = plan.wake ? cron::format_in_zone(*plan.wake, *zone) : "";
    c.status.observed_generation = c.generation;
    if (problems.empty()) {
        set_ready(c.status, true, "Scheduled",
                  plan.wake ? "next run at " + c.status.next_schedule_time
                            : "no job will run again",
                  now_tp);
    } else {
        std::string all;
        for (const auto& p : problems)
            all += (all.empty() ? "" : "; ") + p;
        set_ready(c.status, false, "InvalidEntries", all + " (the other entries still apply)",
                  now_tp);
        events.push_back({"Warning", "InvalidEntries", all});
        if (!out.error) out.error = all;
    }
    const std::string status = kube::encode_cronhpa_status(c);
    co_await kube::write_status(env.client, kube::resources::cronhpas, *object, doc, status);
    for (const auto& e : events)
        co_await env.events.record(involved, e, now_tp);
    out.wake = plan.wake;
    co_return out;
}

} // namespace hpaplus::controller
