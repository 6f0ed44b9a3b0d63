// Integration (the controller in-process against the simulated cluster), second part: leader
// election and its Lease, recorded prediction history and its checkpoint, start-up boost records,
// the operations endpoint. The first part is controller_test.cpp. Every wait has a deadline;
// nothing asserts on speed — only on order and end state.
#include "integration/controller_fixture.hpp"

#include "controller/runtime/manager.hpp"
#include "core/time.hpp"
#include "kube/config.hpp"
#include "support/corrupting_proxy.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <thread>

namespace hpaplus::test {
namespace {

TEST_F(ControllerTest, TwoReplicasElectOneLeaderAndTheOtherTakesOverWhenItDies) {
    apply_manifest(sim, deployment("ha", 2, "400m"));
    apply_manifest(sim, hpaplus("ha", "  syncPeriodSeconds: 1\n"));
    auto options = test_controller_options();
    options.leader.enabled = true;
    options.leader.lease_duration = 2s;
    options.leader.renew_deadline = 1500ms;
    options.leader.retry_period = 200ms;
    options.leader.identity = "first";
    auto first = std::make_unique<controller_runner>(sim, options);
    ASSERT_TRUE(eventually([&] { return first->leading(); }));
    options.leader.identity = "second";
    controller_runner second(sim, options);
    std::this_thread::sleep_for(1s);
    EXPECT_TRUE(first->leading());
    EXPECT_FALSE(second.leading());
    EXPECT_EQ(second.reconciles(), 0u);

    first->kill(); // no release: the Lease must expire
    ASSERT_TRUE(eventually([&] { return second.leading(); }));
    const auto lease = get_json(
        sim, "/apis/coordination.k8s.io/v1/namespaces/hpaplus-system/leases/hpaplus-controller");
    EXPECT_EQ(str(lease, "/spec/holderIdentity"), "second");
    EXPECT_EQ(str(lease, "/spec/leaseTransitions"), "1");
    set_load("ha", "2500m");
    EXPECT_TRUE(eventually([&] { return replicas("ha") > 2; }));
    first.reset();
}

controller::leader_election_options fast_election(const std::string& identity) {
    controller::leader_election_options o;
    o.enabled = true;
    o.lease_duration = 2s;
    o.renew_deadline = 1500ms;
    o.retry_period = 200ms;
    o.identity = identity;
    return o;
}

const std::string lease_path =
    "/apis/coordination.k8s.io/v1/namespaces/hpaplus-system/leases/hpaplus-controller";

// The split brain of issue 19: a leader stopped past its Lease (SIGSTOP, a long GC pause, a
// starved VM) must not act on its old belief when it runs again. Here another replica takes the
// Lease meanwhile, the load calls for more pods, and Lease requests become slow, so that the
// resumed replica cannot learn at once that it lost: only the fence stops its writes.
TEST_F(ControllerTest, ALeaderFrozenPastItsLeaseWritesNothingWhenItResumes) {
    apply_manifest(sim, deployment("frozen", 2, "400m"));
    apply_manifest(sim, hpaplus("frozen", "  syncPeriodSeconds: 1\n"));
    auto options = test_controller_options();
    options.leader = fast_election("first");
    controller_runner first(sim, options);
    ASSERT_TRUE(eventually([&] { return first.leading(); }));
    ASSERT_TRUE(eventually([&] { return !status("frozen", "/status/lastScaleTime").empty(); }))
        << status("frozen", "/status");
    const int before = replicas("frozen");

    first.freeze(4s);
    ASSERT_EQ(sim.request("PATCH", lease_path,
                          R"({"spec":{"holderIdentity":"intruder","leaseDurationSeconds":60}})",
                          "application/merge-patch+json")
                  .status,
              200);
    ASSERT_EQ(sim.request("POST", "/sim/v1/faults",
                          R"({"rules":[{"verb":"*","resource":"leases","latencyMs":2500}]})")
                  .status,
              200);
    set_load("frozen", "2500m");
    const std::string status_version = status("frozen", "/metadata/resourceVersion");

    // Frozen for 4 s, then 3 s of running again: the replica writes neither /scale nor status.
    std::this_thread::sleep_for(7s);
    EXPECT_EQ(replicas("frozen"), before);
    EXPECT_EQ(status("frozen", "/metadata/resourceVersion"), status_version);
    EXPECT_TRUE(eventually([&] { return !first.leading(); }));
    EXPECT_EQ(str(get_json(sim, lease_path), "/spec/holderIdentity"), "intruder");
}

// Reconciles far beyond --kube-api-qps wait for the rate limit; renewals do not, so the leader
// keeps its Lease the whole time.
TEST_F(ControllerTest, RenewalsStayOnTimeWhileReconcilesWaitForTheRateLimit) {
    for (int i = 0; i < 30; ++i) {
        const std::string name = "busy-" + std::to_string(i);
        apply_manifest(sim, deployment(name, 1, "400m"));
        apply_manifest(sim, hpaplus(name, "  syncPeriodSeconds: 1\n"));
    }
    auto options = test_controller_options();
    options.client.qps = 5;
    options.client.burst = 5;
    options.leader = fast_election("busy");
    controller_runner controller(sim, options);
    ASSERT_TRUE(eventually([&] { return controller.leading(); }));
    // 30 objects at one reconcile per second want far more than 5 requests per second: their
    // requests queue for many seconds, a renewal through the same limiter would queue behind them.
    int samples = 0;
    int lost = 0;
    for (const auto until = std::chrono::steady_clock::now() + 8s;
         std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(100ms)) {
        ++samples;
        if (!controller.leading()) ++lost;
    }
    EXPECT_EQ(lost, 0) << "of " << samples << " samples";
    EXPECT_EQ(str(get_json(sim, lease_path), "/spec/holderIdentity"), "busy");
}

TEST_F(ControllerTest, AGracefulShutdownReleasesTheLease) {
    auto options = test_controller_options();
    options.leader.enabled = true;
    options.leader.identity = "only";
    controller_runner controller(sim, options);
    ASSERT_TRUE(eventually([&] { return controller.leading(); }));
    EXPECT_EQ(controller.shutdown(), 0);
    const auto lease = get_json(
        sim, "/apis/coordination.k8s.io/v1/namespaces/hpaplus-system/leases/hpaplus-controller");
    EXPECT_EQ(str(lease, "/spec/holderIdentity"), "");
}

// spec.prediction with `source: Recorded`: the values recorded each pass are written to the
// HPAPlus's HPAPlusCheckpoint and read back by the next controller, so a restart keeps them.
TEST_F(ControllerTest, ARecordedPredictionHistoryIsKeptInItsCheckpointAcrossARestart) {
    apply_manifest(sim, deployment("web", 2, "400m"));
    apply_manifest(sim, predictive_web_hpaplus("    metric: cpu\n    history: {source: Recorded, "
                                               "step: 1s}\n    periods: [1h]\n"));
    const std::string path =
        "/apis/autoscaling.hpaplus.io/v1alpha1/namespaces/default/hpapluscheckpoints/web";
    const auto recorded = [&] {
        const auto doc = get_json(sim, path);
        std::size_t n = 0;
        if (doc.IsObject() && doc.HasMember("status") && doc["status"].HasMember("values"))
            for (const auto& v : doc["status"]["values"].GetArray())
                n += v.IsNumber() ? 1 : 0;
        return n;
    };
    auto options = test_controller_options();
    options.prediction_checkpoint_interval = 1s;
    {
        controller_runner controller(sim, options);
        ASSERT_TRUE(eventually([&] { return recorded() >= 4; }, 30s)) << recorded();
        EXPECT_EQ(controller.shutdown(), 0);
    }
    // Two hours are needed: no forecast yet, and the condition says how much there is.
    EXPECT_EQ(condition("web", "PredictionReady"), "False TooLittleHistory");
    const auto checkpoint = get_json(sim, path);
    EXPECT_EQ(str(checkpoint, "/spec/hpaPlusName"), "web");
    EXPECT_EQ(str(checkpoint, "/metadata/ownerReferences/0/uid"),
              str(get_json(sim, hpapluses + "web"), "/metadata/uid"));
    EXPECT_EQ(str(checkpoint, "/status/metric"), "cpu");
    EXPECT_EQ(str(checkpoint, "/status/step"), "1s");
    // 400m over two pods requesting 500m: 40 % each, a total of 80.
    const auto* first = rapidjson::Pointer("/status/values/0").Get(checkpoint);
    ASSERT_TRUE(first && first->IsNumber());
    EXPECT_EQ(first->GetDouble(), 80);
    const std::size_t kept = recorded();

    auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256);
    spdlog::default_logger()->sinks().push_back(sink);
    const std::string said = "default/web: prediction history restored from its checkpoint (" +
                             std::to_string(kept) + " samples)";
    const auto restored = [&] {
        const auto lines = sink->last_formatted();
        return std::any_of(lines.begin(), lines.end(),
                           [&](const std::string& l) { return l.find(said) != std::string::npos; });
    };
    {
        controller_runner controller(sim, options);
        EXPECT_TRUE(eventually(restored, 30s)) << said;
        EXPECT_TRUE(eventually([&] { return recorded() > kept; }, 30s))
            << "it goes on recording after what it read back";
        EXPECT_EQ(controller.shutdown(), 0);
    }
    spdlog::default_logger()->sinks().pop_back();
}

// Issue 69 (1): a start-up boost record is believed only when a VPAPlus with startupBoost aimed at
// the target names it and its unboosted CPU is the pod template's. Forged on every pod, with no
// VPAPlus anywhere, it used to decide the denominator: "request: 1m" took a steady workload from
// 4 to the maximum, "request: 100000" held it at the minimum under a load that needs more.
TEST_F(ControllerTest, AForgedStartupBoostRecordLeavesTheDecisionWhereTheLoadPutsIt) {
    apply_manifest(sim, deployment("web", 4, "1000m")); // 250m a pod of 500m: 50 %, steady at 4
    ASSERT_TRUE(eventually([&] { return available("web") == 4; }));
    const auto forge = [&](const std::string& request) {
        const auto pods = get_json(sim, "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb");
        ASSERT_TRUE(pods.IsObject());
        for (const auto& p : pods["items"].GetArray()) {
            const std::string name = p["metadata"]["name"].GetString();
            const std::string record = R"({\"vpaplus\":\"x\",\"containers\":[{\"name\":\"app\",)"
                                       R"(\"boosted\":\"500m\",\"request\":\")" +
                                       request + R"(\"}]})";
            const auto r =
                sim.request("PATCH", "/api/v1/namespaces/default/pods/" + name,
                            R"({"metadata":{"annotations":{"vpaplus.hpaplus.io/startup-boost":")" +
                                record + R"("}}})",
                            "application/merge-patch+json");
            ASSERT_EQ(r.status, 200) << r.body;
        }
    };
    const auto ignored_events = [&] {
        const auto doc = get_json(sim, "/api/v1/namespaces/default/events");
        int count = 0;
        for (const auto& e : doc["items"].GetArray())
            if (std::string(e["reason"].GetString()) == "StartupBoostIgnored")
                count += e["count"].GetInt();
        return count;
    };
    auto options = test_controller_options();
    options.ops_listen = "127.0.0.1:0";
    controller_runner controller(sim, options);
    apply_manifest(sim, hpaplus("web", "  syncPeriodSeconds: 1\n", 1, 20));
    ASSERT_TRUE(eventually([&] { return status("web", "/status/desiredReplicas") == "4"; }));

    forge("1m");
    ASSERT_TRUE(eventually([&] { return ignored_events() == 1; }));
    const auto passes = controller.reconciles();
    ASSERT_TRUE(eventually([&] { return controller.reconciles() >= passes + 4; }));
    EXPECT_EQ(replicas("web"), 4) << "the forged 1m request moved the decision";
    EXPECT_EQ(ignored_events(), 1) << "reported once, not every pass";
    const auto metrics = http_get(controller.ops_url() + "/metrics").body;
    EXPECT_NE(metrics.find("hpaplus_untrusted_records_total{record=\"startup-boost\"} 4"),
              std::string::npos)
        << metrics.substr(0, 2000);

    // 4000m wants 8 pods at 50 %; a record claiming 100000 cores of request would hold it at 1.
    forge("100000");
    set_load("web", "4000m");
    EXPECT_TRUE(eventually([&] { return replicas("web") == 8; }, 30s)) << replicas("web");
}

