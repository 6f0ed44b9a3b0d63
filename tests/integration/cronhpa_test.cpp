// Integration tests of CronHPA: the real controller against the simulated cluster, with
// schedules a few seconds ahead of the wall clock. Every wait has a deadline; the assertions are
// about order and end state.
#include "controller/runtime/logging.hpp"
#include "core/time.hpp"
#include "cron/exclusions.hpp"
#include "integration/controller_fixture.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include <thread>

namespace hpaplus::test {
namespace {

const std::string cronhpas = "/apis/autoscaling.hpaplus.io/v1alpha1/namespaces/default/cronhpas/";

// A 6-field schedule that fires once a day, `seconds` from now by `clock` (UTC wall clock).
std::string in_seconds(int seconds, core::time_point (*clock)() = core::wall_now) {
    const auto t =
        std::chrono::floor<std::chrono::seconds>(clock()) + std::chrono::seconds(seconds);
    const auto day = std::chrono::floor<std::chrono::days>(t);
    const std::chrono::hh_mm_ss tod(t - day);
    return fmt::format("{} {} {} * * *", tod.seconds().count(), tod.minutes().count(),
                       tod.hours().count());
}

// A CronHPA; `jobs` and `extra` are spec YAML (two-space indent).
std::string cronhpa(const std::string& name, const std::string& target, const std::string& jobs,
                    const std::string& extra = "") {
    return "apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: CronHPA\nmetadata:\n  name: " +
           name + "\n  namespace: default\nspec:\n  scaleTargetRef: " + target + "\n" + extra +
           "  jobs:\n" + jobs;
}

std::string job(const std::string& name, const std::string& schedule, int size,
                bool run_once = false) {
    return "  - {name: " + name + ", schedule: \"" + schedule +
           "\", targetSize: " + std::to_string(size) + (run_once ? ", runOnce: true" : "") + "}\n";
}

const std::string deployment_ref(const std::string& name) {
    return "{apiVersion: apps/v1, kind: Deployment, name: " + name + "}";
}

class CronHpaTest : public ControllerTest {
  protected:
    std::string cron_status(const std::string& name, const char* pointer) {
        const auto doc = get_json(sim, cronhpas + name);
        return doc.IsObject() ? str(doc, pointer) : "<missing>";
    }
    std::string job_state(const std::string& name, int index) {
        return cron_status(name, ("/status/jobs/" + std::to_string(index) + "/state").c_str());
    }
    // Polls the Deployment's replicas until `done`, returning each distinct value in order.
    std::vector<int> replicas_until(const std::string& name, const std::function<bool()>& done,
                                    std::chrono::seconds limit) {
        std::vector<int> seen;
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < deadline) {
            const int r = replicas(name);
            if (seen.empty() || seen.back() != r) seen.push_back(r);
            if (done()) {
                // done() read the replicas again: a change since `r` belongs to what was seen.
                if (const int last = replicas(name); last != seen.back()) seen.push_back(last);
                break;
            }
            std::this_thread::sleep_for(50ms);
        }
        return seen;
    }
};

TEST_F(CronHpaTest, SetsTheReplicasOfAPlainDeploymentWhenEachJobFires) {
    apply_manifest(sim, deployment("batch", 1, "100m"));
    apply_manifest(sim, cronhpa("nightly", deployment_ref("batch"),
                                job("start", in_seconds(3), 3) + job("stop", in_seconds(6), 1)));
    controller_runner controller(sim, test_controller_options());
    ASSERT_TRUE(eventually([&] { return job_state("nightly", 0) == "Scheduled"; }))
        << cron_status("nightly", "/status");
    EXPECT_FALSE(cron_status("nightly", "/status/nextScheduleTime").empty());
    EXPECT_EQ(cron_status("nightly", "/status/reference"), "Deployment/batch");

    const auto seen = replicas_until(
        "batch", [&] { return job_state("nightly", 1) == "Succeeded"; }, 20s);
    EXPECT_EQ(seen, (std::vector<int>{1, 3, 1}));
    EXPECT_EQ(replicas("batch"), 1);
    EXPECT_EQ(job_state("nightly", 0), "Succeeded");
    EXPECT_EQ(cron_status("nightly", "/status/active/job"), "stop");
    EXPECT_EQ(cron_status("nightly", "/status/active/mode"), "Direct");
    EXPECT_EQ(cron_status("nightly", "/status/history/0/job"), "stop"); // newest first
    EXPECT_EQ(cron_status("nightly", "/status/history/1/job"), "start");
    EXPECT_EQ(cron_status("nightly", "/status/history/1/message"),
              "scaled Deployment/batch from 1 to 3");
    EXPECT_TRUE(eventually([&] { return has_event("nightly", "SuccessfulRescale"); }));
    EXPECT_EQ(cron_status("nightly", "/status/conditions/0/reason"), "Scheduled");
}

// The floor is raised above what the metrics want and released again, with the HPAPlus as the
// only writer: the replicas go 2 → 6 → 2 and never anywhere else.
class CronFloorTest : public CronHpaTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(CronFloorTest, IsRaisedAndReleasedUnderAnHPAPlusWithoutFighting) {
    apply_manifest(sim, deployment("shop", 2, "400m")); // 40 % of requests: 2 replicas suffice
    apply_manifest(sim, hpaplus("shop",
                                "  syncPeriodSeconds: 1\n  behavior:\n    scaleDown: "
                                "{stabilizationWindowSeconds: 2}\n",
                                2, 8));
    controller_runner controller(sim, test_controller_options());
    ASSERT_TRUE(eventually([&] { return reconciled("shop"); }));
    const std::string target = GetParam() == std::string("HPAPlus")
                                   ? "{apiVersion: autoscaling.hpaplus.io/v1alpha1, kind: "
                                     "HPAPlus, name: shop}"
                                   : deployment_ref("shop");
    apply_manifest(sim,
                   cronhpa("office", target,
                           job("morning", in_seconds(3), 6) + job("evening", in_seconds(8), 2)));

