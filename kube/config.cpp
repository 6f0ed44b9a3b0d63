// kube/config.cpp — kubeconfig and in-cluster configuration (client-go clientcmd semantics).
#include "kube/config.hpp"

#include "net/base64.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace hpaplus::kube {

std::optional<std::string> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {

namespace fs = std::filesystem;

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
        ++i;
    return s.substr(i);
}

// A named entry (`clusters[].name` → `.cluster`); nullopt when there is none.
std::optional<YAML::Node> find_named(const YAML::Node& list, const std::string& name,
                                     const char* field) {
    if (!list || !list.IsSequence()) return std::nullopt;
    for (const auto& item : list)
        if (item["name"] && item["name"].IsScalar() && item["name"].as<std::string>() == name &&
            item[field].IsMap())
            return item[field];
    return std::nullopt;
}

std::string scalar(const YAML::Node& n, const char* key) {
    return n && n[key] && n[key].IsScalar() ? n[key].as<std::string>() : std::string();
}

// Data inline (base64) wins over a file reference, as in client-go.
core::outcome<std::string> data_or_file(const YAML::Node& n, const char* data_key,
                                        const char* file_key, const std::string& base_dir,
                                        const std::string& where) {
    if (const std::string data = scalar(n, data_key); !data.empty()) {
        auto decoded = net::base64_decode(data);
        if (!decoded) return core::error_message(where + "." + data_key + ": not valid base64");
        return core::success(std::move(*decoded));
    }
    if (std::string file = scalar(n, file_key); !file.empty()) {
        if (fs::path(file).is_relative() && !base_dir.empty())
            file = (fs::path(base_dir) / file).string();
        auto content = read_file(file);
        if (!content) return core::error_message(where + "." + file_key + ": cannot read " + file);
        return core::success(std::move(*content));
    }
    return core::success(std::string());
}

} // namespace

bool split_server(const std::string& server, std::string& scheme, std::string& host,
                  std::string& port) {
    const auto sep = server.find("://");
    if (sep == std::string::npos) return false;
    scheme = server.substr(0, sep);
    if (scheme != "https" && scheme != "http") return false;
    std::string rest = server.substr(sep + 3);
    if (const auto slash = rest.find('/'); slash != std::string::npos) rest = rest.substr(0, slash);
    if (rest.empty()) return false;
    if (rest.front() == '[') { // IPv6
        const auto close = rest.find(']');
        if (close == std::string::npos) return false;
        host = rest.substr(1, close - 1);
        port = close + 1 < rest.size() && rest[close + 1] == ':' ? rest.substr(close + 2) : "";
    } else {
        const auto colon = rest.rfind(':');
        host = rest.substr(0, colon);
        port = colon == std::string::npos ? "" : rest.substr(colon + 1);
    }
    if (port.empty()) port = scheme == "https" ? "443" : "80";
    return !host.empty() && port.find_first_not_of("0123456789") == std::string::npos;
}

core::outcome<cluster_config> parse_kubeconfig(const std::string& text, const std::string& base_dir,
                                               const std::string& context_override) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        return core::error_message(std::string("not valid YAML: ") + e.what());
    }
    if (!root.IsMap()) return core::error_message("a kubeconfig must be a YAML mapping");
    std::string context_name =
        context_override.empty() ? scalar(root, "current-context") : context_override;
    if (context_name.empty())
        return core::error_message("current-context is not set (and no context was given)");
    const auto context_node = find_named(root["contexts"], context_name, "context");
    if (!context_node)
        return core::error_message("context \"" + context_name + "\" is not in contexts");
    const YAML::Node& context = *context_node;
    const std::string cluster_name = scalar(context, "cluster");
    const auto cluster_node = find_named(root["clusters"], cluster_name, "cluster");
    if (!cluster_node)
        return core::error_message("cluster \"" + cluster_name + "\" of context \"" + context_name +
                                   "\" is not in clusters");
    const YAML::Node& cluster = *cluster_node;
    const std::string user_name = scalar(context, "user");
    const auto user_node = find_named(root["users"], user_name, "user");
    if (!user_name.empty() && !user_node)
        return core::error_message("user \"" + user_name + "\" of context \"" + context_name +
                                   "\" is not in users");
    const YAML::Node user = user_node ? *user_node : YAML::Node();

    cluster_config c;
    c.server = scalar(cluster, "server");
    if (!split_server(c.server, c.scheme, c.host, c.port))
        return core::error_message("clusters[" + cluster_name + "].server: \"" +
                                   c.server.substr(c.server.find('@') + 1) + // no user:password
                                   "\" is not an http(s) URL");
    auto ca = data_or_file(cluster, "certificate-authority-data", "certificate-authority", base_dir,
                           "clusters[" + cluster_name + "]");
    if (!ca) return ca.error();
    c.ca_pem = *ca;
    const std::string insecure = scalar(cluster, "insecure-skip-tls-verify");
    c.insecure_skip_tls_verify = insecure == "true";
    c.tls_server_name = scalar(cluster, "tls-server-name");
    if (user_node) {
        const std::string where = "users[" + user_name + "]";
        auto cert =
            data_or_file(user, "client-certificate-data", "client-certificate", base_dir, where);
        if (!cert) return cert.error();
        auto key = data_or_file(user, "client-key-data", "client-key", base_dir, where);
        if (!key) return key.error();
        if (cert->empty() != key->empty())
            return core::error_message(
                where + ": a client certificate needs its key (and the other way round)");
        c.client_cert_pem = *cert;
        c.client_key_pem = *key;
        c.token = scalar(user, "token");
        c.token_file = scalar(user, "tokenFile");
        if (!c.token_file.empty() && fs::path(c.token_file).is_relative() && !base_dir.empty())
            c.token_file = (fs::path(base_dir) / c.token_file).string();
        if (user["exec"] || user["auth-provider"])
            return core::error_message(where +
                                       ": exec and auth-provider credentials are not supported; "
                                       "use a token, a token file or a client certificate");
    }
    if (const std::string ns = scalar(context, "namespace"); !ns.empty()) c.namespace_ = ns;
    c.source = "context \"" + context_name + "\"";
    return c;
}

