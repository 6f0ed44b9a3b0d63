// Integration tests of VPAPlus: the real controller against the simulated cluster, whose
// simulated kubelet actuates pods/resize (PodResizeInProgress, then the new resources in
// containerStatuses) or reports PodResizePending Deferred/Infeasible against its one node.
#include "integration/vertical_fixture.hpp"

namespace hpaplus::test {
namespace {

TEST_F(VerticalTest, ResizesPodsWhoseUsageExceedsTheirRequestsInPlaceWithoutARestart) {
    apply_manifest(sim, workload("web", 2, "1200m")); // 600m a pod against 100m requested
    ASSERT_TRUE(eventually([&] { return running("web", 2); }));
    const auto before = uids("web");
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("web", "InPlace"));

    ASSERT_TRUE(eventually([&] {
        const auto ps = pods("web");
        if (ps.size() != 2) return false;
        for (const auto& p : ps)
            if (milli(p.cpu_request) < 600 || p.applied_cpu != p.cpu_request) return false;
        return true;
    })) << vstatus("web", "/status");
    for (const auto& p : pods("web")) {
        EXPECT_EQ(p.restarts, 0) << p.name;
        EXPECT_GT(milli(p.memory_request), milli("300Mi")) << p.name;
    }
    EXPECT_EQ(uids("web"), before) << "the same pods, resized; none replaced";
    EXPECT_EQ(vcondition("web", "RecommendationProvided"), "True RecommendationProvided");
    EXPECT_EQ(vcondition("web", "LowConfidence"), "True ShortHistory");
    EXPECT_GE(counter("web", "/status/inPlaceResizes"), 2);
    EXPECT_EQ(counter("web", "/status/evictions"), 0);
    EXPECT_GE(milli(vstatus("web", "/status/recommendation/containerRecommendations/0/target/cpu")),
              600);
    EXPECT_TRUE(has_event("web", "InPlaceResizedByVPAPlus"));
}

TEST_F(VerticalTest, OffModeRecommendsButNeverTouchesPods) {
    apply_manifest(sim, workload("quiet", 2, "1200m"));
    ASSERT_TRUE(eventually([&] { return running("quiet", 2); }));
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("quiet", "\"Off\""));
    ASSERT_TRUE(eventually([&] {
        return vcondition("quiet", "RecommendationProvided") == "True RecommendationProvided";
    }));
    std::this_thread::sleep_for(1500ms); // several passes
    for (const auto& p : pods("quiet"))
        EXPECT_EQ(p.cpu_request, "100m");
    EXPECT_EQ(counter("quiet", "/status/inPlaceResizes"), 0);
}

// The value of one series in a Prometheus text exposition; nullopt when it is not there.
std::optional<double> series_value(const std::string& exposition, const std::string& series) {
    const std::string head = "\n" + series + " ";
    const auto at = exposition.find(head);
    if (at == std::string::npos) return std::nullopt;
    return std::stod(exposition.substr(at + head.size()));
}

TEST_F(VerticalTest, MetricsCountTheWorkersAndPassesOfEveryKind) {
    apply_manifest(sim, workload("counted", 2, "1200m"));
    ASSERT_TRUE(eventually([&] { return running("counted", 2); }));
    auto options = vertical_options();
    options.ops_listen = "127.0.0.1:0";
    controller_runner controller(sim, options);
    apply_manifest(sim, vpaplus("counted", "\"Off\""));
    ASSERT_TRUE(eventually([&] {
        return vcondition("counted", "RecommendationProvided") == "True RecommendationProvided";
    }));
    const auto metrics = http_get(controller.ops_url() + "/metrics");
    ASSERT_EQ(metrics.status, 200);
    const std::string& text = metrics.body;
    for (const char* kind : {"HPAPlus", "CronHPA", "VPAPlus"}) {
        const std::string label = std::string("{kind=\"") + kind + "\"}";
        EXPECT_TRUE(series_value(text, "hpaplus_kind_workers" + label)) << kind << "\n" << text;
        EXPECT_TRUE(series_value(text, "hpaplus_kind_reconciles_total" + label)) << kind;
        EXPECT_TRUE(series_value(text, "hpaplus_kind_reconcile_errors_total" + label)) << kind;
    }
    EXPECT_EQ(series_value(text, "hpaplus_kind_workers{kind=\"VPAPlus\"}"), 1.0);
    EXPECT_EQ(series_value(text, "hpaplus_kind_workers{kind=\"HPAPlus\"}"), 0.0);
    EXPECT_EQ(series_value(text, "hpaplus_workers"), 1.0);
    EXPECT_GE(series_value(text, "hpaplus_kind_reconciles_total{kind=\"VPAPlus\"}").value_or(0),
              1.0)
        << "a recommendation took at least one pass";
}

