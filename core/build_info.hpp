#pragma once
// What this binary is: the project's version (CMake project(VERSION), the one place it is
// written), the git commit it was built from and that commit's date, and the compiler. For
// `hpaplus version`, the hpaplus_build_info series and the log line at start-up.

#include <string>
#include <string_view>

namespace hpaplus::core {

struct build_info {
    std::string_view version;  // "0.1.0"
    std::string_view revision; // "6f2cd01a1b2c", "6f2cd01a1b2c-dirty" or "unknown"
    std::string_view date;     // the commit's date, "2026-12-02", or "unknown"
    std::string_view compiler; // "GNU 12.2.0"
};

const build_info& this_build();

// "hpaplus 0.1.0 (commit 6f2cd01a1b2c, 2026-12-02, GNU 12.2.0)"
std::string version_line();

} // namespace hpaplus::core