core::outcome<cluster_config> load_kubeconfig(const std::string& path, const std::string& context) {
    auto text = read_file(path);
    if (!text) return core::error_message(path + ": cannot read the kubeconfig");
    auto c = parse_kubeconfig(*text, fs::path(path).parent_path().string(), context);
    if (!c) return core::error_message(path + ": " + c.error().text);
    c->source = path + " " + c->source;
    return c;
}

core::outcome<cluster_config> load_in_cluster(const std::map<std::string, std::string>& env,
                                              const std::string& root) {
    const auto host = env.find("KUBERNETES_SERVICE_HOST");
    const auto port = env.find("KUBERNETES_SERVICE_PORT");
    if (host == env.end() || host->second.empty() || port == env.end() || port->second.empty())
        return core::error_message("not running in a cluster: KUBERNETES_SERVICE_HOST and "
                                   "KUBERNETES_SERVICE_PORT must be set");
    cluster_config c;
    c.scheme = "https";
    c.host = host->second;
    c.port = port->second;
    c.server = "https://" + (c.host.find(':') != std::string::npos ? "[" + c.host + "]" : c.host) +
               ":" + c.port;
    c.token_file = root + "/token";
    auto token = read_file(c.token_file);
    if (!token)
        return core::error_message(c.token_file + ": cannot read the service account token");
    c.token = trim(*token);
    auto ca = read_file(root + "/ca.crt");
    if (!ca) return core::error_message(root + "/ca.crt: cannot read the service account CA");
    c.ca_pem = *ca;
    if (auto ns = read_file(root + "/namespace")) c.namespace_ = trim(*ns);
    c.source = "in-cluster service account";
    return c;
}

core::outcome<cluster_config> load_config(const std::string& kubeconfig_flag,
                                          const std::map<std::string, std::string>& env) {
    if (!kubeconfig_flag.empty()) return load_kubeconfig(kubeconfig_flag);
    if (const auto k = env.find("KUBECONFIG"); k != env.end() && !k->second.empty()) {
        const std::string first = k->second.substr(0, k->second.find(':'));
        return load_kubeconfig(first);
    }
    if (env.count("KUBERNETES_SERVICE_HOST")) return load_in_cluster(env);
    const auto home = env.find("HOME");
    if (home == env.end())
        return core::error_message(
            "no kubeconfig: give --kubeconfig, set KUBECONFIG, or run in a cluster");
    return load_kubeconfig(home->second + "/.kube/config");
}

const std::string& current_token(cluster_config& c, std::chrono::steady_clock::time_point now) {
    const bool due = c.token_read_at == std::chrono::steady_clock::time_point{} ||
                     now - c.token_read_at >= token_reread_interval;
    if (!c.token_file.empty() && due) {
        c.token_read_at = now;
        if (auto t = read_file(c.token_file); t && !trim(*t).empty()) c.token = trim(*t);
    }
    return c.token;
}

} // namespace hpaplus::kube