    ASSERT_TRUE(eventually([&] { return replicas("shop") == 6; }, 15s))
        << cron_status("office", "/status");
    // /scale is written before the status of the same reconcile: wait for the status too.
    EXPECT_TRUE(eventually([&] { return status("shop", "/status/cronFloor/replicas") == "6"; }))
        << status("shop", "/status");
    EXPECT_EQ(status("shop", "/status/cronFloor/cronHPA"), "office");
    EXPECT_EQ(status("shop", "/status/cronFloor/job"), "morning");
    EXPECT_EQ(cron_status("office", "/status/active/mode"), "Floor");
    EXPECT_EQ(cron_status("office", "/status/active/hpaPlus"), "shop");
    const auto seen = replicas_until(
        "shop", [&] { return job_state("office", 1) == "Succeeded" && replicas("shop") == 2; },
        30s);
    EXPECT_EQ(seen, (std::vector<int>{6, 2})) << status("shop", "/status/lastDecision");
    EXPECT_TRUE(eventually([&] { return status("shop", "/status/cronFloor/job") == "evening"; }));
    EXPECT_EQ(status("shop", "/status/cronFloor/replicas"), "2");
    // The HPAPlus still scales above the floor on load.
    set_load("shop", "3000m");
    EXPECT_TRUE(eventually([&] { return replicas("shop") > 2; }, 15s));
}

INSTANTIATE_TEST_SUITE_P(Target, CronFloorTest, ::testing::Values("HPAPlus", "Deployment"));

// The drop-in path: a CronHPA on a Deployment that a plain HPA scales hands that HPA the floor.
TEST_F(CronHpaTest, AFloorOnAWorkloadThatAPlainHpaScalesGoesToTheHpa) {
    apply_manifest(sim, deployment("store", 2, "400m"));
    apply_manifest(sim, hpa("store", "autoscaling.hpaplus.io/sync-period-seconds: \"1\"",
                            "  behavior:\n    scaleDown: {stabilizationWindowSeconds: 2}\n", 2, 8));
    controller_runner controller(sim, test_controller_options());
    ASSERT_TRUE(eventually(
        [&] { return str(get_json(sim, hpas + "store"), "/status/observedGeneration") == "1"; }));
    apply_manifest(sim, cronhpa("sale", deployment_ref("store"),
                                job("open", in_seconds(3), 6) + job("close", in_seconds(8), 2)));
    ASSERT_TRUE(eventually([&] { return replicas("store") == 6; }, 15s))
        << cron_status("sale", "/status");
    EXPECT_EQ(cron_status("sale", "/status/active/mode"), "Floor");
    const auto seen = replicas_until(
        "store", [&] { return job_state("sale", 1) == "Succeeded" && replicas("store") == 2; },
        30s);
    EXPECT_EQ(seen, (std::vector<int>{6, 2})) << "the CronHPA and the HPA fought over /scale";
}

TEST_F(CronHpaTest, DeletingTheCronHpaReleasesItsFloor) {
    apply_manifest(sim, deployment("api", 2, "400m"));
    controller_runner controller(sim, test_controller_options());
    ASSERT_TRUE(eventually([&] { return controller.acting(); }));
    // Created after start, so its first reconcile is at once; the next would be 60 s later.
    apply_manifest(sim, hpaplus("api",
                                "  syncPeriodSeconds: 60\n  behavior:\n    scaleDown: "
                                "{stabilizationWindowSeconds: 0}\n",
                                2, 8));
    ASSERT_TRUE(eventually([&] { return reconciled("api"); }));
    apply_manifest(sim, cronhpa("hold", deployment_ref("api"), job("up", in_seconds(2), 5)));
    // The 60 s HPAPlus reacts at once: the floor change wakes it (its last pass did not rescale).
    ASSERT_TRUE(eventually([&] { return replicas("api") == 5; }, 15s));
    // A period of 3 s from now on: the release below waits for it after that rescale, no longer.
    ASSERT_EQ(sim.request("PATCH", hpapluses + "api", R"({"spec":{"syncPeriodSeconds":3}})",
                          "application/merge-patch+json")
                  .status,
              200);
    ASSERT_EQ(sim.request("DELETE", cronhpas + "hold").status, 200);
    EXPECT_TRUE(eventually([&] { return status("api", "/status/cronFloor") == "<missing>"; }));
    EXPECT_TRUE(eventually([&] { return replicas("api") == 2; }, 15s));
}

TEST_F(CronHpaTest, ARunOnceJobRunsOnlyOnce) {
    apply_manifest(sim, deployment("launch", 1, "100m"));
    apply_manifest(sim, cronhpa("launch", deployment_ref("launch"),
                                job("go", "@every 2s", 4, true) + job("tick", "@every 1s", 1)));
    controller_runner controller(sim, test_controller_options());
    ASSERT_TRUE(eventually([&] { return job_state("launch", 0) == "Succeeded"; }, 15s));
    EXPECT_EQ(cron_status("launch", "/status/jobs/0/nextScheduleTime"), "<missing>");
    // "go" set 4 once; "tick" sets 1 every second from then on, and "go" never comes back.
    ASSERT_TRUE(eventually([&] { return replicas("launch") == 1; }, 10s));
    const auto seen = replicas_until(
        "launch", [] { return false; }, 5s);
    EXPECT_EQ(seen, std::vector<int>{1}) << "ran again";
    EXPECT_EQ(job_state("launch", 0), "Succeeded");
    EXPECT_EQ(job_state("launch", 1), "Succeeded");
}

TEST_F(CronHpaTest, AJobOnAnExcludedDateOfItsZoneIsSkipped) {
    apply_manifest(sim, deployment("holiday", 1, "100m"));
    // The date the job fires on in Tokyo, which is not always the UTC date.
    const auto fire = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) +
                      std::chrono::seconds(3);
    const auto day = cron::date_in_zone(fire, *cron::find_zone("Asia/Tokyo"));
    const std::string date = fmt::format("{:04}-{:02}-{:02}", day.year, day.month, day.day);
    // in_seconds() reads UTC; in Tokyo (+09:00, no DST) the same instant is 9 hours later.
    const auto tokyo = fire + std::chrono::hours(9);
    const auto local_day = std::chrono::floor<std::chrono::days>(tokyo);
    const std::chrono::hh_mm_ss tod(tokyo - local_day);
    const std::string schedule = fmt::format("{} {} {} * * *", tod.seconds().count(),
                                             tod.minutes().count(), tod.hours().count());
    apply_manifest(sim, cronhpa("closed", deployment_ref("holiday"), job("open", schedule, 5),
                                "  timeZone: Asia/Tokyo\n  excludeDates: [\"" + date +
                                    "\", \"* * 31 2 *\"]\n"));
    controller_runner controller(sim, test_controller_options());
    ASSERT_TRUE(eventually([&] { return job_state("closed", 0) == "Skipped"; }, 15s))
        << cron_status("closed", "/status");
    EXPECT_EQ(cron_status("closed", "/status/jobs/0/message"),
              date + " is an excluded date in Asia/Tokyo");
    EXPECT_EQ(replicas("holiday"), 1);
    EXPECT_EQ(cron_status("closed", "/status/active"), "<missing>");
    EXPECT_TRUE(eventually([&] { return has_event("closed", "SkippedExcludedDate"); }));
}

