// cron/status.cpp — a CronHPA's status bookkeeping around one wake.
#include "cron/status.hpp"

#include "cron/schedule.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <utility>

namespace hpaplus::cron {
namespace {

constexpr std::array<std::pair<job_state, std::string_view>, 7> state_names{{
    {job_state::scheduled, "Scheduled"},
    {job_state::succeeded, "Succeeded"},
    {job_state::failed, "Failed"},
    {job_state::skipped, "Skipped"},
    {job_state::missed, "Missed"},
    {job_state::superseded, "Superseded"},
    {job_state::invalid, "Invalid"},
}};

std::string memory_key(const job& j) {
    return j.name + "\n" + j.schedule;
}

// A runOnce job in one of these states has had its run.
bool ran(job_state s) {
    return s == job_state::succeeded || s == job_state::failed || s == job_state::missed ||
           s == job_state::superseded;
}

void set_ready(status& s, bool ready, std::string reason, std::string message,
               core::time_point now) {
    core::set_condition(s.conditions, "Ready",
                        ready ? core::condition_status::true_ : core::condition_status::false_,
                        std::move(reason), std::move(message), now);
}

std::string day_text(const civil_date& d) {
    char text[32];
    std::snprintf(text, sizeof text, "%04d-%02u-%02u", d.year, d.month, d.day);
    return text;
}

} // namespace

std::string_view to_string(job_state s) {
    for (const auto& [state, name] : state_names)
        if (state == s) return name;
    return "Scheduled";
}

std::optional<job_state> parse_job_state(std::string_view s) {
    for (const auto& [state, name] : state_names)
        if (name == s) return state;
    return std::nullopt;
}

std::string_view to_string(run_mode m) {
    return m == run_mode::floor ? "Floor" : "Direct";
}

std::optional<run_mode> parse_run_mode(std::string_view s) {
    if (s == "Direct") return run_mode::direct;
    if (s == "Floor") return run_mode::floor;
    return std::nullopt;
}

wake begin_wake(const std::vector<job>& jobs, const std::vector<std::string>& exclude_dates,
                const status& previous, const run_memory& memory, const wake_context& ctx) {
    wake w;
    std::vector<exclusion_error> unreadable;
    const exclusions excluded = parse_exclusions(exclude_dates, unreadable);
    for (const auto& e : unreadable)
        w.problems.push_back("spec.excludeDates[" + std::to_string(e.index) + "]: " + e.message);
    const bool first_run = previous.observed_generation == 0 && previous.jobs.empty();
    std::deque<schedule> schedules; // job_spec points into it until the plan is made
    std::vector<job_spec> specs;
    for (const job& j : jobs) {
        job_status js;
        const auto old = std::find_if(previous.jobs.begin(), previous.jobs.end(),
                                      [&](const job_status& s) { return s.spec == j; });
        if (old != previous.jobs.end()) {
            js = *old;
        } else {
            js.spec = j;
            js.submit_time = first_run && ctx.created ? *ctx.created : ctx.now;
            js.state = job_state::scheduled;
        }
        if (const auto m = memory.find(memory_key(j)); m != memory.end())
            if (!js.last_schedule_time || *js.last_schedule_time < m->second)
                js.last_schedule_time = m->second;
        job_spec spec;
        spec.target_size = j.target_size;
        spec.run_once = j.run_once;
        // Fire times after the last run count, or after the submission. A submission ahead of
        // now — the clock stepped back past it, or the server's creationTimestamp is ahead of
        // ours — would hide the jobs due before it: it becomes now (and is written so). A last
        // run ahead of now stays: its fire times ran, and a schedule runs none twice.
        if (js.submit_time && *js.submit_time > ctx.now) js.submit_time = ctx.now;
        spec.since = js.last_schedule_time.value_or(js.submit_time.value_or(ctx.now));
        spec.finished = j.run_once && js.last_schedule_time && ran(js.state);
        auto parsed = parse_schedule(j.schedule);
        if (parsed) {
            schedules.push_back(*parsed);
            spec.parsed = &schedules.back();
            if (js.state == job_state::invalid) js.state = job_state::scheduled;
        } else {
            js.state = job_state::invalid;
            js.message = "schedule: " + parsed.error().text;
            w.problems.push_back("job " + j.name + ": " + js.message);
        }
        specs.push_back(spec);
        w.jobs.push_back(std::move(js));
    }
    plan_input in;
    in.jobs = &specs;
    in.zone = ctx.zone;
    in.excluded_dates = &excluded;
    in.deadline = ctx.deadline;
    in.now = ctx.now;
    w.plan = plan_jobs(in);
    // A schedule with no fire time ahead (`0 0 30 2 *`: February has no 30th) never runs: say so
    // as for an unreadable entry, not "no job will run again" on a Ready CronHPA.
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (!specs[i].parsed || specs[i].finished || w.plan.next[i]) continue;
        w.jobs[i].message =
            "schedule \"" + jobs[i].schedule + "\" never fires (no such time within five years)";
        w.problems.push_back("job " + jobs[i].name + ": " + w.jobs[i].message);
    }
    return w;
}

