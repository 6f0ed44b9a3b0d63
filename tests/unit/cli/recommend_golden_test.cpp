// Golden tests for `hpaplus recommend`: every tests/golden/recommend/NAME.input.json must produce
// NAME.expected.json (compared as JSON values). tests/golden/recommend/README.md says what each
// case shows and how its numbers were checked; HPAPLUS_UPDATE_GOLDEN=1 rewrites the expectations
// after a deliberate change.
#include "../../support/build_paths.hpp"
#include "../../support/golden_files.hpp"
#include "cli/recommend_command.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hpaplus::cli {
namespace {

namespace fs = std::filesystem;

const fs::path recommend_dir = fs::path(HPAPLUS_SOURCE_DIR) / "tests/golden/recommend";

using test::golden_cases;
using test::read_file;

class RecommendGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(RecommendGolden, MatchesExpected) {
    const fs::path expected = recommend_dir / (GetParam() + ".expected.json");
    const recommend_result result =
        recommend_document(read_file(recommend_dir / (GetParam() + ".input.json")));
    ASSERT_EQ(result.exit_code, 0) << result.error;
    test::expect_golden(expected, result.output);
}

INSTANTIATE_TEST_SUITE_P(Cases, RecommendGolden, ::testing::ValuesIn(golden_cases(recommend_dir)),
                         [](const auto& info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

TEST(Recommend, TheExamplesRecommend) {
    std::size_t files = 0;
    for (const auto& entry :
         fs::directory_iterator(fs::path(HPAPLUS_SOURCE_DIR) / "examples/recommend")) {
        ++files;
        const auto result = recommend_document(read_file(entry.path()));
        ASSERT_EQ(result.exit_code, 0) << entry.path() << ": " << result.error;
        rapidjson::Document out;
        out.Parse(result.output.c_str());
        EXPECT_FALSE(out["recommendation"]["containerRecommendations"].Empty()) << entry.path();
        EXPECT_TRUE(out["conditions"].IsArray());
        EXPECT_TRUE(out["history"].IsArray());
    }
    EXPECT_GT(files, 0u);
}

TEST(Recommend, AChangedCpuRequestChangesNothingAsUpstream) {
    // The same history without cpuRequest gives the same answer: requests are not weights.
    std::string input = read_file(recommend_dir / "request-changed.input.json");
    const std::string with = recommend_document(input).output;
    for (const char* field : {",\"cpuRequest\":\"100m\"", ",\"cpuRequest\":\"800m\""})
        for (auto at = input.find(field); at != std::string::npos; at = input.find(field))
            input.erase(at, std::string_view(field).size());
    ASSERT_EQ(input.find("cpuRequest"), std::string::npos);
    EXPECT_EQ(recommend_document(input).output, with);
}

TEST(Recommend, SamplesInAnyOrderAreFedInTimeOrder) {
    std::string input = read_file(recommend_dir / "spike.input.json");
    const std::string in_order = recommend_document(input).output;
    // Reverse the sample lines.
    const auto open = input.find("\"samples\": [\n") + 14, close = input.rfind("\n  ]");
    std::vector<std::string> lines;
    std::istringstream body(input.substr(open, close - open));
    for (std::string line; std::getline(body, line);)
        lines.push_back(line.back() == ',' ? line.substr(0, line.size() - 1) : line);
    std::reverse(lines.begin(), lines.end());
    std::string reversed;
    for (const auto& l : lines)
        reversed += (reversed.empty() ? "" : ",\n") + l;
    input.replace(open, close - open, reversed);
    EXPECT_EQ(recommend_document(input).output, in_order);
}

TEST(Recommend, BadInputNamesTheField) {
    const std::string vpa = R"("vpa": {"apiVersion": "autoscaling.hpaplus.io/v1alpha1",
        "kind": "VPAPlus", "metadata": {"name": "w"}, "spec": {"targetRef":
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "w"}}})";
    const struct {
        std::string input, error;
    } rows[] = {
        {"{", "bad JSON"},
        {"[1]", "expected an object"},
        {R"({"now": "2026-01-01T00:00:00Z"})", "vpa: required field is missing"},
        {R"({"now": "yesterday", )" + vpa + "}", "now: invalid RFC 3339 time"},
        {R"({"now": "3000-01-01T00:00:00Z", )" + vpa + "}", "now: invalid RFC 3339 time"},
        {R"({"now": "2200-01-01T00:00:00Z", )" + vpa + "}", "now: out of range (1970 to 2200)"},
        {R"({"now": "2026-01-01T00:00:00Z", )" + vpa +
             R"(, "samples": [{"time": "1712-01-01T00:00:00Z", "container": "a"}]})",
         "samples[0].time: out of range"},
        {R"({"now": "2026-01-01T00:00:00Z", )" + vpa +
             R"(, "samples": [{"time": "2026-01-01T00:00:00Z", "container": "a", "cpu": "lots"}]})",
         "samples[0].cpu"},
        {R"({"now": "2026-01-01T00:00:00Z", )" + vpa + R"(, "samples": [{"container": "a"}]})",
         "samples[0].time: required field is missing"},
        {R"({"now": "2026-01-01T00:00:00Z", )" + vpa +
             R"(, "ooms": [{"time": "2026-01-01T00:00:00Z", "container": "a"}]})",
         "ooms[0].memory: required field is missing"},
        {R"({"now": "2026-01-01T00:00:00Z", "extra": 1, )" + vpa + "}", "extra"},
        {"now: 2026-01-01T00:00:00Z\nvpa: [\n", "bad YAML"},
        // A field name with a newline (found by fuzzing): still one line.
        {"{\"now\": \"2026-01-01T00:00:00Z\", \"a\\nb\": 1, " + vpa + "}", "a\\x0ab"},
        {std::string(100000, '[') + std::string(100000, ']'), "bad JSON"},
    };
    for (const auto& r : rows) {
        const auto result = recommend_document(r.input);
        EXPECT_EQ(result.exit_code, 2) << r.input.substr(0, 80);
        EXPECT_NE(result.error.find(r.error), std::string::npos)
            << "got: " << result.error << "\nwant: " << r.error;
        EXPECT_EQ(result.error.find('\n'), std::string::npos) << "one line";
    }
}

} // namespace
} // namespace hpaplus::cli