TEST_F(CronHpaTest, AfterARestartTheLatestMissedJobRunsWithinItsDeadlineOrIsRecordedMissed) {
    apply_manifest(sim, deployment("late", 1, "100m"));
    apply_manifest(sim, deployment("strict", 1, "100m"));
    const auto fire_time = std::chrono::system_clock::now() + 6s;
    const std::string schedule = in_seconds(6);
    apply_manifest(sim, cronhpa("late", deployment_ref("late"), job("up", schedule, 3),
                                "  startingDeadlineSeconds: 600\n"));
    apply_manifest(sim, cronhpa("strict", deployment_ref("strict"), job("up", schedule, 3),
                                "  startingDeadlineSeconds: 1\n"));
    {
        controller_runner first(sim, test_controller_options());
        ASSERT_TRUE(eventually([&] {
            return job_state("late", 0) == "Scheduled" && job_state("strict", 0) == "Scheduled";
        }));
        EXPECT_EQ(first.shutdown(), 0);
    }
    ASSERT_LT(std::chrono::system_clock::now(), fire_time - 1s)
        << "the first controller was still running at the fire time";
    std::this_thread::sleep_until(fire_time + 2s); // it passes while no controller runs
    EXPECT_EQ(replicas("late"), 1);
    controller_runner second(sim, test_controller_options());
    ASSERT_TRUE(eventually([&] { return job_state("late", 0) == "Succeeded"; }, 15s))
        << cron_status("late", "/status");
    EXPECT_EQ(replicas("late"), 3);
    ASSERT_TRUE(eventually([&] { return job_state("strict", 0) == "Missed"; }, 15s))
        << cron_status("strict", "/status");
    EXPECT_EQ(replicas("strict"), 1);
    EXPECT_NE(
        cron_status("strict", "/status/jobs/0/message").find("beyond startingDeadlineSeconds"),
        std::string::npos);
    EXPECT_TRUE(eventually([&] { return has_event("strict", "MissedSchedule"); }));
}