// Issue 69 (3): an HPAPlusCheckpoint is the HPAPlus's history only when it made it — its
// ownerReference names the HPAPlus's uid — and when its samples are not ahead of now. Otherwise it
// is not read (said in the log), and the next write replaces it with one the HPAPlus owns.
TEST_F(ControllerTest, AForeignOrFutureDatedCheckpointIsNotReadAsHistoryAndIsReplaced) {
    apply_manifest(sim, deployment("web", 2, "400m"));
    const std::string path =
        "/apis/autoscaling.hpaplus.io/v1alpha1/namespaces/default/hpapluscheckpoints/web";
    // `count` one-second samples of 1000 from `start`, owned by `owner_uid` ("" = no owner).
    const auto plant = [&](const std::string& owner_uid, core::time_point start, int count) {
        const std::string owners =
            owner_uid.empty() ? ""
                              : R"(,"ownerReferences":[{"apiVersion":"autoscaling.hpaplus.io/)"
                                R"(v1alpha1","kind":"HPAPlus","name":"web","uid":")" +
                                    owner_uid + R"("}])";
        const auto created = sim.request(
            "POST", path.substr(0, path.rfind('/')),
            R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1","kind":"HPAPlusCheckpoint",)"
            R"("metadata":{"name":"web")" +
                owners + R"(},"spec":{"hpaPlusName":"web"}})");
        ASSERT_EQ(created.status, 201) << created.body;
        std::string values;
        for (int i = 0; i < count; ++i)
            values += i ? ",1000" : "1000";
        const auto patched =
            sim.request("PATCH", path + "/status",
                        R"({"status":{"metric":"cpu","step":"1s","start":")" +
                            core::format_rfc3339(start) + R"(","values":[)" + values + "]}}",
                        "application/merge-patch+json");
        ASSERT_EQ(patched.status, 200) << patched.body;
    };
    auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256);
    spdlog::default_logger()->sinks().push_back(sink);
    const auto said = [&](const std::string& what) {
        const auto lines = sink->last_formatted();
        return std::any_of(lines.begin(), lines.end(),
                           [&](const std::string& l) { return l.find(what) != std::string::npos; });
    };
    const auto owner = [&] { return str(get_json(sim, path), "/metadata/ownerReferences/0/uid"); };
    const auto first_value = [&] {
        const auto doc = get_json(sim, path);
        const auto* v = rapidjson::Pointer("/status/values/0").Get(doc);
        return v && v->IsNumber() ? v->GetDouble() : -1.0;
    };
    auto options = test_controller_options();
    options.prediction_checkpoint_interval = 1s;

    // Two hours of history made by someone else before the HPAPlus existed.
    plant("", core::wall_now() - std::chrono::hours(2), 7200);
    apply_manifest(sim, predictive_web_hpaplus("    metric: cpu\n    history: {source: Recorded, "
                                               "step: 1s}\n    periods: [1h]\n"));
    const std::string uid = str(get_json(sim, hpapluses + "web"), "/metadata/uid");
    {
        controller_runner controller(sim, options);
        EXPECT_TRUE(
            eventually([&] { return said("its ownerReferences do not name this HPAPlus"); }, 30s));
        // Replaced, not merged: owned by the HPAPlus, its history its own (80: 40 % of 2 pods).
        EXPECT_TRUE(eventually([&] { return owner() == uid && first_value() == 80; }, 30s))
            << sim.get(path).body.substr(sim.get(path).body.find("\"status\""), 300);
        // The status is written after the checkpoint, in the same pass.
        EXPECT_TRUE(eventually(
            [&] { return condition("web", "PredictionReady") == "False TooLittleHistory"; }, 10s))
            << condition("web", "PredictionReady");
        EXPECT_EQ(controller.shutdown(), 0);
    }

    // Its own, but dated a year ahead: it would stop the recording until then.
    ASSERT_EQ(sim.request("DELETE", path).status, 200);
    ASSERT_TRUE(eventually([&] { return sim.get(path).status == 404; }));
    plant(uid, core::wall_now() + std::chrono::hours(24 * 365), 5);
    {
        controller_runner controller(sim, options);
        EXPECT_TRUE(eventually([&] { return said("ahead of now"); }, 30s));
        EXPECT_TRUE(eventually(
            [&] {
                const auto start = core::parse_rfc3339(str(get_json(sim, path), "/status/start"));
                return owner() == uid && first_value() == 80 && start &&
                       *start < core::wall_now() + std::chrono::minutes(1);
            },
            30s))
            << sim.get(path).body.substr(sim.get(path).body.find("\"status\""), 300);
        EXPECT_EQ(controller.shutdown(), 0);
    }
    spdlog::default_logger()->sinks().pop_back();
}