wake_outcome finish_wake(wake& w, const std::vector<job>& jobs,
                         const std::vector<run_report>& reports, std::size_t history_limit,
                         std::int64_t generation, const wake_context& ctx, run_memory& memory,
                         status& s) {
    wake_outcome out;
    const date::time_zone& zone = *ctx.zone;
    std::string winner;
    for (const auto& due : w.plan.due)
        if (due.result == run_result::fire || due.result == run_result::missed)
            winner = jobs[due.job].name;
    for (std::size_t i = 0; i < w.plan.due.size(); ++i) {
        const due_run& due = w.plan.due[i];
        const job& j = jobs[due.job];
        job_status& js = w.jobs[due.job];
        js.last_schedule_time = due.latest;
        memory[memory_key(j)] = due.latest;
        const std::string when = format_in_zone(due.at, zone);
        const std::string about = "job " + j.name + " (" + when + "): ";
        switch (due.result) {
        case run_result::fire: {
            const run_report& r = reports.at(i);
            js.state = r.ok ? job_state::succeeded : job_state::failed;
            js.message = r.message;
            if (r.ok) {
                s.active = active_job{j.name, j.target_size, due.at, r.mode, r.hpaplus};
                out.fired = true;
                out.events.push_back(
                    {"Normal", r.mode == run_mode::floor ? "CronFloorSet" : "SuccessfulRescale",
                     about + r.message});
            } else {
                out.error = r.message;
                out.events.push_back({"Warning", "FailedRescale", about + r.message});
            }
            break;
        }
        case run_result::excluded:
            js.state = job_state::skipped;
            js.message =
                day_text(date_in_zone(due.at, zone)) + " is an excluded date in " + ctx.zone_name;
            out.events.push_back({"Normal", "SkippedExcludedDate", about + js.message});
            break;
        case run_result::missed:
            js.state = job_state::missed;
            js.message = "due at " + when + ", " + std::to_string((ctx.now - due.at).count()) +
                         "s late: beyond startingDeadlineSeconds (" +
                         std::to_string(ctx.deadline ? ctx.deadline->count() : 0) + ")";
            out.events.push_back(
                {"Warning", "MissedSchedule", "job " + j.name + ": " + js.message});
            break;
        case run_result::superseded:
            js.state = job_state::superseded;
            js.message = "job " + winner + " was due later; the latest due job wins";
            break;
        }
        s.history.insert(s.history.begin(),
                         run_record{j.name, due.at, ctx.now, j.target_size, js.state, js.message});
    }
    if (s.history.size() > history_limit) s.history.resize(history_limit);
    for (std::size_t j = 0; j < w.jobs.size(); ++j)
        w.jobs[j].next_schedule_time =
            w.plan.next[j] ? format_in_zone(*w.plan.next[j], zone) : std::string();
    s.jobs = std::move(w.jobs);
    s.next_schedule_time = w.plan.wake ? format_in_zone(*w.plan.wake, zone) : "";
    s.observed_generation = generation;
    if (w.problems.empty()) {
        set_ready(s, true, "Scheduled",
                  w.plan.wake ? "next run at " + s.next_schedule_time : "no job will run again",
                  ctx.now_precise);
    } else {
        std::string all;
        for (const auto& p : w.problems)
            all += (all.empty() ? "" : "; ") + p;
        set_ready(s, false, "InvalidEntries", all + " (the other entries still apply)",
                  ctx.now_precise);
        out.events.push_back({"Warning", "InvalidEntries", all});
        if (!out.error) out.error = all;
    }
    return out;
}

core::event mark_invalid(status& s, std::int64_t generation, const std::string& why,
                         core::time_point now) {
    s.observed_generation = generation;
    set_ready(s, false, "InvalidSpec", why, now);
    return {"Warning", "InvalidSpec", why};
}

} // namespace hpaplus::cron