TEST_F(VerticalTest, WithoutTheWebhookRecreateRecommendsOnlyAndSaysWhy) {
    apply_manifest(sim, workload("later", 2, "1200m"));
    ASSERT_TRUE(eventually([&] { return running("later", 2); }));
    const auto before = uids("later");
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("later", "Recreate"));
    ASSERT_TRUE(eventually([&] {
        return vcondition("later", "ConfigUnsupported") == "True NeedsAdmissionWebhook" &&
               vcondition("later", "RecommendationProvided") == "True RecommendationProvided";
    })) << vstatus("later", "/status");
    std::this_thread::sleep_for(1500ms);
    EXPECT_EQ(uids("later"), before) << "no pod evicted into the same requests";
    for (const auto& p : pods("later"))
        EXPECT_EQ(p.cpu_request, "100m");
}

TEST_F(VerticalWebhookTest, RecreateEvictsAndTheReplacementsComeBackWithTheRecommendation) {
    apply_manifest(sim, workload("again", 2, "1200m"));
    ASSERT_TRUE(eventually([&] { return running("again", 2); }));
    const auto before = uids("again");
    controller_runner controller(sim, webhook_options());
    ASSERT_TRUE(eventually([&] { return controller.acting(); }));
    register_webhook(controller);
    apply_manifest(sim, vpaplus("again", "Recreate"));
    ASSERT_TRUE(eventually([&] {
        const auto ps = pods("again");
        if (ps.size() != 2) return false;
        for (const auto& p : ps)
            if (before.count(p.uid) || milli(p.cpu_request) < 600) return false;
        return true;
    })) << vstatus("again", "/status");
    EXPECT_EQ(vcondition("again", "ConfigUnsupported"), "False TargetFound");
    EXPECT_GE(counter("again", "/status/evictions"), 2);
    EXPECT_EQ(counter("again", "/status/inPlaceResizes"), 0);
    EXPECT_TRUE(has_event("again", "EvictedByVPAPlus"));
    EXPECT_NE(annotation("again").find("Pod resources set by VPAPlus again at creation: app: cpu "
                                       "request"),
              std::string::npos)
        << annotation("again");
}