// A replica that cannot take its Lease says why: on /readyz, and in its log at least once a
// minute (here: a Lease namespace its RBAC does not cover).
TEST_F(ControllerTest, AReplicaThatCannotTakeItsLeaseSaysWhyOnReadyzAndInItsLog) {
    auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256);
    spdlog::default_logger()->sinks().push_back(sink);
    auto options = test_controller_options();
    options.ops_listen = "127.0.0.1:0";
    options.leader = fast_election("lonely");
    options.leader.lease_namespace = "nowhere";
    // RBAC answers before the namespace's absence: its Role grants Leases in hpaplus-system only.
    const std::string why =
        "cannot read the Lease nowhere/hpaplus-controller: leases.coordination.k8s.io "
        "\"hpaplus-controller\" is forbidden: User "
        "\"system:serviceaccount:hpaplus-system:hpaplus-controller\" cannot get resource "
        "\"leases\" in API group \"coordination.k8s.io\" in the namespace \"nowhere\"";
    {
        controller_runner controller(sim, options);
        controller.expect_refusals();
        const std::string url = controller.ops_url();
        EXPECT_TRUE(eventually([&] {
            const auto r = http_get(url + "/readyz");
            return r.status == 503 && r.body == "not ready: " + why + "\n";
        })) << http_get(url + "/readyz").body;
        EXPECT_FALSE(controller.leading());
        EXPECT_EQ(controller.shutdown(), 0);
    }
    spdlog::default_logger()->sinks().pop_back();
    const auto lines = sink->last_formatted();
    const auto said = std::count_if(lines.begin(), lines.end(), [&](const std::string& l) {
        return l.find("leader election: lonely is not leading: " + why) != std::string::npos;
    });
    // Once when it started failing; the same reason is not repeated within the minute.
    EXPECT_EQ(said, 1) << lines.size() << " lines";
}

