// tests/support/golden_files.hpp — the cases of a golden folder (NAME.input.json beside
// NAME.expected.json) and whole-file reads, for the golden tests of evaluate and recommend.
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace hpaplus::test {

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// The NAMEs of `dir`'s NAME.input.json files, sorted.
inline std::vector<std::string> golden_cases(const std::filesystem::path& dir) {
    const std::string suffix = ".input.json";
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string file = entry.path().filename().string();
        if (file.size() > suffix.size() && file.ends_with(suffix))
            names.push_back(file.substr(0, file.size() - suffix.size()));
    }
    std::sort(names.begin(), names.end());
    return names;
}

/// `output` equals the JSON value in `expected` (or, with HPAPLUS_UPDATE_GOLDEN set, is written
/// there after a deliberate change).
inline void expect_golden(const std::filesystem::path& expected, const std::string& output) {
    if (std::getenv("HPAPLUS_UPDATE_GOLDEN")) {
        std::ofstream(expected, std::ios::binary) << output;
        return;
    }
    ASSERT_TRUE(std::filesystem::exists(expected))
        << "missing " << expected << " (record it with HPAPLUS_UPDATE_GOLDEN=1)";
    rapidjson::Document got, want;
    got.Parse(output.c_str());
    want.Parse(read_file(expected).c_str());
    ASSERT_FALSE(want.HasParseError()) << expected;
    EXPECT_TRUE(got == want) << "differs from " << expected << "\n--- got:\n" << output;
}

} // namespace hpaplus::test