TEST_F(VerticalWebhookTest, InitialSetsOnlyNewPodsAndBadReviewsAreRefused) {
    apply_manifest(sim, workload("fresh", 2, "1200m"));
    ASSERT_TRUE(eventually([&] { return running("fresh", 2); }));
    const auto before = uids("fresh");
    controller_runner controller(sim, webhook_options());
    ASSERT_TRUE(eventually([&] { return controller.acting(); }));
    register_webhook(controller);
    apply_manifest(sim, vpaplus("fresh", "Initial"));
    ASSERT_TRUE(eventually([&] {
        return vcondition("fresh", "RecommendationProvided") == "True RecommendationProvided";
    }));
    std::this_thread::sleep_for(1500ms); // several passes: running pods stay as they are
    EXPECT_EQ(uids("fresh"), before);
    for (const auto& p : pods("fresh"))
        EXPECT_EQ(p.cpu_request, "100m");
    EXPECT_EQ(vcondition("fresh", "ConfigUnsupported"), "False TargetFound");

    ASSERT_EQ(sim.request("PATCH", "/apis/apps/v1/namespaces/default/deployments/fresh/scale",
                          R"({"spec":{"replicas":3}})", "application/merge-patch+json")
                  .status,
              200);
    ASSERT_TRUE(eventually([&] { return pods("fresh").size() == 3; }));
    for (const auto& p : pods("fresh")) {
        if (before.count(p.uid))
            EXPECT_EQ(p.cpu_request, "100m") << p.name;
        else
            EXPECT_GE(milli(p.cpu_request), 400) << p.name << " was created with the target";
    }

    const auto not_json = post_review(controller, "{not json");
    EXPECT_EQ(not_json.status, 400) << not_json.error;
    const auto not_a_review = post_review(controller, R"({"kind":"Pod"})");
    EXPECT_EQ(not_a_review.status, 400);
    // A pod no VPAPlus selects is allowed as it is.
    const auto other = post_review(
        controller,
        R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1",)"
        R"("kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"default",)"
        R"("object":{"metadata":{"labels":{"app":"nobody"}},"spec":{"containers":[{"name":"c"}]}}}})");
    ASSERT_EQ(other.status, 200);
    const auto review = parse(other.body);
    EXPECT_EQ(str(review, "/response/uid"), "u1");
    EXPECT_EQ(str(review, "/response/allowed"), "true");
    EXPECT_EQ(str(review, "/response/patch"), "<missing>");

    // A pod with 100,000 labels (1.6 MB, within etcd's limit) is decoded in linear time: the
    // review is answered like any other (quadratic decoding stalled the loop for seconds).
    std::string labels = R"({"app":"nobody")";
    for (int i = 0; i < 100000; ++i)
        labels += ",\"label-" + std::to_string(i) + "\":\"v\"";
    labels += "}";
    const auto large = post_review(
        controller,
        R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u2",)"
        R"("kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"default",)"
        R"("object":{"metadata":{"labels":)" +
            labels + R"(},"spec":{"containers":[{"name":"c"}]}}}})");
    ASSERT_EQ(large.status, 200) << large.error;
    EXPECT_EQ(str(parse(large.body), "/response/uid"), "u2");
    EXPECT_EQ(str(parse(large.body), "/response/allowed"), "true");
}

// One node of 2 CPUs: a pod wanting ~3.5 CPUs can never be resized there (Infeasible).
class VerticalSmallNodeTest : public VerticalTest {
  protected:
    VerticalSmallNodeTest() : VerticalTest(small_node()) {}
    static sim::cluster_options small_node() {
        auto o = fast_cluster();
        o.workload.node_cpu_milli = 2000;
        return o;
    }
};

TEST_F(VerticalSmallNodeTest, InfeasibleFallsBackToEvictionInInPlaceOrRecreate) {
    apply_manifest(sim, workload("big", 2, "6000m"));
    ASSERT_TRUE(eventually([&] { return running("big", 2); }));
    const auto before = uids("big");
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("big", "InPlaceOrRecreate"));
    ASSERT_TRUE(eventually([&] { return counter("big", "/status/evictions") >= 1; }))
        << vstatus("big", "/status");
    EXPECT_TRUE(has_event("big", "EvictedByVPAPlus"));
    EXPECT_TRUE(eventually([&] {
        const auto now = uids("big");
        for (const auto& uid : before)
            if (!now.count(uid)) return true;
        return false;
    })) << "an evicted pod was replaced by the Deployment";
}

TEST_F(VerticalSmallNodeTest, InfeasibleNeverEvictsInInPlace) {
    apply_manifest(sim, workload("pinned", 2, "6000m"));
    ASSERT_TRUE(eventually([&] { return running("pinned", 2); }));
    const auto before = uids("pinned");
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("pinned", "InPlace"));
    ASSERT_TRUE(eventually([&] {
        for (const auto& p : pods("pinned"))
            if (p.resize_pending == "Infeasible") return true;
        return false;
    })) << vstatus("pinned", "/status");
    std::this_thread::sleep_for(2s); // several passes past the Infeasible report
    EXPECT_EQ(uids("pinned"), before);
    EXPECT_EQ(counter("pinned", "/status/evictions"), 0);
    EXPECT_FALSE(has_event("pinned", "EvictedByVPAPlus"));
}

TEST_F(VerticalSmallNodeTest, ADisruptionBudgetBlocksTheEvictionFallback) {
    apply_manifest(sim, workload("guarded", 2, "6000m"));
    apply_manifest(sim, "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: "
                        "guarded\n  namespace: default\nspec:\n  minAvailable: 2\n  selector: "
                        "{matchLabels: {app: guarded}}\n");
    ASSERT_TRUE(eventually([&] { return running("guarded", 2); }));
    const auto before = uids("guarded");
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("guarded", "InPlaceOrRecreate"));
    ASSERT_TRUE(eventually([&] { return has_event("guarded", "EvictionBlocked"); }))
        << vstatus("guarded", "/status");
    std::this_thread::sleep_for(1s);
    EXPECT_EQ(uids("guarded"), before);
    EXPECT_EQ(counter("guarded", "/status/evictions"), 0);
}

