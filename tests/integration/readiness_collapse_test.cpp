// Readiness collapse and stale samples on the simulated cluster, over time: a queue worker whose
// pods shed readiness under load (sim.hpaplus.io/unready-above) stays stuck under an upstream HPA
// and recovers under an HPAPlus with unreadyPods: Count; an External sample older than
// maxSampleAgeSeconds fails its metric (the fallback holds) until a fresh one decides.
#include "integration/controller_fixture.hpp"

#include "core/time.hpp"

#include <gtest/gtest.h>

namespace hpaplus::test {
namespace {

// A ConfigMap the simulated external metrics API serves as `queue_length` (data.timestamp: when
// it was sampled).
std::string queue(const std::string& value, const std::string& sampled = "") {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: queue\n  namespace: default\n"
           "  labels: {sim.hpaplus.io/external-metric: queue_length}\ndata:\n  value: \"" +
           value + "\"\n" + (sampled.empty() ? "" : "  timestamp: \"" + sampled + "\"\n");
}

// Four pods sharing 4 CPU (1 each) that fail readiness above 800m each.
std::string worker(const std::string& name) {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
           "\n  namespace: default\n  annotations: {sim.hpaplus.io/cpu-load: \"4000m\", "
           "sim.hpaplus.io/unready-above: \"800m\"}\nspec:\n  replicas: 4\n  selector: "
           "{matchLabels: {app: " +
           name + "}}\n  template:\n    metadata: {labels: {app: " + name +
           "}}\n    spec:\n      containers:\n      - name: app\n        image: worker\n"
           "        resources: {requests: {cpu: 1000m}}\n";
}

// The spec both autoscalers share: the queue at 100 for the whole workload (a Value target), 2 to
// 8 replicas, scale-downs at once.
std::string queue_spec(const std::string& name, const std::string& extra) {
    return "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: " + name +
           "}\n  minReplicas: 2\n  maxReplicas: 8\n" + extra +
           "  metrics:\n  - type: External\n    external:\n      metric: {name: queue_length}\n"
           "      target: {type: Value, value: \"100\"}\n"
           "  behavior:\n    scaleDown: {stabilizationWindowSeconds: 0}\n";
}

class ReadinessCollapse : public ControllerTest {
  protected:
    // The app's pods whose condition `type` (or, for "Running", phase) holds.
    int pods_that_are(const std::string& app, const std::string& type) {
        const auto doc =
            get_json(sim, "/api/v1/namespaces/default/pods?labelSelector=app%3D" + app);
        int n = 0;
        if (!doc.IsObject()) return -1;
        for (const auto& p : doc["items"].GetArray()) {
            if (!p.HasMember("status")) continue;
            if (type == "Running") {
                n += str(p, "/status/phase") == "Running";
                continue;
            }
            if (!p["status"].HasMember("conditions")) continue;
            for (const auto& c : p["status"]["conditions"].GetArray())
                n +=
                    type == c["type"].GetString() && std::string(c["status"].GetString()) == "True";
        }
        return n;
    }
    int ready_pods(const std::string& app) { return pods_that_are(app, "Ready"); }
    std::vector<std::string> event_messages(const std::string& object, const std::string& reason) {
        std::vector<std::string> out;
        const auto doc = get_json(sim, "/api/v1/namespaces/default/events");
        if (!doc.IsObject()) return out;
        for (const auto& e : doc["items"].GetArray())
            if (object == e["involvedObject"]["name"].GetString() &&
                reason == e["reason"].GetString())
                out.emplace_back(e["message"].GetString());
        return out;
    }
    controller::controller_options options() {
        auto o = test_controller_options();
        // Pods past their start-up windows within a couple of seconds (upstream: 5 min and 30 s).
        o.policy.initial_readiness_delay = std::chrono::seconds(1);
        return o;
    }
};

TEST_F(ReadinessCollapse, AnUpstreamHpaIsStuckWhereCountScalesOutAndRecovers) {
    apply_manifest(sim, queue("400")); // 4× the target
    apply_manifest(sim, worker("stuck"));
    apply_manifest(sim, worker("recovers"));
    // Every pod shares 1 CPU, above the 800m it sheds readiness at: all Running, none Ready
    // (and, a second later, past the controller's start-up windows).
    ASSERT_TRUE(eventually([&] {
        return pods_that_are("stuck", "Running") == 4 && pods_that_are("recovers", "Running") == 4;
    }));
    std::this_thread::sleep_for(1500ms);
    ASSERT_EQ(ready_pods("stuck"), 0);
    ASSERT_EQ(ready_pods("recovers"), 0);
    apply_manifest(sim, "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n"
                        "  name: stuck\n  namespace: default\n  annotations: "
                        "{autoscaling.hpaplus.io/sync-period-seconds: \"1\"}\n" +
                            queue_spec("stuck", ""));
    apply_manifest(sim,
                   "apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: HPAPlus\nmetadata:\n"
                   "  name: recovers\n  namespace: default\n" +
                       queue_spec("recovers", "  syncPeriodSeconds: 1\n  unreadyPods: Count\n"));
    controller_runner controller(sim, options());

    // Upstream: ceil(4 × 0 Ready pods) = 0, so down to minReplicas, where each pod's 2 CPU keep
    // it unready. Count: ceil(4 × 4) = 16, at most 8; 500m each, and every pod is Ready again.
    int lowest_recovering = 4;
    ASSERT_TRUE(eventually(
        [&] {
            lowest_recovering = std::min(lowest_recovering, replicas("recovers"));
            return replicas("stuck") == 2 && replicas("recovers") == 8 &&
                   ready_pods("recovers") == 8;
        },
        60s))
        << "stuck " << replicas("stuck") << ", recovers " << replicas("recovers") << " ("
        << ready_pods("recovers") << " ready)";
    EXPECT_EQ(lowest_recovering, 4); // it never went the wrong way
    // Said once when the four were counted, once when every pod was Ready again.
    EXPECT_TRUE(
        eventually([&] { return event_messages("recovers", "UnreadyPodsCounted").size() == 2; }));
    auto said = event_messages("recovers", "UnreadyPodsCounted");
    std::sort(said.begin(), said.end()); // the list's order is the Events' names'
    ASSERT_EQ(said.size(), 2u);
    EXPECT_EQ(said[0].rfind("4 unready pods counted (readiness collapse): recovers-", 0), 0u)
        << said[0];
    EXPECT_EQ(said[1], "every pod that counts is ready again; no unready pod counted");
    EXPECT_TRUE(event_messages("stuck", "UnreadyPodsCounted").empty());
    // The stuck one stays stuck: its two pods share 4 CPU and are never Ready.
    std::this_thread::sleep_for(3s);
    EXPECT_EQ(replicas("stuck"), 2);
    EXPECT_EQ(ready_pods("stuck"), 0);
    EXPECT_EQ(replicas("recovers"), 8);
}

TEST_F(ReadinessCollapse, AStaleSampleFailsItsMetricUntilAFreshOneDecides) {
    const auto ten_minutes_ago = core::format_rfc3339(core::wall_now() - std::chrono::minutes(10));
    apply_manifest(sim, queue("400", ten_minutes_ago));
    apply_manifest(sim, deployment("fresh", 2, "400m"));
    apply_manifest(sim, "apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: HPAPlus\nmetadata:\n"
                        "  name: fresh\n  namespace: default\nspec:\n  scaleTargetRef: "
                        "{apiVersion: apps/v1, kind: Deployment, name: fresh}\n  minReplicas: 2\n"
                        "  maxReplicas: 8\n  syncPeriodSeconds: 1\n  metrics:\n  - type: External\n"
                        "    external:\n      metric: {name: queue_length}\n"
                        "      target: {type: Value, value: \"100\"}\n"
                        "    maxSampleAgeSeconds: 120\n    fallback: {onFailure: Hold}\n");
    auto with_metrics = options();
    with_metrics.ops_listen = "127.0.0.1:0";
    controller_runner controller(sim, with_metrics);
    ASSERT_TRUE(eventually([&] {
        return condition("fresh", "FallbackActive") == "True FallbackActive";
    })) << sim.get(hpapluses + "fresh").body;
    const auto doc = get_json(sim, hpapluses + "fresh");
    std::string message;
    for (const auto& c : doc["status"]["conditions"].GetArray())
        if (std::string(c["type"].GetString()) == "FallbackActive")
            message = c["message"].GetString();
    EXPECT_NE(message.find("sample from 10m"), std::string::npos) << message;
    EXPECT_NE(message.find("older than maxSampleAgeSeconds 120"), std::string::npos) << message;
    EXPECT_EQ(replicas("fresh"), 2); // held
    // /metrics: the sample's age per object, and how late the first decision that used it was.
    const auto scraped = [&](const std::string& series) {
        const std::string body = http_get(controller.ops_url() + "/metrics").body;
        const auto at = body.find("\n" + series + " ");
        return at == std::string::npos ? -1.0 : std::stod(body.substr(at + series.size() + 2));
    };
    const double age = scraped("hpaplus_metric_sample_age_seconds{kind=\"HPAPlus\",metric_index="
                               "\"0\",metric_name=\"queue_length\",metric_type=\"External\","
                               "name=\"fresh\",namespace=\"default\",target_type=\"Value\"}");
    EXPECT_GE(age, 600);
    EXPECT_LT(age, 700);
    EXPECT_EQ(scraped("hpaplus_sample_to_decision_seconds_bucket{metric_type=\"External\","
                      "le=\"600\"}"),
              0);
    EXPECT_EQ(scraped("hpaplus_sample_to_decision_seconds_count{metric_type=\"External\"}"), 1);

    // Sampled now (the timestamp goes: the server dates it at each read).
    const auto fresh =
        sim.request("PATCH", "/api/v1/namespaces/default/configmaps/queue",
                    R"({"data":{"timestamp":null}})", "application/merge-patch+json");
    ASSERT_EQ(fresh.status, 200) << fresh.body;
    ASSERT_TRUE(eventually([&] { return replicas("fresh") >= 4; }, 30s))
        << sim.get(hpapluses + "fresh").body;
    EXPECT_TRUE(eventually(
        [&] { return condition("fresh", "FallbackActive") == "False MetricsAvailable"; }));
    // Each fresh sample is counted once, at the decision that first used it: within seconds
    // (recorded as that pass ends, which may be just after the scale the test saw).
    EXPECT_TRUE(eventually([&] {
        return scraped("hpaplus_sample_to_decision_seconds_bucket{metric_type=\"External\","
                       "le=\"5\"}") >= 1;
    }));
}

} // namespace
} // namespace hpaplus::test
