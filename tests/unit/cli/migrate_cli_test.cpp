// `hpaplus migrate` as a user runs it: files and stdin, Lists, skipped objects, and the round trip
// — the migrated HPAPlus decides exactly what its HPA decides.
#include "../../support/build_paths.hpp"
#include "../../support/process.hpp"
#include "cli/evaluate_command.hpp"
#include "cli/migrate_command.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace hpaplus::cli {
namespace {

namespace fs = std::filesystem;

const char* const two_hpas_and_a_deployment = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {}
---
apiVersion: v1
kind: List
items:
- apiVersion: autoscaling/v2
  kind: HorizontalPodAutoscaler
  metadata: {name: web, namespace: default, annotations: {autoscaling.hpaplus.io/mode: Never}}
  spec:
    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    maxReplicas: 5
- apiVersion: autoscaling/v1
  kind: HorizontalPodAutoscaler
  metadata: {name: api, namespace: default}
  spec:
    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
    maxReplicas: 3
    targetCPUUtilizationPercentage: 70
)";

TEST(Migrate, WritesAListAndSaysWhatItSkipped) {
    const fs::path file =
        fs::temp_directory_path() / ("hpaplus-migrate-" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(file) << two_hpas_and_a_deployment;
    // stderr alone, then stdout alone.
    const auto r = test::run_command("sh -c '" + std::string(HPAPLUS_BINARY) + " migrate " +
                                     file.string() + " 2>&1 >/dev/null'");
    const auto out = test::run_command("sh -c '" + std::string(HPAPLUS_BINARY) + " migrate - < " +
                                       file.string() + " 2>/dev/null'");
    fs::remove(file);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.output,
              "hpaplus migrate: web: skipped: a Deployment, not a HorizontalPodAutoscaler\n"
              "hpaplus migrate: default/web: annotation autoscaling.hpaplus.io/mode: "
              "want Auto, DryRun or Off, got \"Never\"; ignored\n");
    ASSERT_EQ(out.exit_code, 0) << out.output;
    rapidjson::Document doc;
    doc.Parse(out.output.c_str());
    ASSERT_TRUE(doc.IsObject()) << out.output;
    EXPECT_STREQ(doc["kind"].GetString(), "List");
    ASSERT_EQ(doc["items"].Size(), 2u);
    EXPECT_STREQ(doc["items"][1]["kind"].GetString(), "HPAPlus");
    EXPECT_EQ(
        doc["items"][1]["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"].GetInt(),
        70);
}

TEST(Migrate, NothingToMigrateIsBadInput) {
    const auto r = test::run_command("echo 'kind: ConfigMap' | " + std::string(HPAPLUS_BINARY) +
                                     " migrate 2>&1");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("hpaplus migrate: no HorizontalPodAutoscaler in the input"),
              std::string::npos)
        << r.output;
}

// The round trip: an evaluate snapshot decided with the HPA and with its migrated HPAPlus.
TEST(Migrate, TheHpaPlusDecidesWhatTheHpaDecides) {
    const fs::path golden = fs::path(HPAPLUS_SOURCE_DIR) / "tests/golden/evaluate";
    for (const char* name : {"cpu-scale-up", "behavior-rate-limited", "container-resource"}) {
        std::ifstream in(golden / (std::string(name) + ".input.json"));
        const std::string input((std::istreambuf_iterator<char>(in)), {});
        rapidjson::Document snapshot;
        snapshot.Parse(input.c_str());
        ASSERT_TRUE(snapshot.IsObject()) << name;
        ASSERT_STREQ(snapshot["hpa"]["kind"].GetString(), "HorizontalPodAutoscaler") << name;
        // An HPAPlus runs with kube-controller-manager's HPAScaleToZero gate on: the HPA it came
        // from decides the same under that gate (without it, only ScaledToZero is missing).
        auto& a = snapshot.GetAllocator();
        if (!snapshot.HasMember("config"))
            snapshot.AddMember("config", rapidjson::Value(rapidjson::kObjectType), a);
        rapidjson::Value gates(rapidjson::kObjectType);
        gates.AddMember("HPAScaleToZero", true, a);
        snapshot["config"].RemoveMember("featureGates");
        snapshot["config"].AddMember("featureGates", gates, a);
        rapidjson::StringBuffer gated_text;
        rapidjson::Writer<rapidjson::StringBuffer> gated_writer(gated_text);
        snapshot.Accept(gated_writer);
        const std::string gated = gated_text.GetString();

        rapidjson::StringBuffer hpa_text;
        rapidjson::Writer<rapidjson::StringBuffer> writer(hpa_text);
        snapshot["hpa"].Accept(writer);
        const migrate_result migrated = migrate_documents(hpa_text.GetString());
        ASSERT_EQ(migrated.exit_code, 0) << migrated.error;
        rapidjson::Document hpaplus;
        hpaplus.Parse(migrated.output.c_str());
        snapshot["hpa"].CopyFrom(hpaplus, snapshot.GetAllocator());
        rapidjson::StringBuffer migrated_snapshot;
        rapidjson::Writer<rapidjson::StringBuffer> w2(migrated_snapshot);
        snapshot.Accept(w2);

        const auto now = core::wall_now();
        const evaluate_result with_hpa = evaluate_document(gated, now);
        const evaluate_result with_hpaplus = evaluate_document(migrated_snapshot.GetString(), now);
        ASSERT_EQ(with_hpa.exit_code, 0) << name << ": " << with_hpa.error;
        EXPECT_EQ(with_hpaplus.exit_code, 0) << name << ": " << with_hpaplus.error;
        EXPECT_EQ(with_hpaplus.output, with_hpa.output) << name;
    }
}

} // namespace
} // namespace hpaplus::cli
