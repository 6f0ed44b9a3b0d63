// cron/plan.cpp — deciding what a CronHPA does at a wake.
#include "cron/plan.hpp"

#include <date/tz.h>

namespace hpaplus::cron {
namespace {

using namespace std::chrono;

// The first instant of the calendar day `t` falls on, in `zone`.
instant start_of_day(instant t, const date::time_zone& zone) {
    const auto day = floor<date::days>(zone.to_local(t));
    return date::make_zoned(&zone, date::local_seconds(day), date::choose::earliest).get_sys_time();
}

// The latest fire time in (since, now] that is not on an excluded date.
std::optional<instant> latest_allowed(const job_spec& job, const plan_input& in, instant latest) {
    std::optional<instant> t = latest;
    // Each step jumps over one whole excluded day; a bound keeps a pathological list finite.
    for (int days = 0; t && days < 4000; ++days) {
        if (!excluded(*in.excluded_dates, date_in_zone(*t, *in.zone))) return t;
        t = last_fire(*job.parsed, *in.zone, job.since, start_of_day(*t, *in.zone) - seconds(1));
    }
    return std::nullopt;
}

std::optional<instant> next_after(const job_spec& job, const date::time_zone& zone, instant anchor,
                                  instant now) {
    const schedule& s = *job.parsed;
    if (!s.every) return next_fire(s, zone, now);
    const auto step = ceil<seconds>(*s.every);
    if (step.count() <= 0) return std::nullopt;
    return anchor + ((now - anchor) / step + 1) * step;
}

} // namespace

const char* to_string(run_result r) {
    switch (r) {
    case run_result::fire:
        return "fire";
    case run_result::excluded:
        return "excluded";
    case run_result::missed:
        return "missed";
    case run_result::superseded:
        return "superseded";
    }
    return "?";
}

plan plan_jobs(const plan_input& in) {
    const std::vector<job_spec>& jobs = *in.jobs;
    plan out;
    out.next.resize(jobs.size());
    std::optional<std::size_t> winner; // index into out.due
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        const job_spec& job = jobs[j];
        if (!job.parsed || job.finished) continue;
        instant anchor = job.since;
        bool finishes = false;
        if (const auto latest = last_fire(*job.parsed, *in.zone, job.since, in.now)) {
            anchor = *latest;
            if (const auto allowed = latest_allowed(job, in, *latest)) {
                out.due.push_back({j, *allowed, *latest, run_result::superseded, job.run_once});
                finishes = job.run_once;
                const due_run& mine = out.due.back();
                const due_run* best = winner ? &out.due[*winner] : nullptr;
                if (!best || mine.at > best->at ||
                    (mine.at == best->at && job.target_size >= jobs[best->job].target_size))
                    winner = out.due.size() - 1;
            } else {
                out.due.push_back({j, *latest, *latest, run_result::excluded, false});
            }
        }
        if (!finishes) out.next[j] = next_after(job, *in.zone, anchor, in.now);
    }
    if (winner) {
        due_run& d = out.due[*winner];
        const bool late = in.deadline && in.now - d.at > *in.deadline;
        d.result = late ? run_result::missed : run_result::fire;
    }
    for (const auto& n : out.next)
        if (n && (!out.wake || *n < *out.wake)) out.wake = n;
    return out;
}

} // namespace hpaplus::cron
