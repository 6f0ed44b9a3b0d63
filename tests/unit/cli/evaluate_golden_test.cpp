// Golden tests for `hpaplus evaluate`: every tests/golden/evaluate/NAME.input.json must produce
// NAME.expected.json (compared as JSON values). The expectations were checked by hand against the
// upstream rules when they were recorded; HPAPLUS_UPDATE_GOLDEN=1 rewrites them after a deliberate
// change.
#include "../../support/build_paths.hpp"
#include "cli/evaluate_command.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hpaplus::cli {
namespace {

namespace fs = std::filesystem;

const fs::path golden_dir = fs::path(HPAPLUS_SOURCE_DIR) / "tests/golden/evaluate";

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> case_names() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(golden_dir)) {
        const std::string file = entry.path().filename().string();
        const std::string suffix = ".input.json";
        if (file.size() > suffix.size() &&
            file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0)
            names.push_back(file.substr(0, file.size() - suffix.size()));
    }
    std::sort(names.begin(), names.end());
    return names;
}

class EvaluateGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(EvaluateGolden, MatchesExpected) {
    const fs::path input = golden_dir / (GetParam() + ".input.json");
    const fs::path expected = golden_dir / (GetParam() + ".expected.json");
    const auto fallback_now = core::parse_rfc3339("2026-01-01T00:10:00Z").value();
    const evaluate_result result = evaluate_document(read(input), fallback_now);
    ASSERT_EQ(result.exit_code, 0) << result.error;

    if (std::getenv("HPAPLUS_UPDATE_GOLDEN")) {
        std::ofstream(expected, std::ios::binary) << result.output;
        GTEST_SUCCEED() << "rewrote " << expected;
        return;
    }
    ASSERT_TRUE(fs::exists(expected))
        << "missing " << expected << " (record it with HPAPLUS_UPDATE_GOLDEN=1)";
    rapidjson::Document got, want;
    got.Parse(result.output.c_str());
    want.Parse(read(expected).c_str());
    ASSERT_FALSE(want.HasParseError()) << expected;
    EXPECT_TRUE(got == want) << "decision differs from " << expected << "\n--- got:\n"
                             << result.output;
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Cases, EvaluateGolden, ::testing::ValuesIn(case_names()), [](const auto& info) {
    std::string name;
    bool upper = true;
    for (char c : info.param) {
        if (c == '-') {
            upper = true;
            continue;
        }
        name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
    }
    return name;
});
// clang-format on

} // namespace
} // namespace hpaplus::cli
