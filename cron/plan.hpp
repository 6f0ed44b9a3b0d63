// cron/plan.hpp — what a CronHPA does when its worker wakes: which job fires now, which runs were
// excluded, missed or superseded, and when to wake next. Pure apart from reading the tz database.
//
// Rules. A job fires at the fire times of its schedule after `since` (its last schedule time, or
// when it was submitted). Fire times on excluded dates are skipped. Of all jobs due at a wake, the
// one with the latest fire time wins (ties: the larger targetSize, then the later job), since the
// latest job's targetSize is the one in force until the next fires; the others are superseded.
// The winner fires only if it is at most `deadline` late (after downtime); otherwise it is missed.
// A runOnce job is finished after its first run that was not skipped for an excluded date.
#pragma once

#include "cron/exclusions.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::cron {

struct job_spec {
    const schedule* parsed = nullptr; ///< null: the schedule is invalid (never fires)
    std::int32_t target_size = 0;
    bool run_once = false;
    instant since{};       ///< fire times after this one count
    bool finished = false; ///< a runOnce job that already ran
};

enum class run_result { fire, excluded, missed, superseded };

struct due_run {
    std::size_t job = 0;
    instant at{};     ///< the fire time this run stands for
    instant latest{}; ///< the job's latest fire time up to now (its next `since`)
    run_result result = run_result::fire;
    bool finishes_job = false; ///< a runOnce job that must not fire again
};

struct plan {
    std::vector<due_run> due;                 ///< at most one per job, in job order
    std::vector<std::optional<instant>> next; ///< per job: the next fire time after `now`
    std::optional<instant> wake;              ///< the earliest of `next`
};

struct plan_input {
    const std::vector<job_spec>* jobs = nullptr;
    const date::time_zone* zone = nullptr;
    const exclusions* excluded_dates = nullptr;
    std::optional<std::chrono::seconds> deadline; ///< startingDeadlineSeconds; nullopt = none
    instant now{};
};

plan plan_jobs(const plan_input& in);

const char* to_string(run_result r);

} // namespace hpaplus::cron
