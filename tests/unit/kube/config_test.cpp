// Tests of kubeconfig and in-cluster configuration.
#include "kube/config.hpp"

#include "../../support/process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace hpaplus::kube {
namespace {

const std::string minimal = R"(apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: Q0EgUEVN
- name: c2
  cluster:
    server: http://127.0.0.1:8080
users:
- name: u1
  user:
    token: secret-token
contexts:
- name: one
  context: {cluster: c1, user: u1, namespace: team-a}
- name: two
  context: {cluster: c2, user: u1}
current-context: one
)";

TEST(Kubeconfig, ReadsTheCurrentContext) {
    auto c = parse_kubeconfig(minimal, "");
    ASSERT_TRUE(c) << c.error().text;
    EXPECT_EQ(c->server, "https://10.0.0.1:6443");
    EXPECT_EQ(c->scheme, "https");
    EXPECT_EQ(c->host, "10.0.0.1");
    EXPECT_EQ(c->port, "6443");
    EXPECT_EQ(c->ca_pem, "CA PEM");
    EXPECT_EQ(c->token, "secret-token");
    EXPECT_EQ(c->namespace_, "team-a");
}

TEST(Kubeconfig, ContextOverride) {
    auto c = parse_kubeconfig(minimal, "", "two");
    ASSERT_TRUE(c) << c.error().text;
    EXPECT_EQ(c->scheme, "http");
    EXPECT_EQ(c->port, "8080");
    EXPECT_EQ(c->namespace_, "default");
}

TEST(Kubeconfig, RelativeFilesResolveAgainstTheKubeconfig) {
    test::temp_dir dir;
    std::ofstream(dir.path() + "/ca.crt") << "FILE CA";
    std::ofstream(dir.path() + "/client.crt") << "CERT";
    std::ofstream(dir.path() + "/client.key") << "KEY";
    std::ofstream(dir.path() + "/token") << "  rotating-token\n";
    std::ofstream(dir.path() + "/config") << R"(clusters:
- name: c
  cluster: {server: "https://[::1]", certificate-authority: ca.crt, tls-server-name: api.example}
users:
- name: u
  user: {client-certificate: client.crt, client-key: client.key, tokenFile: token}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
)";
    auto c = load_kubeconfig(dir.path() + "/config");
    ASSERT_TRUE(c) << c.error().text;
    EXPECT_EQ(c->host, "::1");
    EXPECT_EQ(c->port, "443");
    EXPECT_EQ(c->ca_pem, "FILE CA");
    EXPECT_EQ(c->client_cert_pem, "CERT");
    EXPECT_EQ(c->client_key_pem, "KEY");
    EXPECT_EQ(c->tls_server_name, "api.example");
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(current_token(*c, t0), "rotating-token");
    std::ofstream(dir.path() + "/token") << "rotated\n"; // the kubelet rotates the token
    EXPECT_EQ(current_token(*c, t0 + std::chrono::seconds(59)), "rotating-token"); // cached
    EXPECT_EQ(current_token(*c, t0 + token_reread_interval), "rotated");
    std::ofstream(dir.path() + "/token") << "after-401\n";
    c->token_read_at = {}; // what the client does on 401 Unauthorized
    EXPECT_EQ(current_token(*c, t0 + std::chrono::seconds(61)), "after-401");
    std::filesystem::remove(dir.path() + "/token");
    EXPECT_EQ(current_token(*c, t0 + std::chrono::hours(1)), "after-401"); // last good token kept
}

struct bad_kubeconfig {
    const char* name;
    std::string text;
    const char* expect;
};
void PrintTo(const bad_kubeconfig& c, std::ostream* os) {
    *os << c.name;
}

