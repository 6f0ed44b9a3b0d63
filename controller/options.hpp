// controller/options.hpp — every period, timeout and limit of `hpaplus controller` in one struct,
// with its default; each is a flag (`hpaplus controller --help` lists them from these defaults).
#pragma once

#include "core/outcome.hpp"
#include "kube/api_client.hpp"
#include "kube/informer.hpp"
#include "policy/types.hpp"
#include "vertical/recommender/update_plan.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace hpaplus::controller {

struct leader_election_options {
    bool enabled = true;
    std::string lease_namespace = "hpaplus-system";
    std::string lease_name = "hpaplus-controller";
    std::string identity; ///< "" = hostname_pid
    std::chrono::milliseconds lease_duration{15000};
    std::chrono::milliseconds renew_deadline{10000};
    std::chrono::milliseconds retry_period{2000};
};

/// The vertical module's loop (its per-pod thresholds are vertical::updater_config).
struct vertical_options : vertical::updater_config {
    std::chrono::nanoseconds interval = std::chrono::minutes(1); ///< upstream recommender/updater
    std::chrono::nanoseconds checkpoint_interval = std::chrono::minutes(1);
    /// The pod admission webhook (POST /mutate-pods over TLS): ADDR:PORT, "" = not served. While
    /// it is not, Initial and Recreate only recommend (a recreated pod would not get the
    /// recommendation).
    std::string webhook_listen;
    std::string webhook_cert_file; ///< PEM serving certificate (chain) of the webhook
    std::string webhook_key_file;  ///< its PEM private key
    /// A prometheus backend of --metric-backends to seed a VPAPlus's history from when it has no
    /// checkpoint yet (upstream --storage=prometheus); "" = metrics API and checkpoints only.
    std::string history_backend;
    std::chrono::nanoseconds history_length = std::chrono::hours(24 * 8);
    std::chrono::nanoseconds history_resolution = std::chrono::hours(1);
};

struct controller_options {
    std::string kubeconfig; ///< "" = $KUBECONFIG, in-cluster, ~/.kube/config (in that order)
    std::string context;
    std::string watch_namespace; ///< "" = all namespaces
    kube::client_options client;
    kube::informer_options informer;  ///< watch timeout, idle timeout, relist backoff
    policy::controller_config policy; ///< the kube-controller-manager HPA flags
    /// Period of an object without spec.syncPeriodSeconds.
    std::chrono::seconds default_sync_period{15};
    /// Attempts to write /scale when the target changed under us (409), each on fresh data.
    int scale_write_attempts = 3;
    /// Run CronHPA objects (their CRD must be installed).
    bool enable_cronhpa = true;
    /// Run VPAPlus objects (their CRD must be installed).
    bool enable_vertical = false;
    vertical_options vertical;
    /// The metric backends file (docs/metrics-backends.md); "" = only the Kubernetes metrics APIs.
    std::string metric_backends;
    /// Runs each CronHPA keeps in status.history (newest first).
    int cron_history_limit = 10;
    /// A CronHPA worker sleeps until its next fire time but at most this long, so a wall-clock
    /// step (NTP, VM resume) delays a run by no more than this.
    std::chrono::milliseconds cron_max_sleep{60000};
    /// Identical Events about one object within this window update one Event's count.
    std::chrono::seconds event_aggregation_window{600};
    /// How long start-up waits for the informers' first lists before it fails.
    std::chrono::milliseconds cache_sync_timeout{120000};
    leader_election_options leader;
    /// Address of /healthz, /readyz and /metrics ("" = off).
    std::string ops_listen = "0.0.0.0:8080";
    /// After SIGTERM, how long in-flight reconciles may take before the process exits.
    std::chrono::milliseconds shutdown_grace{10000};
};

/// Parses `hpaplus controller` arguments (argv[0] is the subcommand). `help` is set for --help.
core::outcome<controller_options> parse_controller_flags(const std::vector<std::string>& args,
                                                         bool& help);

/// The --help text, defaults included.
std::string controller_flags_help();

/// Splits `ADDR:PORT` (`:8080` = all addresses, `[::1]:80`); false when malformed.
bool split_listen(std::string_view text, std::string& address, unsigned short& port);

} // namespace hpaplus::controller
