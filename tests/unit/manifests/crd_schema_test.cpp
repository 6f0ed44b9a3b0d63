// crds/hpaplus.yaml as the API server applies it (sim/apiserver/schema.hpp): every example in
// crds/examples/ is valid, gets the CRD's defaults, and decodes into a spec the controller accepts;
// broken objects are refused with the server's wording; unknown fields are pruned.
#include "../../support/build_paths.hpp"
#include "../../support/manifest_files.hpp"
#include "cron/exclusions.hpp"
#include "kinds/cronhpa.hpp"
#include "kinds/decode.hpp"
#include "kube/yaml_json.hpp"
#include "policy/defaults.hpp"
#include "policy/validation.hpp"
#include "sim/apiserver/schema.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace hpaplus {
namespace {

using test::json_of;

namespace fs = std::filesystem;

// The examples in crds/examples/ of one kind, by file name.
std::vector<std::pair<std::string, rapidjson::Document>> examples_of(const std::string& kind) {
    return test::examples_of(HPAPLUS_SOURCE_DIR, kind);
}

class HpaplusCrd : public ::testing::Test {
  protected:
    HpaplusCrd() {
        crd = json_of(test::read_file(fs::path(HPAPLUS_SOURCE_DIR) / "crds/hpaplus.yaml"));
        schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    }
    sim::field_errors apply(rapidjson::Document& object) {
        return sim::apply_schema(*schema, object, object.GetAllocator());
    }
    rapidjson::Document crd;
    const rapidjson::Value* schema = nullptr;
};

TEST_F(HpaplusCrd, EveryExampleIsValidDefaultedAndAcceptedByTheController) {
    auto examples = examples_of("HPAPlus");
    for (auto& [name, object] : examples) {
        const auto errors = apply(object);
        EXPECT_TRUE(errors.empty())
            << name << ": " << errors.front().first << ": " << errors.front().second;
        EXPECT_TRUE(object["spec"].HasMember("mode")) << name << ": the default was not applied";
        kube::json_decoder d;
        auto hpa = kinds::decode_autoscaler(d, {&object, ""});
        ASSERT_TRUE(d.ok()) << name << ": " << d.error().to_string();
        policy::apply_defaults(hpa.spec);
        const auto invalid = policy::validate(hpa.spec);
        EXPECT_TRUE(invalid.empty())
            << name << ": " << invalid.front().field << ": " << invalid.front().message;
    }
    EXPECT_GE(examples.size(), 4U);
}

struct broken_case {
    const char* name;
    const char* spec_yaml; ///< the object's spec
    const char* field;
    const char* message;
};
void PrintTo(const broken_case& c, std::ostream* os) {
    *os << c.name;
}

class HpaplusCrdRejects : public HpaplusCrd, public ::testing::WithParamInterface<broken_case> {};

TEST_P(HpaplusCrdRejects, WithTheServersWording) {
    auto object = json_of(std::string("apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: HPAPlus\n"
                                      "metadata: {name: x}\nspec: ") +
                          GetParam().spec_yaml);
    const auto errors = apply(object);
    ASSERT_FALSE(errors.empty());
    EXPECT_EQ(errors.front().first, GetParam().field);
    EXPECT_EQ(errors.front().second, GetParam().message);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Table, HpaplusCrdRejects, ::testing::Values(
    broken_case{"NoMax", "{scaleTargetRef: {kind: Deployment, name: web}}", "spec.maxReplicas", "Required value"},
    broken_case{"NoTarget", "{maxReplicas: 3}", "spec.scaleTargetRef", "Required value"},
    broken_case{"ZeroMax", "{scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 0}", "spec.maxReplicas",
                "Invalid value: 0: spec.maxReplicas in body should be greater than or equal to 1"},
    broken_case{"StringMax", "{scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: ten}", "spec.maxReplicas",
                "Invalid value: \"string\": spec.maxReplicas in body must be of type integer: \"string\""},
    broken_case{"BadMode", "{scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3, mode: Fast}", "spec.mode",
                "Unsupported value: \"Fast\": supported values: \"Auto\", \"DryRun\", \"Off\""},
    broken_case{"EmptyName", "{scaleTargetRef: {kind: Deployment, name: ''}, maxReplicas: 3}", "spec.scaleTargetRef.name",
                "Invalid value: \"\": spec.scaleTargetRef.name in body should be at least 1 chars long"},
    broken_case{"ZeroPeriod", "{scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3, syncPeriodSeconds: 0}",
                "spec.syncPeriodSeconds", "Invalid value: 0: spec.syncPeriodSeconds in body should be greater than or equal to 1"},
    broken_case{"BadMetricType", "{scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3, metrics: [{type: Cpu}]}",
                "spec.metrics[0].type", "Unsupported value: \"Cpu\": supported values: \"Resource\", \"ContainerResource\", \"Pods\", \"Object\", \"External\", \"Formula\""},
    broken_case{"ObjectQuantity", "{scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3, metrics: [{type: Pods, pods: {metric: {name: qps}, target: {type: AverageValue, averageValue: {a: 1}}}}]}",
                "spec.metrics[0].pods.target.averageValue", "Invalid value: {\"a\":1}: spec.metrics[0].pods.target.averageValue in body must be of type integer,string: \"object\""},
    broken_case{"BadUnreadyPods", "{scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3, unreadyPods: Always}", "spec.unreadyPods",
                "Unsupported value: \"Always\": supported values: \"Ignore\", \"Count\""},
    broken_case{"LongMetricTolerance", "{scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3, metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}, tolerance: {scaleUp: '0.100000000000000000000000000000001'}}]}",
                "spec.metrics[0].tolerance.scaleUp", "Too long: may not be longer than 32"},
    broken_case{"ZeroSampleAge", "{scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3, metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}, maxSampleAgeSeconds: 0}]}",
                "spec.metrics[0].maxSampleAgeSeconds", "Invalid value: 0: spec.metrics[0].maxSampleAgeSeconds in body should be greater than or equal to 1"}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

// The per-metric fields survive pruning and reach the decision's types.
TEST_F(HpaplusCrd, KeepsAMetricsOwnBandAndSampleAgeAndUnreadyPods) {
    auto object = json_of("apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: HPAPlus\n"
                          "metadata: {name: x}\nspec: {scaleTargetRef: {kind: Deployment, name: "
                          "web}, maxReplicas: 3, unreadyPods: Count, metrics: [{type: External, "
                          "external: {metric: {name: q}, target: {type: Value, value: '10'}}, "
                          "tolerance: {scaleUp: '0.2'}, maxSampleAgeSeconds: 120}]}\n");
    ASSERT_TRUE(apply(object).empty());
    kube::json_decoder d;
    const auto hpa = kinds::decode_autoscaler(d, {&object, ""});
    ASSERT_TRUE(d.ok()) << d.error().to_string();
    EXPECT_EQ(hpa.spec.unready, policy::unready_pods::count);
    const auto& m = hpa.spec.metrics.at(0);
    ASSERT_TRUE(m.tolerance && m.tolerance->scale_up);
    EXPECT_EQ(m.tolerance->scale_up->to_string(), "200m");
    EXPECT_FALSE(m.tolerance->scale_down);
    EXPECT_EQ(m.max_sample_age, std::chrono::seconds(120));
}

TEST_F(HpaplusCrd, PrunesUnknownFieldsAndNullsAndKeepsMetadata) {
    auto object = json_of("apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: HPAPlus\n"
                          "metadata: {name: x, labels: {a: b}}\nextra: 1\n"
                          "spec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3, "
                          "minReplicas: null, typo: 2}\n");
    ASSERT_TRUE(apply(object).empty());
    EXPECT_FALSE(object.HasMember("extra"));
    EXPECT_FALSE(object["spec"].HasMember("typo"));
    EXPECT_FALSE(object["spec"].HasMember("minReplicas"));
    EXPECT_STREQ(object["metadata"]["labels"]["a"].GetString(), "b");
    EXPECT_STREQ(object["spec"]["rolloutPolicy"].GetString(), "Continue");
    EXPECT_STREQ(object["spec"]["unreadyPods"].GetString(), "Ignore");
    // Not defaulted by the schema: an HPAPlus without one runs on the controller's
    // --default-sync-period (a default of 15 here would have overridden the flag).
    EXPECT_FALSE(object["spec"].HasMember("syncPeriodSeconds"));
}

// crds/cronhpa.yaml: every CronHPA example is valid for the schema and for the controller (zone,
// schedules, excluded dates all readable).
TEST(CronHpaCrd, EveryExampleIsValidDefaultedAndUsable) {
    auto crd = json_of(test::read_file(fs::path(HPAPLUS_SOURCE_DIR) / "crds/cronhpa.yaml"));
    const rapidjson::Value& schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    EXPECT_STREQ(crd["spec"]["names"]["shortNames"][0].GetString(), "chpa");
    auto examples = examples_of("CronHPA");
    for (auto& [name, object] : examples) {
        const auto errors = sim::apply_schema(schema, object, object.GetAllocator());
        EXPECT_TRUE(errors.empty())
            << name << ": " << errors.front().first << ": " << errors.front().second;
        kube::json_decoder d;
        const auto c = kinds::decode_cronhpa(d, {&object, ""});
        ASSERT_TRUE(d.ok()) << name << ": " << d.error().to_string();
        EXPECT_NE(cron::find_zone(c.spec.time_zone), nullptr) << name;
        for (const auto& job : c.spec.jobs)
            EXPECT_TRUE(cron::parse_schedule(job.schedule)) << name << ": " << job.schedule;
        std::vector<cron::exclusion_error> bad;
        cron::parse_exclusions(c.spec.exclude_dates, bad);
        EXPECT_TRUE(bad.empty()) << name << ": " << bad.front().message;
        for (const auto& job : object["spec"]["jobs"].GetArray())
            EXPECT_TRUE(job.HasMember("runOnce")) << name << ": the default was not applied";
    }
    EXPECT_GE(examples.size(), 2U);
}

TEST(CronHpaCrd, ControllerRefusesWhatTheSchemaCannotSay) {
    for (const char* spec :
         {"{scaleTargetRef: {kind: Deployment, name: w}, jobs: []}",
          "{scaleTargetRef: {kind: Deployment, name: w}, jobs: [{name: a, schedule: '@daily', "
          "targetSize: 1}, {name: a, schedule: '@hourly', targetSize: 2}]}",
          "{scaleTargetRef: {kind: Deployment, name: w}, jobs: [{name: a, schedule: '@daily'}]}",
          "{jobs: [{name: a, schedule: '@daily', targetSize: 1}]}"}) {
        auto object = json_of(std::string("kind: CronHPA\nmetadata: {name: x}\nspec: ") + spec);
        kube::json_decoder d;
        kinds::decode_cronhpa(d, {&object, ""});
        EXPECT_FALSE(d.ok()) << spec;
    }
}

// HPAPlusCheckpoint, the second CRD of crds/hpaplus.yaml: a recorded history with gaps (null
// values, allowed by `nullable` items as the API server allows them) is valid; a word is not.
TEST(HpaplusCheckpointCrd, TakesNumbersAndNullsAsValues) {
    auto docs = kube::yaml_documents_to_json(
        test::read_file(fs::path(HPAPLUS_SOURCE_DIR) / "crds/hpaplus.yaml"));
    ASSERT_TRUE(docs && docs->size() == 2u);
    rapidjson::Document crd;
    crd.Parse((*docs)[1].c_str());
    ASSERT_STREQ(crd["spec"]["names"]["kind"].GetString(), "HPAPlusCheckpoint");
    const auto& schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    auto object = [](const char* values) {
        rapidjson::Document d;
        d.Parse((std::string(R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1",)"
                             R"("kind":"HPAPlusCheckpoint","metadata":{"name":"web"},)"
                             R"("spec":{"hpaPlusName":"web"},"status":{"metric":"cpu",)"
                             R"("step":"1m","start":"2026-11-02T00:00:00Z","values":)") +
                 values + "}}")
                    .c_str());
        return d;
    };
    auto good = object("[80, null, 81.5]");
    EXPECT_TRUE(sim::apply_schema(schema, good, good.GetAllocator()).empty());
    EXPECT_TRUE(good["status"]["values"][1].IsNull()) << "kept, not pruned";
    auto bad = object(R"([80, "lots"])");
    const auto errors = sim::apply_schema(schema, bad, bad.GetAllocator());
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].second.find("must be of type number"), std::string::npos)
        << errors[0].second;
}

} // namespace
} // namespace hpaplus