// Issue 50: with the API server frozen, the leader kept `hpaplus_leader 1` and /readyz "ok" long
// past its renew deadline (its renewal hung for the 30 s request timeout). It steps down at the
// deadline, with the renewal still hanging: the gauge and /readyz say so while the server is
// frozen, and it leads again once the server answers.
TEST_F(ControllerTest, ALeaderWhoseApiServerFreezesStepsDownAtTheRenewDeadline) {
    auto options = test_controller_options();
    options.ops_listen = "127.0.0.1:0";
    options.leader = fast_election("frozen-out");
    options.client.request_timeout = 30s; // the default: a hung request is not given up sooner
    controller_runner controller(sim, options);
    const std::string url = controller.ops_url();
    const auto leader_gauge = [&] {
        const std::string body = http_get(url + "/metrics").body;
        const auto at = body.find("\nhpaplus_leader ");
        return at == std::string::npos ? std::string("?") : body.substr(at + 16, 1);
    };
    ASSERT_TRUE(eventually([&] { return controller.leading() && leader_gauge() == "1"; }));
    // Every request now waits 10 s before the server even looks at it.
    ASSERT_EQ(sim.request("POST", "/sim/v1/faults",
                          R"({"rules":[{"verb":"*","resource":"*","latencyMs":10000}]})")
                  .status,
              200);
    const auto frozen_at = std::chrono::steady_clock::now();
    // Renew deadline 1.5 s, retry period 0.2 s: down well before the first frozen request ends.
    EXPECT_TRUE(eventually([&] { return leader_gauge() == "0"; }, 8s)) << leader_gauge();
    EXPECT_LT(std::chrono::steady_clock::now() - frozen_at, 10s);
    EXPECT_FALSE(controller.leading());
    const auto ready = http_get(url + "/readyz");
    EXPECT_EQ(ready.status, 503);
    // The missed deadline, or the renewal that timed out since: either way the Lease, not "ok".
    EXPECT_NE(ready.body.find("the Lease hpaplus-system/hpaplus-controller"), std::string::npos)
        << ready.body;
    ASSERT_EQ(sim.request("DELETE", "/sim/v1/faults").status, 200);
    EXPECT_TRUE(eventually([&] { return leader_gauge() == "1"; }, 30s)) << leader_gauge();
    EXPECT_EQ(http_get(url + "/readyz").status, 200);
}