TEST_F(CronHpaTest, BadSpecsGetAConditionAndAnEventWhileGoodJobsStillRun) {
    apply_manifest(sim, deployment("odd", 1, "100m"));
    apply_manifest(sim, cronhpa("nowhere", deployment_ref("odd"), job("a", "@every 1s", 2),
                                "  timeZone: Mars/Olympus_Mons\n"));
    apply_manifest(sim, cronhpa("typo", deployment_ref("odd"),
                                job("bad", "61 * * * *", 9) + job("good", in_seconds(2), 2),
                                "  excludeDates: [\"2026-02-30\"]\n"));
    controller_runner controller(sim, test_controller_options());
    ASSERT_TRUE(eventually(
        [&] { return cron_status("nowhere", "/status/conditions/0/reason") == "InvalidSpec"; }));
    EXPECT_EQ(cron_status("nowhere", "/status/conditions/0/message"),
              "spec.timeZone: unknown time zone \"Mars/Olympus_Mons\"");
    EXPECT_TRUE(eventually([&] { return has_event("nowhere", "InvalidSpec"); }));
    ASSERT_TRUE(eventually([&] { return job_state("typo", 1) == "Succeeded"; }, 15s));
    EXPECT_EQ(replicas("odd"), 2);
    EXPECT_EQ(job_state("typo", 0), "Invalid");
    EXPECT_NE(cron_status("typo", "/status/jobs/0/message").find("minute"), std::string::npos);
    EXPECT_EQ(cron_status("typo", "/status/conditions/0/reason"), "InvalidEntries");
    EXPECT_NE(cron_status("typo", "/status/conditions/0/message").find("excludeDates[0]"),
              std::string::npos);
    EXPECT_TRUE(eventually([&] { return has_event("typo", "InvalidEntries"); }));
}

