// The image starts: every shared library the built binary loads comes from a package the
// Dockerfile's runtime stage installs (ldd → dpkg -S → the apt-get install list).
#include "../../support/build_paths.hpp"
#include "../../support/process.hpp"

#include "controller/runtime/telemetry.hpp"
#include "core/build_info.hpp"

#include <gtest/gtest.h>

#include <regex>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

// The packages the last stage (the runtime image) installs with apt-get.
std::set<std::string> runtime_packages(const std::string& dockerfile) {
    const auto stage = dockerfile.rfind("\nFROM ");
    std::string text = dockerfile.substr(stage == std::string::npos ? 0 : stage);
    for (std::size_t at; (at = text.find("\\\n")) != std::string::npos;)
        text.replace(at, 2, " ");
    std::set<std::string> out;
    const auto install = text.find("apt-get install");
    if (install == std::string::npos) return out;
    std::istringstream words(text.substr(install + 15));
    for (std::string w; words >> w && w != "&&";)
        if (w[0] != '-') out.insert(w);
    return out;
}

// The package that owns `path` (usrmerge: dpkg may know it under /usr).
std::string owner(const std::string& path) {
    for (const std::string& candidate : {path, "/usr" + path}) {
        const auto r = hpaplus::test::run_command("dpkg -S '" + candidate + "' 2>/dev/null");
        if (r.exit_code == 0 && r.output.find(':') != std::string::npos)
            return r.output.substr(0, r.output.find(':'));
    }
    const auto real = hpaplus::test::run_command("readlink -f '" + path + "'");
    if (real.exit_code == 0 && !real.output.empty() && real.output != path + "\n") {
        const std::string resolved = real.output.substr(0, real.output.size() - 1);
        const auto r = hpaplus::test::run_command("dpkg -S '" + resolved + "' 2>/dev/null");
        if (r.exit_code == 0) return r.output.substr(0, r.output.find(':'));
    }
    return "";
}

TEST(Image, TheRuntimeStageInstallsAPackageForEveryLibraryTheBinaryLoads) {
    std::ifstream in(std::string(HPAPLUS_SOURCE_DIR) + "/Dockerfile");
    const std::string dockerfile((std::istreambuf_iterator<char>(in)), {});
    const auto installed = runtime_packages(dockerfile);
    ASSERT_TRUE(installed.count("ca-certificates")) << "no apt-get install list found";
    EXPECT_TRUE(installed.count("tzdata")) << "CronHPA time zones need the tz database";

    const auto ldd = hpaplus::test::run_command(std::string("ldd ") + HPAPLUS_BINARY);
    ASSERT_EQ(ldd.exit_code, 0) << ldd.output;
    std::istringstream lines(ldd.output);
    std::size_t libraries = 0;
    for (std::string line; std::getline(lines, line);) {
        const auto arrow = line.find("=> /");
        if (arrow == std::string::npos) continue;
        const std::string path = line.substr(arrow + 3, line.find(' ', arrow + 3) - arrow - 3);
        const std::string package = owner(path);
        ASSERT_FALSE(package.empty()) << path << " belongs to no Debian package";
        // The sanitizer builds of the tests link their runtimes; the image is built without.
        if (package.rfind("libasan", 0) == 0 || package.rfind("libubsan", 0) == 0) continue;
        ++libraries;
        EXPECT_TRUE(installed.count(package))
            << path << " comes from " << package << ", which the Dockerfile's runtime stage does "
            << "not install";
    }
    EXPECT_GE(libraries, 5u) << ldd.output;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::string first_line(std::string text) {
    return text.substr(0, text.find('\n'));
}

// The one place the version is written: CMakeLists.txt's project(hpaplus VERSION x.y.z ...).
std::string project_version() {
    const std::string cmake = read_file(std::string(HPAPLUS_SOURCE_DIR) + "/CMakeLists.txt");
    std::smatch m;
    if (!std::regex_search(cmake, m, std::regex(R"(project\(hpaplus VERSION ([0-9.]+))")))
        return "";
    return m[1];
}

// Issue 71: `hpaplus version` names the version, the commit it was built from and that commit's
// date; the tests run on a git checkout, so both are known here.
TEST(Image, VersionNamesTheProjectVersionTheCommitAndItsDate) {
    const std::string git = "git -C '" + std::string(HPAPLUS_SOURCE_DIR) + "' ";
    const auto head = hpaplus::test::run_command(git + "rev-parse --short=12 HEAD");
    ASSERT_EQ(head.exit_code, 0) << head.output;
    const auto date = hpaplus::test::run_command(git + "log -1 --format=%cs HEAD");
    ASSERT_EQ(date.exit_code, 0) << date.output;
    const std::string version = project_version();
    ASSERT_FALSE(version.empty());

    const auto out = hpaplus::test::run_command(std::string(HPAPLUS_BINARY) + " version");
    ASSERT_EQ(out.exit_code, 0) << out.output;
    // "-dirty" while the tree has uncommitted changes (a developer's build, never CI's clone).
    const std::regex expected("hpaplus " + version + R"( \(commit )" + first_line(head.output) +
                              "(-dirty)?, " + first_line(date.output) +
                              R"(, (GNU|Clang) [0-9.]+.*\))");
    EXPECT_TRUE(std::regex_match(first_line(out.output), expected)) << out.output;
    EXPECT_EQ(first_line(out.output), hpaplus::core::version_line());
}

// The same identity on /metrics, as hpaplus_build_info{version,revision,compiler} 1.
TEST(Image, MetricsCarryTheBuildInfo) {
    const auto& build = hpaplus::core::this_build();
    const std::string text = hpaplus::controller::telemetry().exposition();
    const std::string series = "hpaplus_build_info{compiler=\"" + std::string(build.compiler) +
                               "\",revision=\"" + std::string(build.revision) + "\",version=\"" +
                               project_version() + "\"} 1";
    EXPECT_NE(text.find(series), std::string::npos) << series << "\nnot in\n" << text;
}

} // namespace
