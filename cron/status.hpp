// cron/status.hpp — PURE: a CronHPA's status and its bookkeeping around one wake of its worker.
// begin_wake carries each job's status over (a new or edited job starts from now, or from the
// object's creation on its very first run), parses schedules and plans the wake (cron/plan.hpp);
// (excluded dates that cannot be read are reported, the others apply); the worker then runs the
// jobs that fire (I/O); finish_wake records every due run — job states, the job in force, a bounded
// history (newest first), next times, Ready — and says which Events to record.
#pragma once

#include "core/kubernetes.hpp"
#include "cron/plan.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::cron {

/// One entry of `spec.jobs`.
struct job {
    std::string name;
    std::string schedule;
    std::int32_t target_size = 0;
    bool run_once = false;
    friend bool operator==(const job&, const job&) = default;
};

/// What a job's last wake left it in (`status.jobs[].state`, `status.history[].result`).
enum class job_state { scheduled, succeeded, failed, skipped, missed, superseded, invalid };
std::string_view to_string(job_state s);
/// nullopt for a word that is not a state.
std::optional<job_state> parse_job_state(std::string_view s);

/// How a fired job took effect (`status.active.mode`).
enum class run_mode {
    direct, ///< it set the target's replicas through /scale
    floor,  ///< it holds a floor on the HPAPlus that scales the target
};
std::string_view to_string(run_mode m);
std::optional<run_mode> parse_run_mode(std::string_view s);

struct job_status {
    job spec; ///< the job as it was when this status was written
    std::optional<instant> submit_time;
    std::optional<instant> last_schedule_time;
    std::string next_schedule_time; ///< RFC 3339 in the CronHPA's zone; "" = never
    job_state state = job_state::scheduled;
    std::string message;
};

struct run_record {
    std::string job;
    instant schedule_time{};
    instant run_time{};
    std::int32_t target_size = 0;
    job_state result = job_state::scheduled; ///< the job state the run left
    std::string message;
};

/// The latest fired job, whose targetSize is in force until the next job fires.
struct active_job {
    std::string job;
    std::int32_t target_size = 0;
    instant schedule_time{};
    run_mode mode = run_mode::direct;
    std::string hpaplus; ///< the HPAPlus holding the floor (mode floor)
};

struct status {
    std::int64_t observed_generation = 0;
    std::optional<active_job> active;
    std::vector<job_status> jobs;
    std::vector<run_record> history; ///< newest first
    std::string
        next_schedule_time; ///< the earliest of the jobs' (RFC 3339 in the zone); "" = never
    std::vector<core::condition> conditions;
};

/// The schedule times a worker ran each job at (by job name and schedule), so that a status
/// write that failed does not make a job fire twice.
using run_memory = std::map<std::string, instant, std::less<>>;

/// What one wake reads besides the jobs and their previous status.
struct wake_context {
    const date::time_zone* zone = nullptr; ///< found; the name is for messages
    std::string zone_name;
    std::optional<std::chrono::seconds> deadline; ///< startingDeadlineSeconds
    core::time_point now_precise{};               ///< condition times
    instant now{};                                ///< now_precise, whole seconds
    std::optional<instant> created;               ///< the object's creationTimestamp
};

/// A wake between planning and recording.
struct wake {
    std::vector<job_status> jobs; ///< one per spec job, carried over and parsed
    std::vector<std::string> problems;
    cron::plan plan;
};

/// `exclude_dates` as in the spec: the readable entries apply, the others are problems.
wake begin_wake(const std::vector<job>& jobs, const std::vector<std::string>& exclude_dates,
                const status& previous, const run_memory& memory, const wake_context& ctx);

/// What running a fired job did.
struct run_report {
    bool ok = false;
    run_mode mode = run_mode::direct;
    std::string hpaplus; ///< floor: who holds it
    std::string message;
};

struct wake_outcome {
    bool fired = false;               ///< a job ran (scaled or set a floor)
    std::optional<std::string> error; ///< a run failed or an entry cannot be read
    std::vector<core::event> events;
};

/// Records the wake into `s` (and the runs into `memory`). `reports` holds one report per
/// `w.plan.due` entry, used for those whose result is `fire`.
wake_outcome finish_wake(wake& w, const std::vector<job>& jobs,
                         const std::vector<run_report>& reports, std::size_t history_limit,
                         std::int64_t generation, const wake_context& ctx, run_memory& memory,
                         status& s);

/// A spec that cannot be used at all: Ready=False/InvalidSpec and the Event to record.
core::event mark_invalid(status& s, std::int64_t generation, const std::string& why,
                         core::time_point now);

} // namespace hpaplus::cron
