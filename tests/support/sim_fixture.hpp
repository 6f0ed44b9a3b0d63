// tests/support/sim_fixture.hpp — the simulated cluster on a background thread for a test, with a
// small blocking HTTP(S) client. Every call has a deadline; the io_context is stopped and joined
// at teardown.
#pragma once

#include "process.hpp"
#include "sim/cluster.hpp"

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace hpaplus::test {

// Collections of the default namespace, as the tests address them.
namespace paths {
inline const std::string configmaps = "/api/v1/namespaces/default/configmaps";
inline const std::string deployments = "/apis/apps/v1/namespaces/default/deployments";
inline const std::string pods = "/api/v1/namespaces/default/pods";
} // namespace paths

struct http_result {
    int status = 0;
    std::string body;
    std::map<std::string, std::string> headers; ///< lower-case names
};

class sim_fixture {
  public:
    explicit sim_fixture(bool tls = false);
    explicit sim_fixture(sim::cluster_options options);
    ~sim_fixture();

    sim::cluster& cluster() { return *cluster_; }
    std::string url() const { return url_; }

    /// One request on a fresh connection; `content_type` empty = application/json; `headers` are
    /// sent besides Host, Accept and Content-Type.
    http_result request(const std::string& method, const std::string& target,
                        const std::string& body = "", const std::string& content_type = "",
                        const std::string& accept = "application/json",
                        const std::vector<std::pair<std::string, std::string>>& headers = {});
    http_result get(const std::string& target) { return request("GET", target); }

    /// Reads a streaming response (a watch) until `lines` newline-terminated lines arrived or the
    /// deadline passed; returns the lines.
    std::vector<std::string> watch(const std::string& target, std::size_t lines,
                                   std::chrono::milliseconds deadline);

    /// Installs the Namespace, ServiceAccounts and RBAC of deploy/OVERLAY as kubectl renders them
    /// (support/shipped_identity.hpp; objects already there are replaced) and returns a token
    /// (TokenRequest) of ServiceAccount hpaplus-system/ACCOUNT. Throws when a step fails.
    std::string shipped_token(const std::string& account, const std::string& overlay = "complete");

    /// Runs `f` on the cluster's thread and waits for it (the store is single-threaded).
    void run_on_cluster(const std::function<void()>& f);

  private:
    boost::asio::io_context io_;
    std::unique_ptr<sim::cluster> cluster_;
    std::string url_;
    std::string host_;
    unsigned short port_ = 0;
    bool tls_;
    std::thread thread_;
};

} // namespace hpaplus::test
