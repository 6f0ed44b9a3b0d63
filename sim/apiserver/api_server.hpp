// sim/apiserver/api_server.hpp — the simulated Kubernetes API server: REST verbs with the real
// server's semantics on top of object_store, list/watch, the status and scale subresources,
// discovery, server-side Tables for kubectl, and CustomResourceDefinitions served generically.
#pragma once

#include "net/http_server.hpp"
#include "sim/apiserver/faults.hpp"
#include "sim/pod_log.hpp"
#include "sim/store.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>

namespace boost::asio {
class steady_timer_holder;
}

namespace hpaplus::sim {

class admission;

struct api_server_options {
    /// Longest watch when the client gives no timeoutSeconds (the real server uses ~30 min).
    std::chrono::seconds default_watch_timeout{1800};
    /// How often an idle watch gets a BOOKMARK when it asked for them.
    std::chrono::milliseconds bookmark_interval{5000};
    /// How long a list at a resourceVersion the server has not reached waits for it before the
    /// 504 "Too large resource version" (the watch cache waits 3 s).
    std::chrono::milliseconds fresh_wait{3000};
};

class api_server {
  public:
    api_server(boost::asio::any_io_executor executor, object_store& store,
               api_server_options options = {});
    ~api_server();

    /// The HTTP handler. Runs on: the executor; one thread, so no locking.
    boost::asio::awaitable<void> handle(net::http_request& request, net::http_responder& responder);

    /// Ends every open watch (their streams close cleanly).
    void stop();

    /// Creates the namespaces every cluster has (default, kube-system, kube-public), the admin
    /// token and the front-proxy CA in kube-system/extension-apiserver-authentication.
    void bootstrap();

    /// Serves metrics.k8s.io/v1beta1 (PodMetrics, NodeMetrics) from `usage` (milli-CPU, bytes;
    /// nullopt = the pod has no metrics yet, as metrics-server before its first scrape).
    using usage_function = std::function<std::optional<std::pair<std::int64_t, std::int64_t>>(
        const stored_object& pod)>;
    void serve_resource_metrics(usage_function usage);

    /// Serves pods/NAME/log from `logs` (the log of a pod's container by pod uid and container
    /// name; null when that container has none yet).
    /// Serves nodes/NAME/proxy/stats/summary from `summary` (the kubelet's statsapi.Summary of
    /// a node, nullopt for one it does not run).
    using stats_function = std::function<std::optional<std::string>(const std::string& node)>;
    void serve_node_stats(stats_function summary);

    using log_function =
        std::function<const container_log*(std::string_view uid, std::string_view container)>;
    void serve_pod_logs(log_function logs);

    /// Fault injection (also reachable over HTTP under /sim/v1/).
    fault_injector& faults();

    /// Called for POST /sim/v1/restart?downSeconds=N: the cluster closes its endpoint and opens it
    /// again after N seconds, keeping all state.
    void on_restart_request(std::function<void(std::chrono::milliseconds down)> f);

    /// Calls `chain`'s mutating webhooks before every create (the chain must outlive the server).
    void use_admission(admission& chain);

    /// Serves GET /sim/v1/prometheus from `text` (the Prometheus exposition of simulated pods).
    void serve_prometheus(std::function<std::string()> text);

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace hpaplus::sim
