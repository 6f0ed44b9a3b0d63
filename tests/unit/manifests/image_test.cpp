// The image starts: every shared library the built binary loads comes from a package the
// Dockerfile's runtime stage installs (ldd → dpkg -S → the apt-get install list).
#include "../../support/build_paths.hpp"
#include "../../support/process.hpp"

#include <gtest/gtest.h>

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

} // namespace
