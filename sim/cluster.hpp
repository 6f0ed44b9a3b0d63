// sim/cluster.hpp — the simulated cluster as one object: store, API server and HTTP(S) endpoint
// on one io_context, plus the kubeconfig that points kubectl or hpaplus at it.
#pragma once

#include "net/http_server.hpp"
#include "net/tls.hpp"
#include "sim/apiserver/admission.hpp"
#include "sim/apiserver/api_server.hpp"
#include "sim/store.hpp"
#include "sim/workload/scenario.hpp"
#include "sim/workload/workload.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <memory>
#include <optional>
#include <string>

namespace hpaplus::sim {

struct cluster_options {
    std::string address = "127.0.0.1";
    unsigned short port = 0;
    bool tls = false;
    /// etcd's backend quota over the stored objects' JSON (object_store::set_quota_bytes). The
    /// default holds ~40,000 pods in well under 2 GiB of memory.
    std::size_t storage_quota_bytes = std::size_t{128} << 20;
    api_server_options api;
    workload_options workload;
    /// kube-controller-manager's root-ca-cert-publisher: a kube-root-ca.crt ConfigMap in every
    /// namespace (a KCM can run without it: `--controllers=-root-ca-cert-publisher`).
    bool publish_root_ca = true;
};

class cluster {
  public:
    /// Binds the endpoint (throws on a taken port: a start-up error). Runs on `io`.
    cluster(boost::asio::io_context& io, cluster_options options);
    ~cluster();

    void start();
    void stop();
    /// Closes the endpoint (every connection and watch drops) and opens it again on the same
    /// address after `down`, with all state kept: the API server going away and coming back.
    void restart(std::chrono::milliseconds down);

    std::string url() const;
    /// The CA that signed the serving certificate (TLS only).
    const std::optional<net::tls_material>& tls() const { return tls_; }
    /// Creates the scenario's objects now and plays its load schedule from now on.
    /// Returns an error naming the object that could not be created.
    std::optional<std::string> play(const scenario& s);

    /// A kubeconfig (YAML) with one context pointing at this cluster.
    std::string kubeconfig() const;

    object_store& store() { return store_; }
    api_server& api() { return *api_; }
    workload_model& workload() { return *workload_; }
    admission& webhooks() { return *admission_; }

  private:
    std::optional<net::tls_material> tls_;
    object_store store_;
    std::unique_ptr<admission> admission_; ///< before the API server and workloads that use it
    std::unique_ptr<api_server> api_;
    std::unique_ptr<workload_model> workload_;
    std::unique_ptr<net::http_server> http_;
    std::unique_ptr<net::http_server> retired_; ///< the previous endpoint while it closes
    net::http_server_options http_options_;
    boost::asio::io_context& io_;
    std::unique_ptr<boost::asio::steady_timer> restart_timer_;
    bool stopped_ = false;
    std::unique_ptr<boost::asio::steady_timer> load_timer_;
    std::vector<load_step> load_;
    std::size_t load_next_ = 0;
    std::chrono::milliseconds load_repeat_{0}; ///< the schedule starts over after this (0: never)
    std::chrono::steady_clock::time_point load_start_;
    void schedule_load();
};

} // namespace hpaplus::sim
