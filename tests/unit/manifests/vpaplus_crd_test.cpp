// crds/vpaplus.yaml: every example valid, defaulted and accepted by the controller's codec; bad
// modes refused by the schema.
#include "../../support/build_paths.hpp"
#include "../../support/manifest_files.hpp"
#include "kinds/vpaplus.hpp"
#include "sim/apiserver/schema.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace hpaplus::kube {
namespace {

using test::json_of;

namespace fs = std::filesystem;

TEST(VpaplusCrd, EveryExampleIsValidDefaultedAndAccepted) {
    auto crd = json_of(test::read_file(fs::path(HPAPLUS_SOURCE_DIR) / "crds/vpaplus.yaml"));
    EXPECT_STREQ(crd["spec"]["names"]["shortNames"][0].GetString(), "vpap");
    const auto& schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    auto examples = test::examples_of(HPAPLUS_SOURCE_DIR, "VPAPlus");
    for (auto& [file, object] : examples) {
        const auto errors = sim::apply_schema(schema, object, object.GetAllocator());
        EXPECT_TRUE(errors.empty()) << file << ": " << errors.front().second;
        kube::json_decoder d;
        const auto v = kinds::decode_vpaplus(d, {&object, ""});
        EXPECT_TRUE(d.ok()) << file << ": " << d.error().to_string();
        EXPECT_FALSE(v.target.name.empty());
    }
    EXPECT_GE(examples.size(), 3u);
}

TEST(VpaplusCrd, DefaultsTheModeAndRefusesUnknownModes) {
    auto crd = json_of(test::read_file(fs::path(HPAPLUS_SOURCE_DIR) / "crds/vpaplus.yaml"));
    const auto& schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    auto ok = json_of("kind: VPAPlus\nmetadata: {name: x}\nspec: {targetRef: {kind: Deployment, "
                      "name: w}, updatePolicy: {}}");
    EXPECT_TRUE(sim::apply_schema(schema, ok, ok.GetAllocator()).empty());
    EXPECT_STREQ(ok["spec"]["updatePolicy"]["updateMode"].GetString(), "InPlaceOrRecreate");
    auto bad = json_of("kind: VPAPlus\nmetadata: {name: x}\nspec: {targetRef: {kind: Deployment, "
                       "name: w}, updatePolicy: {updateMode: Sometimes}}");
    EXPECT_FALSE(sim::apply_schema(schema, bad, bad.GetAllocator()).empty());
}

} // namespace
} // namespace hpaplus::kube
