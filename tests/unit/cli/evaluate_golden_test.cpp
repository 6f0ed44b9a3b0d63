// Golden tests for `hpaplus evaluate`: every tests/golden/evaluate/NAME.input.json must produce
// NAME.expected.json (compared as JSON values). The expectations were checked by hand against the
// upstream rules when they were recorded; HPAPLUS_UPDATE_GOLDEN=1 rewrites them after a deliberate
// change.
#include "../../support/build_paths.hpp"
#include "../../support/golden_files.hpp"
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

const fs::path evaluate_dir = fs::path(HPAPLUS_SOURCE_DIR) / "tests/golden/evaluate";

using test::golden_cases;
using test::read_file;

class EvaluateGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(EvaluateGolden, MatchesExpected) {
    const fs::path input = evaluate_dir / (GetParam() + ".input.json");
    const fs::path expected = evaluate_dir / (GetParam() + ".expected.json");
    const auto fallback_now = core::parse_rfc3339("2026-01-01T00:10:00Z").value();
    const evaluate_result result = evaluate_document(read_file(input), fallback_now);
    ASSERT_EQ(result.exit_code, 0) << result.error;

    test::expect_golden(expected, result.output);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Cases, EvaluateGolden, ::testing::ValuesIn(golden_cases(evaluate_dir)), [](const auto& info) {
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
