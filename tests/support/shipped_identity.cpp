// tests/support/shipped_identity.cpp — deploy/'s RBAC as kubectl renders it, and tokens of its
// ServiceAccounts.
#include "shipped_identity.hpp"
#include "build_paths.hpp"
#include "process.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

namespace hpaplus::test {
namespace {

// The top-level `kind:` of one rendered document ("" when it has none).
std::string kind_of(const std::string& document) {
    std::istringstream lines(document);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("kind: ", 0) == 0) return line.substr(6);
    return "";
}

} // namespace

const std::vector<std::string>& shipped_rbac_documents(const std::string& overlay) {
    static std::mutex lock;
    static std::map<std::string, std::vector<std::string>> rendered;
    std::lock_guard<std::mutex> hold(lock);
    if (auto it = rendered.find(overlay); it != rendered.end()) return it->second;
    const auto r = run_command("sh -c '" + kubectl_program() + " kustomize " + source_dir() +
                               "/deploy/" + overlay + " 2>/dev/null'");
    if (r.exit_code != 0 || r.output.empty())
        throw std::runtime_error("kubectl kustomize deploy/" + overlay + " failed: " + r.output);
    std::vector<std::string> documents;
    std::string text = "\n" + r.output;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t next = text.find("\n---\n", at);
        if (next == std::string::npos) next = text.size();
        std::string document = text.substr(at, next - at);
        at = next + 5;
        const std::string kind = kind_of(document);
        if (kind == "Namespace" || kind == "ServiceAccount" || kind == "Role" ||
            kind == "ClusterRole" || kind == "RoleBinding" || kind == "ClusterRoleBinding")
            documents.push_back(document.substr(document.find_first_not_of('\n')));
    }
    if (documents.empty())
        throw std::runtime_error("deploy/" + overlay + " renders no RBAC objects");
    return rendered[overlay] = std::move(documents);
}

std::string shipped_kubeconfig(const std::string& dir, const std::string& account,
                               const std::string& overlay, const std::string& pod) {
    const std::string manifest = dir + "/shipped-rbac-" + overlay + ".yaml";
    {
        std::ofstream out(manifest);
        for (const auto& document : shipped_rbac_documents(overlay))
            out << "---\n" << document << "\n";
    }
    auto r = run_kubectl(dir, "apply -f " + manifest);
    if (r.exit_code != 0) throw std::runtime_error("applying deploy/'s RBAC failed: " + r.output);
    std::string bound;
    if (!pod.empty()) {
        const std::string pod_manifest = dir + "/pod-" + pod + ".yaml";
        std::ofstream(pod_manifest)
            << "apiVersion: v1\nkind: Pod\nmetadata: {name: " << pod
            << ", namespace: " << shipped_namespace << "}\nspec:\n  serviceAccountName: " << account
            << "\n  containers: [{name: controller, image: hpaplus}]\n";
        r = run_kubectl(dir, "apply -f " + pod_manifest);
        if (r.exit_code != 0) throw std::runtime_error("creating pod " + pod + ": " + r.output);
        bound = R"(,"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":")" + pod + "\"}";
    }
    // A TokenRequest, as `kubectl create token` (1.24+) sends it: kubectl 1.20 has only --raw.
    const std::string request = dir + "/token-request.json";
    std::ofstream(request) << R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",)"
                              R"("spec":{"expirationSeconds":86400)"
                           << bound << "}}";
    r = run_kubectl(dir, "create --raw /api/v1/namespaces/" + shipped_namespace +
                             "/serviceaccounts/" + account + "/token -f " + request);
    const std::string key = "\"token\":\"";
    const auto found = r.output.find(key);
    if (r.exit_code != 0 || found == std::string::npos)
        throw std::runtime_error("no token for " + account + ": " + r.output);
    const std::string token = r.output.substr(
        found + key.size(), r.output.find('"', found + key.size()) - found - key.size());
    std::ifstream in(dir + "/kubeconfig");
    std::stringstream admin;
    admin << in.rdbuf();
    std::string text = admin.str();
    const std::string admin_token = "token: hpaplus-sim";
    const auto at = text.find(admin_token);
    if (at == std::string::npos)
        throw std::runtime_error("the simulated cluster's kubeconfig has no admin token");
    text.replace(at, admin_token.size(), "token: " + token);
    const std::string path = dir + "/" + account + (pod.empty() ? "" : "-" + pod) + ".kubeconfig";
    std::ofstream(path) << text;
    return path;
}

std::string shipped_refusals(const std::string& dir, const std::string& account) {
    const auto r = run_kubectl(dir, "get --raw /sim/v1/rbac-usage");
    if (r.exit_code != 0) return "cannot read /sim/v1/rbac-usage: " + r.output;
    const std::string key = "\"system:serviceaccount:" + shipped_namespace + ":" + account + "\":";
    const auto at = r.output.find(key, r.output.find("\"refused\""));
    if (at == std::string::npos) return "";
    const auto start = at + key.size();
    return r.output.substr(start, r.output.find('}', start) + 1 - start);
}

void record_rbac_usage(const std::string& usage_json) {
    const char* dir = std::getenv("HPAPLUS_RBAC_USAGE_DIR");
    if (!dir || !*dir) return;
    static int written = 0;
    std::ofstream(std::string(dir) + "/" + std::to_string(getpid()) + "-" +
                  std::to_string(written++) + ".json")
        << usage_json;
}

void record_rbac_usage_of(const std::string& dir) {
    if (!std::getenv("HPAPLUS_RBAC_USAGE_DIR")) return;
    const auto r = run_kubectl(dir, "get --raw /sim/v1/rbac-usage");
    if (r.exit_code == 0) record_rbac_usage(r.output);
}

} // namespace hpaplus::test
