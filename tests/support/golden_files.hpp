// tests/support/golden_files.hpp — the cases of a golden folder (NAME.input.json beside
// NAME.expected.json) and whole-file reads, for the golden tests of evaluate and recommend.
#pragma once

#include <algorithm>
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

} // namespace hpaplus::test