class KubeconfigRejects : public ::testing::TestWithParam<bad_kubeconfig> {};
TEST_P(KubeconfigRejects, WithAClearMessage) {
    auto c = parse_kubeconfig(GetParam().text, "/nonexistent");
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().text.find(GetParam().expect), std::string::npos) << c.error().text;
    EXPECT_EQ(c.error().text.find("secret"), std::string::npos) << "no credential in errors";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
    return s.replace(s.find(from), from.size(), to);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Table, KubeconfigRejects, ::testing::Values(
    bad_kubeconfig{"NotYaml", "clusters: [", "not valid YAML"},
    bad_kubeconfig{"NotAMapping", "- a\n- b\n", "YAML mapping"},
    bad_kubeconfig{"NoCurrentContext", replace(minimal, "current-context: one", ""), "current-context is not set"},
    bad_kubeconfig{"UnknownContext", replace(minimal, "current-context: one", "current-context: three"), "context \"three\" is not in contexts"},
    bad_kubeconfig{"UnknownCluster", replace(minimal, "{cluster: c1,", "{cluster: c9,"), "cluster \"c9\""},
    bad_kubeconfig{"UnknownUser", replace(minimal, "user: u1, namespace", "user: u9, namespace"), "user \"u9\""},
    bad_kubeconfig{"BadServer", replace(minimal, "https://10.0.0.1:6443", "10.0.0.1:6443"), "is not an http(s) URL"},
    bad_kubeconfig{"ServerWithAPassword", replace(minimal, "https://10.0.0.1:6443", "ftp://admin:secret-password@10.0.0.1"), "\"10.0.0.1\" is not an http(s) URL"},
    bad_kubeconfig{"BadBase64", replace(minimal, "Q0EgUEVN", "abc$"), "certificate-authority-data: not valid base64"},
    bad_kubeconfig{"MissingCaFile", replace(minimal, "certificate-authority-data: Q0EgUEVN", "certificate-authority: ca.crt"), "cannot read"},
    bad_kubeconfig{"CertWithoutKey", replace(minimal, "token: secret-token", "client-certificate-data: Q0VSVA=="), "needs its key"},
    bad_kubeconfig{"ExecUnsupported", replace(minimal, "token: secret-token", "exec: {command: aws}"), "exec and auth-provider credentials are not supported"}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

TEST(InCluster, ReadsTheServiceAccount) {
    test::temp_dir dir;
    std::ofstream(dir.path() + "/token") << "sa-token\n";
    std::ofstream(dir.path() + "/ca.crt") << "SA CA";
    std::ofstream(dir.path() + "/namespace") << "hpaplus-system";
    auto c = load_in_cluster(
        {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}, dir.path());
    ASSERT_TRUE(c) << c.error().text;
    EXPECT_EQ(c->server, "https://10.96.0.1:443");
    EXPECT_EQ(c->token, "sa-token");
    EXPECT_EQ(c->ca_pem, "SA CA");
    EXPECT_EQ(c->namespace_, "hpaplus-system");
    auto v6 = load_in_cluster(
        {{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "443"}}, dir.path());
    ASSERT_TRUE(v6);
    EXPECT_EQ(v6->server, "https://[fd00::1]:443");
    EXPECT_FALSE(load_in_cluster({}, dir.path()));
    EXPECT_FALSE(load_in_cluster(
        {{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"}}, "/nonexistent"));
}

TEST(LoadConfig, Precedence) {
    test::temp_dir dir;
    std::ofstream(dir.path() + "/flag") << minimal;
    std::ofstream(dir.path() + "/env")
        << replace(minimal, "current-context: one", "current-context: two");
    std::filesystem::create_directories(dir.path() + "/home/.kube");
    std::ofstream(dir.path() + "/home/.kube/config") << replace(minimal, "team-a", "from-home");
    EXPECT_EQ(load_config(dir.path() + "/flag", {{"KUBECONFIG", dir.path() + "/env"}})->port,
              "6443");
    EXPECT_EQ(load_config("", {{"KUBECONFIG", dir.path() + "/env:" + dir.path() + "/flag"}})->port,
              "8080");
    EXPECT_EQ(load_config("", {{"HOME", dir.path() + "/home"}})->namespace_, "from-home");
    const auto missing = load_config(dir.path() + "/nope", {});
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().text.find("cannot read the kubeconfig"), std::string::npos);
}

TEST(SplitServer, Forms) {
    std::string scheme, host, port;
    EXPECT_TRUE(split_server("https://api.example.com", scheme, host, port));
    EXPECT_EQ(port, "443");
    EXPECT_TRUE(split_server("http://127.0.0.1:8080/prefix", scheme, host, port));
    EXPECT_EQ(host, "127.0.0.1");
    EXPECT_EQ(port, "8080");
    EXPECT_FALSE(split_server("ftp://x", scheme, host, port));
    EXPECT_FALSE(split_server("https://", scheme, host, port));
    EXPECT_FALSE(split_server("https://h:port", scheme, host, port));
}

} // namespace
} // namespace hpaplus::kube
