// `--metric-backends` as a user meets it: `hpaplus adapter` and `hpaplus controller` refuse a
// missing or malformed backends file at start with one line naming the file and the field.
#include "../../support/build_paths.hpp"
#include "../../support/process.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace {

using hpaplus::test::run_command;

TEST(BackendsCli, AdapterNeedsAValidBackendsFile) {
    hpaplus::test::temp_dir dir;
    const std::string bad = dir.path() + "/bad.yaml";
    std::ofstream(bad) << "backends:\n  - {name: p, type: prometheus, url: 'ftp://x'}\n";
    const std::pair<std::string, std::string> rows[] = {
        {"adapter", "--metric-backends is required"},
        {"adapter --metric-backends=/nonexistent.yaml",
         "--metric-backends: /nonexistent.yaml: cannot read the file"},
        {"adapter --metric-backends=" + bad,
         "backends[0].url: \"ftp://x\" is not an http:// or https:// URL"},
        {"adapter --metric-backends=" + bad + " --listen nowhere", "--listen: want ADDR:PORT"},
        {"adapter --metric-backends=" + bad + " --tls-cert-file=a.pem",
         "give both --tls-cert-file and --tls-private-key-file"},
        {"adapter --bogus", "unknown flag --bogus"},
    };
    for (const auto& [args, text] : rows) {
        const auto r = run_command(std::string(HPAPLUS_BINARY) + " " + args);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
        EXPECT_NE(r.output.find(text), std::string::npos) << args << "\n" << r.output;
    }
    EXPECT_EQ(run_command(std::string(HPAPLUS_BINARY) + " adapter --help").exit_code, 0);
}

// The sizing flags of `hpaplus sim` (used by the benchmarks) refuse nonsense with one line.
TEST(SimCli, RefusesBadTickAndNodeSizes) {
    const std::pair<std::string, std::string> rows[] = {
        {"sim --tick 0s", "--tick: want a positive duration"},
        {"sim --tick soon", "--tick: want a positive duration"},
        {"sim --node-cpu -4", "--node-cpu: want a positive quantity"},
        {"sim --node-memory lots", "--node-memory: want a positive quantity"},
        {"sim --tick", "--tick: a value is required"},
    };
    for (const auto& [args, text] : rows) {
        const auto r = run_command(std::string(HPAPLUS_BINARY) + " " + args);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
        EXPECT_NE(r.output.find(text), std::string::npos) << args << "\n" << r.output;
    }
}

TEST(BackendsCli, ControllerRefusesAMalformedBackendsFileAtStart) {
    hpaplus::test::temp_dir dir;
    const std::string bad = dir.path() + "/bad.yaml";
    std::ofstream(bad) << "backends:\n  - {name: m, type: monitor, url: 'http://x/{{qurey}}', "
                          "response: {value: /v}}\n";
    const std::string kubeconfig = dir.path() + "/kubeconfig";
    std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: "
                                 "{server: 'http://127.0.0.1:1'}}]\ncontexts: [{name: c, context: "
                                 "{cluster: c, user: u}}]\nusers: [{name: u, user: {}}]\n"
                                 "current-context: c\n";
    const auto r = run_command(std::string(HPAPLUS_BINARY) + " controller --kubeconfig " +
                               kubeconfig + " --metric-backends=" + bad);
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("--metric-backends: " + bad +
                            ": backends[0].url: unknown placeholder {{qurey}}"),
              std::string::npos)
        << r.output;
}

} // namespace