TEST_F(VerticalTest, LeavesCpuToAnHpaPlusOnTheSameWorkloadAndSaysSoOnBoth) {
    apply_manifest(sim, workload("shared", 2, "100m")); // 50m a pod: 50 % of 100m, at target
    ASSERT_TRUE(eventually([&] { return running("shared", 2); }));
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, hpaplus("shared", "  syncPeriodSeconds: 1\n", 2, 6));
    apply_manifest(sim, vpaplus("shared", "InPlace"));
    // Memory (300Mi used, 128Mi requested) is resized; cpu stays the HPAPlus's.
    ASSERT_TRUE(eventually([&] {
        const auto ps = pods("shared");
        if (ps.size() != 2) return false;
        for (const auto& p : ps)
            if (milli(p.memory_request) <= milli("300Mi")) return false;
        return true;
    })) << vstatus("shared", "/status");
    for (const auto& p : pods("shared"))
        EXPECT_EQ(p.cpu_request, "100m") << p.name;
    EXPECT_EQ(vstatus("shared", "/status/recommendation/containerRecommendations/0/target/cpu"),
              "<missing>");
    EXPECT_EQ(vcondition("shared", "CoordinatedWithHPAPlus"), "True ResourcesLeftToHPAPlus");
    EXPECT_EQ(vstatus("shared", "/status/sharedWith"), "shared");
    ASSERT_TRUE(eventually([&] {
        return condition("shared", "CoordinatedWithVPAPlus") == "True ResourcesLeftToHPAPlus";
    }));
    std::this_thread::sleep_for(1s);
    EXPECT_EQ(replicas("shared"), 2) << "the HPAPlus saw no reason to scale";
}

TEST_F(VerticalTest, LeavesCpuToAPlainHpaOnTheSameWorkloadToo) {
    apply_manifest(sim, workload("plain", 2, "100m"));
    ASSERT_TRUE(eventually([&] { return running("plain", 2); }));
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim,
                   hpa("plain", "autoscaling.hpaplus.io/sync-period-seconds: \"1\"", "", 2, 6));
    apply_manifest(sim, vpaplus("plain", "InPlace"));
    ASSERT_TRUE(eventually([&] {
        return vcondition("plain", "CoordinatedWithHPAPlus") == "True ResourcesLeftToHPAPlus";
    })) << vstatus("plain", "/status");
    EXPECT_EQ(vstatus("plain", "/status/sharedWith"), "HorizontalPodAutoscaler/plain");
    ASSERT_TRUE(eventually([&] {
        return condition_at(hpas + "plain", "CoordinatedWithVPAPlus") ==
               "True ResourcesLeftToHPAPlus";
    }));
    EXPECT_EQ(vstatus("plain", "/status/recommendation/containerRecommendations/0/target/cpu"),
              "<missing>");
    for (const auto& p : pods("plain"))
        EXPECT_EQ(p.cpu_request, "100m") << p.name;
}

TEST_F(VerticalTest, HistoryIsCheckpointedAndRestoredAfterARestart) {
    apply_manifest(sim, workload("kept", 2, "400m"));
    ASSERT_TRUE(eventually([&] { return running("kept", 2); }));
    apply_manifest(sim, vpaplus("kept", "\"Off\""));
    const auto samples = [&] {
        const auto doc = get_json(sim, checkpoints + "kept-app");
        const std::string n = doc.IsObject() ? str(doc, "/status/totalSamplesCount") : "";
        return n.empty() || n[0] == '<' ? 0LL : std::stoll(n);
    };
    std::int64_t first = 0;
    {
        controller_runner controller(sim, vertical_options());
        ASSERT_TRUE(eventually([&] { return (first = samples()) >= 4; }));
        controller.shutdown();
    }
    EXPECT_EQ(str(get_json(sim, checkpoints + "kept-app"), "/spec/vpaObjectName"), "kept");
    controller_runner again(sim, vertical_options());
    // A fresh history would restart the count near zero; a restored one keeps growing from it.
    ASSERT_TRUE(eventually([&] { return samples() > first; }));
    EXPECT_GE(samples(), first);
}