// Issue 69 (2): a CronHPA follows the wall clock, as a schedule must, and a step either way loses
// no due job and runs none twice. Our clock 15 minutes behind the server's (stepped back): the
// CronHPA's creationTimestamp is ahead of it, and the four jobs due before that time by our clock
// used to be hidden by it — none ran.
TEST_F(CronHpaTest, AfterAStepBackEveryDueJobRunsOnce) {
    reset_test_clock();
    step_test_clock(-std::chrono::minutes(15));
    apply_manifest(sim, deployment("back", 1, "100m"));
    apply_manifest(sim, cronhpa("back", deployment_ref("back"),
                                job("two", in_seconds(3, test_clock), 2) +
                                    job("three", in_seconds(6, test_clock), 3) +
                                    job("four", in_seconds(9, test_clock), 4) +
                                    job("five", in_seconds(12, test_clock), 5)));
    auto options = test_controller_options();
    options.wall_clock = test_clock;
    controller_runner controller(sim, options);
    const auto seen = replicas_until(
        "back", [&] { return job_state("back", 3) == "Succeeded"; }, 40s);
    reset_test_clock();
    EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4, 5}));
    for (int j = 0; j < 4; ++j)
        EXPECT_EQ(job_state("back", j), "Succeeded") << j;
    // One run each in the history.
    const auto doc = get_json(sim, cronhpas + "back");
    ASSERT_TRUE(doc.IsObject() && doc["status"].HasMember("history"));
    EXPECT_EQ(doc["status"]["history"].Size(), 4u);
}

// A step forward past two fire times: what fell due runs once — the latest, as after downtime
// (the missed-run rules) — and the worker, asleep on the steady clock, sees it within
// cron_max_sleep.
TEST_F(CronHpaTest, AfterAStepForwardTheLatestJobThatFellDueRunsOnce) {
    reset_test_clock();
    apply_manifest(sim, deployment("ahead", 1, "100m"));
    apply_manifest(sim,
                   cronhpa("ahead", deployment_ref("ahead"),
                           job("three", in_seconds(300), 3) + job("four", in_seconds(600), 4)));
    auto options = test_controller_options();
    options.wall_clock = test_clock;
    options.cron_max_sleep = 2s;
    controller_runner controller(sim, options);
    ASSERT_TRUE(eventually([&] { return job_state("ahead", 1) == "Scheduled"; }));
    step_test_clock(std::chrono::minutes(15));
    const auto seen = replicas_until(
        "ahead", [&] { return job_state("ahead", 1) == "Succeeded"; }, 20s);
    reset_test_clock();
    EXPECT_EQ(seen, (std::vector<int>{1, 4}));
    EXPECT_EQ(job_state("ahead", 0), "Superseded");
    std::this_thread::sleep_for(3s); // more than a wake later: nothing runs again
    const auto doc = get_json(sim, cronhpas + "ahead");
    ASSERT_TRUE(doc.IsObject() && doc["status"].HasMember("history"));
    EXPECT_EQ(doc["status"]["history"].Size(), 2u) << "one run, one superseded";
    EXPECT_EQ(replicas("ahead"), 4);
}

// Issue 69 (8): a job name is the user's text; with a newline and an ESC in it, and a schedule that
// does not parse, every pass logs it — as one line, its control characters escaped, in the format
// the controller's log has (controller::log_formatter). It used to forge a line of its own.
TEST_F(CronHpaTest, AJobNameWithANewlineAndAnEscapeLogsOneEscapedLine) {
    apply_manifest(sim, deployment("victim", 1, "100m"));
    apply_manifest(sim, cronhpa("victim", deployment_ref("victim"),
                                "  - {name: \"b\\e[2J\\n2026-01-01T00:00:00.000Z info "
                                "default/victim\", schedule: \"61 * * * *\", targetSize: 9}\n"));
    auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256);
    sink->set_formatter(controller::log_formatter());
    spdlog::default_logger()->sinks().push_back(sink);
    const std::string escaped = "job b\\x1b[2J\\n2026-01-01T00:00:00.000Z info default/victim: ";
    const auto logged = [&] {
        const auto lines = sink->last_formatted();
        return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
            return l.find(escaped) != std::string::npos;
        });
    };
    {
        controller_runner controller(sim, test_controller_options());
        EXPECT_TRUE(eventually(logged, 20s)) << escaped;
        EXPECT_EQ(controller.shutdown(), 0);
    }
    spdlog::default_logger()->sinks().pop_back();
    for (const std::string& line : sink->last_formatted()) {
        // One line each: the line break spdlog ends it with, and no other control character.
        ASSERT_FALSE(line.empty());
        EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
        EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
    }
    // The status keeps the name as data, as it was given.
    EXPECT_EQ(cron_status("victim", "/status/jobs/0/name"),
              "b\x1b[2J\n2026-01-01T00:00:00.000Z info default/victim");
}

} // namespace
} // namespace hpaplus::test
