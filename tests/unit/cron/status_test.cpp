// A CronHPA's status bookkeeping around one wake (cron/status.hpp), worked out by hand: which state
// each job is left in, the job in force, the history, Ready and the Events, given the runs' reports
// (2026-11-22 is a Sunday).
#include "cron/status.hpp"
#include "instant_at.hpp"

#include <gtest/gtest.h>

#include <ostream>

namespace hpaplus::cron {
namespace {

using testing::at;

wake_context context(const char* now, const char* created = "2026-11-22T00:00:00Z") {
    wake_context ctx;
    ctx.zone = find_zone("UTC");
    ctx.zone_name = "UTC";
    ctx.now = at(now);
    ctx.now_precise = std::chrono::time_point_cast<std::chrono::nanoseconds>(ctx.now);
    ctx.created = at(created);
    return ctx;
}

job_status ran_at(const job& j, const char* when, job_state state) {
    job_status s;
    s.spec = j;
    s.submit_time = at("2026-11-01T00:00:00Z");
    s.last_schedule_time = at(when);
    s.state = state;
    return s;
}

const job morning{"morning", "0 8 * * *", 10, false};
const job evening{"evening", "0 20 * * *", 2, false};
const job once{"launch", "0 8 * * *", 30, true};
const job broken{"broken", "0 25 * * *", 5, false};
const job never{"never", "0 0 30 2 *", 5, false};

struct wake_case {
    const char* name;
    std::vector<job> jobs;
    std::vector<job_status> previous; ///< status.jobs before the wake (empty: first run)
    const char* now;
    std::vector<std::string> exclude_dates;
    std::optional<int> deadline_seconds;
    bool run_ok = true; ///< the report of every fired run
    // expected
    std::vector<job_state> states; ///< per job, after the wake
    std::vector<std::string> events;
    const char* active = "";        ///< the job in force afterwards; "" = none
    const char* first_message = ""; ///< the message of the first job, "" = not checked
    bool ready = true;
};
void PrintTo(const wake_case& c, std::ostream* os) {
    *os << c.name;
}

using S = job_state;

class OneWake : public ::testing::TestWithParam<wake_case> {};
TEST_P(OneWake, LeavesTheStatusAsExpected) {
    const wake_case& c = GetParam();
    wake_context ctx = context(c.now);
    if (c.deadline_seconds) ctx.deadline = std::chrono::seconds(*c.deadline_seconds);
    status s;
    s.jobs = c.previous;
    if (!c.previous.empty()) s.observed_generation = 1;
    run_memory memory;
    wake w = begin_wake(c.jobs, c.exclude_dates, s, memory, ctx);
    const std::vector<run_report> reports(
        w.plan.due.size(),
        run_report{c.run_ok, run_mode::floor, "web", c.run_ok ? "floor 10" : "no scale"});
    const wake_outcome out = finish_wake(w, c.jobs, reports, 10, 3, ctx, memory, s);

    ASSERT_EQ(s.jobs.size(), c.jobs.size());
    for (std::size_t i = 0; i < c.states.size(); ++i)
        EXPECT_EQ(to_string(s.jobs[i].state), to_string(c.states[i])) << "job " << i;
    std::vector<std::string> reasons;
    for (const auto& e : out.events)
        reasons.push_back(e.reason);
    EXPECT_EQ(reasons, c.events);
    EXPECT_EQ(s.active ? s.active->job : "", std::string(c.active));
    if (*c.first_message) {
        EXPECT_EQ(s.jobs[0].message, c.first_message);
    }
    EXPECT_EQ(s.observed_generation, 3);
    ASSERT_EQ(s.conditions.size(), 1u);
    EXPECT_EQ(s.conditions[0].type, "Ready");
    EXPECT_EQ(s.conditions[0].status == core::condition_status::true_, c.ready);
    EXPECT_EQ(out.error.has_value(), !c.ready || !c.run_ok);
    EXPECT_EQ(out.fired, *c.active != '\0' && c.run_ok);
    // One history entry per due run, newest first; and the memory has each run.
    EXPECT_EQ(s.history.size(), w.plan.due.size());
    for (const auto& due : w.plan.due)
        EXPECT_EQ(memory.at(c.jobs[due.job].name + "\n" + c.jobs[due.job].schedule), due.latest);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Table, OneWake, ::testing::Values(
    wake_case{"FirstRunCountsFromCreation", {morning}, {}, "2026-11-22T08:00:30Z", {}, {}, true,
              {S::succeeded}, {"CronFloorSet"}, "morning", "floor 10"},
    wake_case{"NothingDueStaysScheduled", {morning}, {}, "2026-11-22T07:00:00Z", {}, {}, true,
              {S::scheduled}, {}, ""},
    wake_case{"AFailedRunIsFailedAndSetsNoFloor", {morning}, {}, "2026-11-22T08:00:30Z", {}, {}, false,
              {S::failed}, {"FailedRescale"}, "", "no scale"},
    wake_case{"CarriedOverAndAlreadyRunIsNotDueAgain", {morning}, {ran_at(morning, "2026-11-22T08:00:00Z", S::succeeded)},
              "2026-11-22T09:00:00Z", {}, {}, true, {S::succeeded}, {}, ""},
    wake_case{"AnEditedJobStartsFromNow", {morning}, {ran_at(job{"morning", "0 7 * * *", 10, false}, "2026-11-21T07:00:00Z", S::succeeded)},
              "2026-11-22T09:00:00Z", {}, {}, true, {S::scheduled}, {}, ""},
    wake_case{"AnExcludedDateIsSkipped", {morning}, {}, "2026-11-22T08:00:30Z", {"2026-11-22"}, {}, true,
              {S::skipped}, {"SkippedExcludedDate"}, "", "2026-11-22 is an excluded date in UTC"},
    wake_case{"LateBeyondTheDeadlineIsMissed", {morning}, {}, "2026-11-22T09:00:00Z", {}, 60, true,
              {S::missed}, {"MissedSchedule"}, "",
              "due at 2026-11-22T08:00:00+00:00, 3600s late: beyond startingDeadlineSeconds (60)"},
    wake_case{"TheLatestDueJobWinsAndTheOtherIsSuperseded", {morning, evening},
              {ran_at(morning, "2026-11-21T08:00:00Z", S::succeeded), ran_at(evening, "2026-11-21T20:00:00Z", S::succeeded)},
              "2026-11-22T21:00:00Z", {}, {}, true, {S::superseded, S::succeeded}, {"CronFloorSet"}, "evening",
              "job evening was due later; the latest due job wins"},
    wake_case{"AFinishedRunOnceJobNeverFiresAgain", {once}, {ran_at(once, "2026-11-21T08:00:00Z", S::succeeded)},
              "2026-11-22T08:00:30Z", {}, {}, true, {S::succeeded}, {}, ""},
    wake_case{"AnInvalidScheduleIsReportedAndTheOtherJobsStillRun", {broken, morning}, {}, "2026-11-22T08:00:30Z", {}, {}, true,
              {S::invalid, S::succeeded}, {"CronFloorSet", "InvalidEntries"}, "morning",
              "schedule: hour: 25 is out of range 0-23", false},
    wake_case{"AScheduleThatNeverFiresIsReportedAndTheOtherJobsStillRun", {never, morning}, {}, "2026-11-22T08:00:30Z", {}, {}, true,
              {S::scheduled, S::succeeded}, {"CronFloorSet", "InvalidEntries"}, "morning",
              "schedule \"0 0 30 2 *\" never fires (no such time within five years)", false},
    wake_case{"AnUnreadableExcludedDateIsReportedAndTheOthersApply", {morning}, {}, "2026-11-22T08:00:30Z",
              {"someday", "2026-11-22"}, {}, true, {S::skipped}, {"SkippedExcludedDate", "InvalidEntries"}, "", "", false}
));
// clang-format on

// Issue 69 (2): our clock 30 minutes behind the server's creationTimestamp (or stepped back past
// a submission): the 08:00 job, due before that submission time, still fires — once — when our
// clock reaches it. The submission is brought to now and written, so the next wake counts from it.
TEST(Wake, ASubmissionAheadOfTheClockHidesNoDueJob) {
    status s;
    run_memory memory;
    const auto report = [](const wake& w) {
        return std::vector<run_report>(w.plan.due.size(),
                                       run_report{true, run_mode::floor, "web", "floor 10"});
    };
    const wake_context before = context("2026-11-22T07:59:50Z", "2026-11-22T08:30:00Z");
    wake w = begin_wake({morning}, {}, s, memory, before);
    finish_wake(w, {morning}, report(w), 10, 1, before, memory, s);
    ASSERT_EQ(s.jobs.size(), 1u);
    EXPECT_EQ(s.jobs[0].submit_time, at("2026-11-22T07:59:50Z"));
    ASSERT_TRUE(w.plan.wake);
    EXPECT_EQ(*w.plan.wake, at("2026-11-22T08:00:00Z"));

    const wake_context due = context("2026-11-22T08:00:01Z", "2026-11-22T08:30:00Z");
    wake again = begin_wake({morning}, {}, s, memory, due);
    const wake_outcome out = finish_wake(again, {morning}, report(again), 10, 1, due, memory, s);
    EXPECT_TRUE(out.fired);
    EXPECT_EQ(to_string(s.jobs[0].state), to_string(S::succeeded));

    const wake_context later = context("2026-11-22T08:10:00Z", "2026-11-22T08:30:00Z");
    wake third = begin_wake({morning}, {}, s, memory, later);
    EXPECT_TRUE(third.plan.due.empty()) << "it fired once";
}

TEST(Wake, AFixedScheduleIsScheduledAgain) {
    const wake_context ctx = context("2026-11-22T07:00:00Z");
    status s;
    s.observed_generation = 1;
    s.jobs = {ran_at(morning, "2026-11-21T08:00:00Z", S::invalid)};
    run_memory memory;
    wake w = begin_wake({morning}, {}, s, memory, ctx);
    finish_wake(w, {morning}, {}, 10, 2, ctx, memory, s);
    EXPECT_EQ(s.jobs[0].state, S::scheduled);
    EXPECT_EQ(s.jobs[0].next_schedule_time, "2026-11-22T08:00:00+00:00");
    EXPECT_EQ(s.next_schedule_time, "2026-11-22T08:00:00+00:00");
    EXPECT_EQ(s.conditions[0].message, "next run at 2026-11-22T08:00:00+00:00");
}

TEST(Wake, RemembersARunWhoseStatusWasNotWritten) {
    // The status write of the 08:00 run failed; the next wake must not fire it again.
    const wake_context first = context("2026-11-22T08:00:30Z");
    status s;
    run_memory memory;
    wake w = begin_wake({morning}, {}, s, memory, first);
    ASSERT_EQ(w.plan.due.size(), 1u);
    status written = s; // the write is lost: the cache keeps the old status
    finish_wake(w, {morning}, {run_report{true, run_mode::direct, "", "scaled"}}, 10, 1, first,
                memory, written);
    const wake_context again = context("2026-11-22T08:01:00Z");
    wake next = begin_wake({morning}, {}, s, memory, again);
    EXPECT_TRUE(next.plan.due.empty());
}

TEST(Wake, HistoryIsNewestFirstAndBounded) {
    status s;
    run_memory memory;
    for (int day = 20; day <= 23; ++day) {
        const std::string now = "2026-11-" + std::to_string(day) + "T08:00:30Z";
        const wake_context ctx = context(now.c_str(), "2026-11-19T00:00:00Z");
        wake w = begin_wake({morning}, {}, s, memory, ctx);
        ASSERT_EQ(w.plan.due.size(), 1u) << now;
        finish_wake(w, {morning}, {run_report{true, run_mode::direct, "", "scaled"}}, 3, 1, ctx,
                    memory, s);
    }
    ASSERT_EQ(s.history.size(), 3u);
    EXPECT_EQ(s.history[0].schedule_time, at("2026-11-23T08:00:00Z"));
    EXPECT_EQ(s.history[2].schedule_time, at("2026-11-21T08:00:00Z"));
    EXPECT_EQ(s.history[0].result, S::succeeded);
    ASSERT_TRUE(s.active);
    EXPECT_EQ(s.active->mode, run_mode::direct);
    EXPECT_EQ(s.active->schedule_time, at("2026-11-23T08:00:00Z"));
}

TEST(Wake, AnUnusableSpecIsNotReady) {
    status s;
    const core::event e =
        mark_invalid(s, 4, "spec.timeZone: unknown time zone \"Mars/Olympus\"", {});
    EXPECT_EQ(e.type, "Warning");
    EXPECT_EQ(e.reason, "InvalidSpec");
    EXPECT_EQ(s.observed_generation, 4);
    ASSERT_EQ(s.conditions.size(), 1u);
    EXPECT_EQ(s.conditions[0].status, core::condition_status::false_);
    EXPECT_EQ(s.conditions[0].reason, "InvalidSpec");
}

TEST(StatusWords, RoundTripAndRefuseOthers) {
    for (auto st :
         {S::scheduled, S::succeeded, S::failed, S::skipped, S::missed, S::superseded, S::invalid})
        EXPECT_EQ(parse_job_state(to_string(st)), st);
    for (auto m : {run_mode::direct, run_mode::floor})
        EXPECT_EQ(parse_run_mode(to_string(m)), m);
    EXPECT_FALSE(parse_job_state("Running"));
    EXPECT_FALSE(parse_job_state("succeeded"));
    EXPECT_FALSE(parse_run_mode(""));
}

} // namespace
} // namespace hpaplus::cron
