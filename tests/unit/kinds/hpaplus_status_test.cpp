// The status helpers a reconcile uses to decide whether to write (kube/status_writer.hpp) and the
// summaries of an HPAPlus status (kinds/hpaplus_status.hpp): tables of inputs and outputs.
#include "kinds/hpaplus_status.hpp"
#include "kube/encode.hpp"
#include "kube/status_writer.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <functional>

namespace hpaplus::kinds {
namespace {

TEST(StatusDiffers, ComparesTheFieldsWeWriteInAnyOrder) {
    auto parsed = [](const char* text) {
        rapidjson::Document d;
        d.Parse(text);
        return d;
    };
    // What the records keep: the stored status alone (kinds/records.hpp).
    const auto stored = parsed(R"({"desiredReplicas":3,"currentReplicas":2,"extra":1})");
    EXPECT_FALSE(kube::status_differs(&stored, R"({"currentReplicas":2,"desiredReplicas":3})"));
    EXPECT_FALSE(kube::status_differs(&stored, R"({"desiredReplicas":3,"gone":null})"));
    EXPECT_TRUE(kube::status_differs(&stored, R"({"currentReplicas":2,"desiredReplicas":4})"));
    EXPECT_TRUE(kube::status_differs(&stored, R"({"currentReplicas":2,"lastDecision":"x"})"));
    EXPECT_TRUE(kube::status_differs(nullptr, R"({"currentReplicas":2})"));
    const auto not_object = parsed("[1]");
    EXPECT_TRUE(kube::status_differs(&not_object, R"({"currentReplicas":2})"));
    EXPECT_TRUE(kube::status_differs(&stored, "not json"));
}

TEST(StatusSummaries, TargetsReadLikeKubectlAndDecisionsNameTheirStages) {
    policy::autoscaler_spec spec;
    policy::metric_spec cpu;
    cpu.resource_name = "cpu";
    cpu.target.average_utilization = 60;
    policy::metric_spec qps;
    qps.type = policy::metric_source_type::pods;
    qps.metric.name = "qps";
    qps.target.type = policy::metric_target_type::average_value;
    qps.target.average_value = core::quantity::parse("100").value();
    spec.metrics = {cpu, qps};
    policy::decision d;
    d.metrics.resize(2);
    d.metrics[0].status.emplace();
    d.metrics[0].status->current.average_utilization = 45;
    EXPECT_EQ(targets_summary(spec, d), "cpu: 45%/60%, qps: <unknown>/100");

    d.current_replicas = 3;
    d.rescale = true;
    d.target_replicas = 5;
    d.stages.recommended = 6;
    d.stages.stabilized = 6;
    d.stages.limited = 5;
    d.stages.limit_reason = "ScaleUpLimit";
    EXPECT_EQ(decision_summary(d), "3 -> 5: recommended 6, stabilized 6, limited 5 (ScaleUpLimit)");
    // unreadyPods Count
    d.stages.counted_unready = {"web-1", "web-2"};
    d.metrics.emplace_back().replicas_stood_in = true;
    EXPECT_EQ(decision_summary(d), "3 -> 5: recommended 6, stabilized 6, limited 5 (ScaleUpLimit); "
                                   "2 unready counted; replicas stood in for ready pods");
}

TEST(StatusPrediction, ShowsTheForecastOfThisPassAndRemovesItWhenThereIsNone) {
    policy::autoscaler hpa;
    hpa.spec.prediction.emplace();
    hpa.spec.prediction->metric = "cpu";
    policy::decision d;
    d.stages.prediction = {528,
                           11,
                           true,
                           true,
                           std::chrono::seconds(30),
                           core::time_point{} + std::chrono::seconds(1800000000)};
    rapidjson::Document doc;
    doc.Parse(encode_status(hpa, d).c_str());
    const auto& p = doc["prediction"];
    ASSERT_TRUE(p.IsObject());
    EXPECT_EQ(std::string(p["metric"].GetString()), "cpu");
    EXPECT_EQ(p["value"].GetDouble(), 528);
    EXPECT_EQ(p["replicas"].GetInt(), 11);
    EXPECT_TRUE(p["voting"].GetBool());
    EXPECT_EQ(std::string(p["period"].GetString()), "30s");
    EXPECT_EQ(std::string(p["nextPeak"].GetString()), "2027-01-15T08:00:00Z");
    d.stages.prediction.reset(); // no forecast this pass: null removes it (merge patch)
    doc.Parse(encode_status(hpa, d).c_str());
    EXPECT_TRUE(doc["prediction"].IsNull());
    EXPECT_FALSE(doc.Parse(encode_status(hpa, d, status_form::hpa).c_str()).HasMember("prediction"))
        << "a plain HPA's status has only upstream's fields";
}

TEST(JsonDigest, FollowsTheTextAValueWouldWrite) {
    auto digest = [](const char* text) {
        rapidjson::Document d;
        d.Parse(text);
        return kube::json_digest(d);
    };
    EXPECT_EQ(digest(R"({"a":[1,"x",null,true,2.5]})"),
              digest(R"({ "a" : [1, "x", null, true, 2.5] })"));
    EXPECT_NE(digest(R"({"a":"bc"})"),
              digest(R"({"ab":"c"})")); // bytes cannot move between strings
    EXPECT_NE(digest(R"({"a":1})"), digest(R"({"a":"1"})"));
    EXPECT_NE(digest(R"({"a":1})"), digest(R"({"a":1.0})"));
    EXPECT_NE(digest(R"({"a":1,"b":2})"), digest(R"({"b":2,"a":1})")); // the text's order counts
    EXPECT_NE(digest(R"([[],{}])"), digest(R"([{},[]])"));
    EXPECT_NE(digest(R"({"a":[]})"), digest(R"({"a":[null]})"));
}

// The reconcile writes a status only when its digest differs from the one last found stored, so
// the digest has to change exactly when the text does, in both forms.
TEST(StatusDigest, ChangesWithTheTextAndOnlyWithIt) {
    policy::autoscaler hpa;
    hpa.generation = 3;
    hpa.spec.scale_target_ref = {"Deployment", "web", "apps/v1"};
    policy::metric_spec cpu;
    cpu.resource_name = "cpu";
    cpu.target.average_utilization = 60;
    hpa.spec.metrics = {cpu};
    policy::decision d;
    d.status.current_replicas = 3;
    d.status.desired_replicas = 3;
    d.current_replicas = 3;
    d.metrics.resize(1);
    d.metrics[0].status.emplace();
    d.metrics[0].status->current.average_utilization = 45;
    d.metrics[0].proposal = 3;
    d.status.conditions.push_back({"AbleToScale", core::condition_status::true_, "ReadyForNewScale",
                                   "recommended size matches current size",
                                   core::time_point{} + std::chrono::seconds(1800000000)});
    struct variant {
        const char* what;
        std::function<void(policy::decision&)> change;
    };
    const std::vector<variant> variants = {
        {"a condition's message", [](auto& x) { x.status.conditions[0].message = "other"; }},
        {"a condition's time",
         [](auto& x) { *x.status.conditions[0].last_transition_time += std::chrono::seconds(1); }},
        {"desiredReplicas", [](auto& x) { x.status.desired_replicas = 4; }},
        {"a metric's current value",
         [](auto& x) { x.metrics[0].status->current.average_utilization = 46; }},
        {"a metric's proposal (HPAPlus only)", [](auto& x) { x.metrics[0].proposal = 4; }},
        {"the decision's stages (HPAPlus only)", [](auto& x) { x.stages.recommended = 4; }},
        {"a cron floor (HPAPlus only)",
         [](auto& x) {
             x.floor = policy::cron_floor{5, "nightly", "peak", core::time_point{}};
         }},
    };
    for (const auto form : {status_form::hpaplus, status_form::hpa}) {
        const auto text = encode_status(hpa, d, form);
        const auto digest = status_digest(hpa, d, form);
        EXPECT_EQ(status_digest(hpa, d, form), digest) << "the same decision, the same digest";
        for (const auto& v : variants) {
            auto changed = d;
            v.change(changed);
            const bool text_changed = encode_status(hpa, changed, form) != text;
            EXPECT_EQ(status_digest(hpa, changed, form) != digest, text_changed)
                << v.what << (form == status_form::hpa ? " (HPA form)" : " (HPAPlus form)");
            if (form == status_form::hpaplus) {
                EXPECT_TRUE(text_changed) << v.what;
            }
        }
    }
    // A status far larger than the pool's buffer is built and digested the same way.
    auto many = d;
    many.status.conditions.assign(500, d.status.conditions[0]);
    EXPECT_NE(status_digest(hpa, many), status_digest(hpa, d));
    EXPECT_EQ(status_digest(hpa, many), status_digest(hpa, many));
    EXPECT_GT(encode_status(hpa, many).size(), 16u * 1024);
}

} // namespace
} // namespace hpaplus::kinds