// Issue 69 (1): a VPAPlusCheckpoint is read only when the VPAPlus made it (its uid among the
// ownerReferences). One someone else made before the VPAPlus existed is not its history: it is not
// read, and it is deleted and made again, owned, when the history is first written.
TEST_F(VerticalTest, AForeignCheckpointIsNotReadAndIsReplacedByItsOwn) {
    apply_manifest(sim, workload("kept", 2, "400m"));
    ASSERT_TRUE(eventually([&] { return running("kept", 2); }));
    const auto planted = sim.request(
        "POST", checkpoints.substr(0, checkpoints.size() - 1),
        R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1","kind":"VPAPlusCheckpoint",)"
        R"("metadata":{"name":"kept-app"},"spec":{"vpaObjectName":"kept","containerName":"app"}})");
    ASSERT_EQ(planted.status, 201) << planted.body;
    const std::string planted_uid = str(get_json(sim, checkpoints + "kept-app"), "/metadata/uid");
    apply_manifest(sim, vpaplus("kept", "\"Off\""));
    const std::string owner = str(get_json(sim, vpapluses + "kept"), "/metadata/uid");
    controller_runner controller(sim, vertical_options());
    EXPECT_TRUE(eventually([&] {
        const auto doc = get_json(sim, checkpoints + "kept-app");
        return doc.IsObject() && str(doc, "/metadata/ownerReferences/0/uid") == owner &&
               str(doc, "/metadata/uid") != planted_uid;
    })) << sim.get(checkpoints + "kept-app").body;
}

