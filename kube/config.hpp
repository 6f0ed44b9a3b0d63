// kube/config.hpp — where the API server is and how to authenticate: kubeconfig files (current
// context, clusters, users, contexts; CA, client certificate and key, bearer token or token file,
// insecure-skip-tls-verify, namespace) and the in-cluster service account.
#pragma once

#include "core/outcome.hpp"

#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace hpaplus::kube {

struct cluster_config {
    std::string server; ///< https://host:port or http://host:port
    std::string scheme; ///< http | https
    std::string host;
    std::string port;
    std::string ca_pem; ///< CA bundle to verify the server (empty: the system's)
    bool insecure_skip_tls_verify = false;
    std::string tls_server_name; ///< SNI / verification name override
    std::string client_cert_pem;
    std::string client_key_pem;
    std::string token; ///< bearer token (a token file wins and is re-read)
    std::string token_file;
    std::chrono::steady_clock::time_point token_read_at{}; ///< last read of token_file ({} = never)
    std::string namespace_ = "default";
    std::string source; ///< where it came from, for messages
};

/// Reads a kubeconfig file; `context` overrides current-context. Relative file references are
/// resolved against the kubeconfig's own directory. Errors name the file and the entry.
core::outcome<cluster_config> load_kubeconfig(const std::string& path,
                                              const std::string& context = "");

/// Parses kubeconfig text (`base_dir` resolves relative file references).
core::outcome<cluster_config> parse_kubeconfig(const std::string& text, const std::string& base_dir,
                                               const std::string& context = "");

/// The in-cluster configuration: KUBERNETES_SERVICE_HOST/PORT and the service account files
/// under `root` (token, ca.crt, namespace).
core::outcome<cluster_config>
load_in_cluster(const std::map<std::string, std::string>& env,
                const std::string& root = "/var/run/secrets/kubernetes.io/serviceaccount");

/// What `hpaplus controller` uses: --kubeconfig if given, else $KUBECONFIG (its first file), else
/// in-cluster when KUBERNETES_SERVICE_HOST is set, else ~/.kube/config.
core::outcome<cluster_config> load_config(const std::string& kubeconfig_flag,
                                          const std::map<std::string, std::string>& env);

/// How often a token file is re-read (as client-go does): rotated service-account tokens stay
/// valid for a while after rotation, so a minute is safe, and it keeps a file read off every
/// request.
inline constexpr std::chrono::seconds token_reread_interval{60};

/// The bearer token to send now: re-reads the token file when it was never read, is older than
/// token_reread_interval, or was invalidated (token_read_at = {}, after a 401); keeps the last
/// good token when a read fails.
const std::string&
current_token(cluster_config& c,
              std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());

/// A whole file (certificates, tokens, configuration), or nullopt when it cannot be read.
std::optional<std::string> read_file(const std::string& path);

/// Splits `https://host:port` into scheme, host and port (default 443/80); false when malformed.
bool split_server(const std::string& server, std::string& scheme, std::string& host,
                  std::string& port);

} // namespace hpaplus::kube
