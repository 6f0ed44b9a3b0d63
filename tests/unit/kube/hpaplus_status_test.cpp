// The status helpers a reconcile uses to decide whether to write (kube/status_writer.hpp) and the
// summaries of an HPAPlus status (kinds/hpaplus_status.hpp): tables of inputs and outputs.
#include "kinds/hpaplus_status.hpp"
#include "kube/status_writer.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace hpaplus::kube {
namespace {

TEST(StatusDiffers, ComparesTheFieldsWeWriteInAnyOrder) {
    auto parsed = [](const char* text) {
        rapidjson::Document d;
        d.Parse(text);
        return d;
    };
    // What the records keep: the stored status alone (kinds/records.hpp).
    const auto stored = parsed(R"({"desiredReplicas":3,"currentReplicas":2,"extra":1})");
    EXPECT_FALSE(status_differs(&stored, R"({"currentReplicas":2,"desiredReplicas":3})"));
    EXPECT_FALSE(status_differs(&stored, R"({"desiredReplicas":3,"gone":null})"));
    EXPECT_TRUE(status_differs(&stored, R"({"currentReplicas":2,"desiredReplicas":4})"));
    EXPECT_TRUE(status_differs(&stored, R"({"currentReplicas":2,"lastDecision":"x"})"));
    EXPECT_TRUE(status_differs(nullptr, R"({"currentReplicas":2})"));
    const auto not_object = parsed("[1]");
    EXPECT_TRUE(status_differs(&not_object, R"({"currentReplicas":2})"));
    EXPECT_TRUE(status_differs(&stored, "not json"));
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
}

TEST(StatusPrediction, ShowsTheForecastOfThisPassAndRemovesItWhenThereIsNone) {
    policy::autoscaler hpa;
    hpa.spec.prediction.emplace();
    hpa.spec.prediction->metric = "cpu";
    policy::decision d;
    d.stages.prediction = {528, 11, true, true, std::chrono::seconds(30),
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

} // namespace
} // namespace hpaplus::kube