TEST_F(VerticalTest, AnUnreachableHistoryBackendIsAConditionAndTheMetricsApiCarriesOn) {
    apply_manifest(sim, workload("seed", 2, "1200m"));
    ASSERT_TRUE(eventually([&] { return running("seed", 2); }));
    const auto dir =
        std::filesystem::temp_directory_path() / ("hpaplus-history-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "backends.yaml") << "backends:\n"
                                            "  - name: prom\n"
                                            "    type: prometheus\n"
                                            "    url: http://127.0.0.1:1\n" // nothing listens
                                            "    timeoutSeconds: 1\n";
    auto o = vertical_options();
    o.metric_backends = (dir / "backends.yaml").string();
    o.vertical.history_backend = "prom";
    controller_runner controller(sim, o);
    apply_manifest(sim, vpaplus("seed", "\"Off\""));
    EXPECT_TRUE(eventually([&] {
        return vcondition("seed", "HistoryLoaded") == "False PrometheusUnavailable" &&
               vcondition("seed", "RecommendationProvided") == "True RecommendationProvided";
    })) << vstatus("seed", "/status");
    EXPECT_NE(vmessage("seed", "HistoryLoaded").find("backend prom"), std::string::npos)
        << vstatus("seed", "/status");
    std::filesystem::remove_all(dir);
}

TEST_F(VerticalTest, AnUnusableSpecOrTargetIsAConditionAndAnEvent) {
    controller_runner controller(sim, vertical_options());
    apply_manifest(sim, vpaplus("bad", "InPlace",
                                "  resourcePolicy:\n    containerPolicies:\n    - {containerName: "
                                "\"*\", minAllowed: {cpu: \"2\"}, maxAllowed: {cpu: \"1\"}}\n"));
    apply_manifest(sim, vpaplus("orphan", "InPlace"));
    ASSERT_TRUE(eventually([&] {
        return vcondition("bad", "ConfigUnsupported") == "True InvalidSpec" &&
               vcondition("orphan", "ConfigUnsupported") == "True TargetUnreadable";
    })) << vstatus("bad", "/status")
        << vstatus("orphan", "/status");
    EXPECT_NE(vstatus("bad", "/status/conditions/0/message").find("maxAllowed"), std::string::npos);
    EXPECT_TRUE(eventually([&] { return has_event("bad", "InvalidSpec"); }));
    EXPECT_TRUE(controller.acting());
}

// What the controller fed into its histories, recorded with --vertical-record-samples, gives
// `hpaplus recommend` exactly the recommendation the controller wrote into the status.
TEST_F(VerticalTest, RecommendOfflineOnWhatTheControllerRecordedGivesItsStatus) {
    apply_manifest(sim, workload("rec", 2, "900m", "200Mi"));
    ASSERT_TRUE(eventually([&] { return running("rec", 2); }));
    const temp_dir dir;
    const std::string record = dir.path() + "/samples.jsonl";
    auto options = vertical_options();
    options.vertical.record_samples = record;
    controller_runner controller(sim, options);
    apply_manifest(sim, vpaplus("rec", "\"Off\""));
    const auto passes = [&] {
        std::ifstream in(record);
        int n = 0;
        for (std::string line; std::getline(in, line);)
            n += line.find("\"recommended\"") != std::string::npos ? 1 : 0;
        return n;
    };
    ASSERT_TRUE(eventually([&] { return passes() >= 6; })) << passes();
    ASSERT_EQ(controller.shutdown(), 0);

    // The input: the VPAPlus, and everything recorded up to its last written recommendation.
    const auto vpa = get_json(sim, vpapluses + "rec");
    rapidjson::Document input(rapidjson::kObjectType);
    auto& a = input.GetAllocator();
    rapidjson::Value samples(rapidjson::kArrayType), ooms(rapidjson::kArrayType);
    std::size_t samples_done = 0, ooms_done = 0; // what the last recommendation had seen
    std::string now;
    std::ifstream in(record);
    for (std::string line; std::getline(in, line);) {
        rapidjson::Document d;
        d.Parse(line.c_str());
        ASSERT_FALSE(d.HasParseError()) << line;
        ASSERT_EQ(std::string(d["vpa"].GetString()), "default/rec");
        if (d.HasMember("recommended")) {
            now = d["recommended"].GetString();
            samples_done = samples.Size();
            ooms_done = ooms.Size();
        } else if (d.HasMember("sample")) {
            samples.PushBack(rapidjson::Value(d["sample"], a), a);
        } else {
            ooms.PushBack(rapidjson::Value(d["oom"], a), a);
        }
    }
    while (samples.Size() > samples_done)
        samples.PopBack();
    while (ooms.Size() > ooms_done)
        ooms.PopBack();
    input.AddMember("now", rapidjson::Value(now.c_str(), a), a);
    input.AddMember("vpa", rapidjson::Value(vpa, a), a);
    input.AddMember("samples", samples, a);
    input.AddMember("ooms", ooms, a);
    EXPECT_GE(input["samples"].Size(), 6u);
    rapidjson::StringBuffer text;
    rapidjson::Writer<rapidjson::StringBuffer> writer(text);
    input.Accept(writer);
    std::ofstream(dir.path() + "/input.json") << text.GetString();

    const auto result =
        run_command(std::string(HPAPLUS_BINARY) + " recommend " + dir.path() + "/input.json");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    rapidjson::Document offline;
    offline.Parse(result.output.c_str());
    ASSERT_FALSE(offline.HasParseError()) << result.output;
    const auto& status = vpa["status"];
    EXPECT_TRUE(offline["recommendation"] == status["recommendation"])
        << result.output << "\nstatus: " << vstatus("rec", "/status");
    EXPECT_FALSE(offline["recommendation"]["containerRecommendations"].Empty());
    // The same conditions (the controller's keep the transition times of earlier passes).
    for (const auto& c : offline["conditions"].GetArray()) {
        const std::string type = c["type"].GetString();
        EXPECT_EQ(vcondition("rec", type),
                  std::string(c["status"].GetString()) + " " + c["reason"].GetString())
            << type;
        EXPECT_EQ(vmessage("rec", type), c["message"].GetString()) << type;
    }
}

// Start-up boost (AEP-7862) beside an HPAPlus on CPU: "boot" uses 100m in all, 50m a pod — 50 % of
// its 100m request, the HPAPlus's target. A pod boosted to 300m would be at 17 %.
const std::string boost_hpaplus_extra =
    "  syncPeriodSeconds: 1\n  behavior: {scaleDown: {stabilizationWindowSeconds: 0}}\n";

} // namespace
} // namespace hpaplus::test