TEST_F(ControllerTest, ServesHealthReadinessAndPrometheusMetrics) {
    apply_manifest(sim, deployment("seen", 2, "2500m"));
    apply_manifest(sim, hpaplus("seen", "  syncPeriodSeconds: 1\n"));
    auto options = test_controller_options();
    options.ops_listen = "127.0.0.1:0";
    controller_runner controller(sim, options);
    ASSERT_TRUE(eventually([&] { return replicas("seen") > 2; }));
    const std::string url = controller.ops_url();
    ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;
    auto get = [&](const std::string& path) { return http_get(url + path); };
    // The reconcile that scaled is counted when it ends (after its status write), which can be
    // just after the sim saw the new replicas.
    const std::string rescaled =
        "hpaplus_rescales_total{kind=\"HPAPlus\",name=\"seen\",namespace=\"default\"}";
    EXPECT_TRUE(
        eventually([&] { return get("/metrics").body.find(rescaled) != std::string::npos; }));
    EXPECT_EQ(get("/healthz").status, 200);
    EXPECT_EQ(get("/readyz").status, 200);
    EXPECT_EQ(get("/nope").status, 404);
    const auto metrics = get("/metrics");
    ASSERT_EQ(metrics.status, 200);
    for (const char* line :
         {"hpaplus_reconciles_total{kind=\"HPAPlus\",name=\"seen\",namespace=\"default\"}",
          "hpaplus_rescales_total{kind=\"HPAPlus\",name=\"seen\",namespace=\"default\"}",
          "hpaplus_desired_replicas{kind=\"HPAPlus\",name=\"seen\",namespace=\"default\"}",
          "hpaplus_reconcile_duration_seconds_count", "hpaplus_workers 1",
          "hpaplus_metric_fetch_duration_seconds_count{backend=\"metricsAPI\"}",
          "hpaplus_metric_read_duration_seconds_count",
          "hpaplus_api_requests_total{code=\"200\",verb=\"GET\"}",
          // The object's bounds, its metric's target and current value, its conditions.
          "hpaplus_spec_min_replicas{kind=\"HPAPlus\",name=\"seen\",namespace=\"default\"} 1\n",
          "hpaplus_spec_max_replicas{kind=\"HPAPlus\",name=\"seen\",namespace=\"default\"} 10\n",
          "hpaplus_metric_target{kind=\"HPAPlus\",metric_index=\"0\",metric_name=\"cpu\","
          "metric_type=\"Resource\",name=\"seen\",namespace=\"default\",target_type="
          "\"Utilization\"} 50\n",
          "hpaplus_metric_current{kind=\"HPAPlus\",metric_index=\"0\",metric_name=\"cpu\",",
          "hpaplus_condition{condition=\"ScalingActive\",kind=\"HPAPlus\",name=\"seen\","
          "namespace=\"default\",status=\"true\"} 1\n",
          "hpaplus_condition{condition=\"ScalingActive\",kind=\"HPAPlus\",name=\"seen\","
          "namespace=\"default\",status=\"false\"} 0\n",
          // The metrics APIs as a backend; the process; the build.
          "hpaplus_backend_requests_total{backend=\"metricsAPI\",type=\"metricsAPI\"}",
          "hpaplus_backend_circuit_breaker_state{backend=\"metricsAPI\",state=\"closed\"} 1\n",
          "process_resident_memory_bytes ", "process_cpu_seconds_total ", "process_open_fds ",
          "process_start_time_seconds ", "hpaplus_build_info{",
          // HPAPlus objects are not kube-controller-manager's: its families stay empty.
          "horizontal_pod_autoscaler_controller_num_horizontal_pod_autoscalers 0\n"})
        EXPECT_NE(metrics.body.find(line), std::string::npos) << line << "\n" << metrics.body;
    EXPECT_EQ(metrics.body.find("horizontal_pod_autoscaler_controller_reconciliations_total{"),
              std::string::npos);
    // A deleted object's series go with it.
    ASSERT_EQ(sim.request("DELETE", hpapluses + "seen").status, 200);
    EXPECT_TRUE(eventually([&] {
        const auto after = get("/metrics");
        return after.status == 200 && after.body.find("name=\"seen\"") == std::string::npos;
    })) << get("/metrics").body;
}

} // namespace
} // namespace hpaplus::test
