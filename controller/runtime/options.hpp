// controller/runtime/options.hpp — every period, timeout and limit of `hpaplus controller` in one
// struct, with its default; each is a flag (`hpaplus controller --help` lists them from these
// defaults).
#pragma once

#include "controller/vpaplus/options.hpp"
#include "core/time.hpp"
#include "kube/client_options.hpp"
#include "kube/informer_options.hpp"
#include "policy/types.hpp"

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
    /// What holding the Lease makes this replica, for the log ("the leader", "the holder of shard
    /// 3").
    std::string role = "the leader";
    /// The shard count this replica works under (--shards), recorded on every Lease it writes
    /// (kube::lease_shards_annotation): replicas of another count know the Lease is not theirs.
    std::size_t shards = 1;
    /// A Lease all replicas of `shards` renew together (the layout Lease of a sharded layout,
    /// controller/runtime/shards.hpp) instead of one replica holding it: it counts as this
    /// replica's while it records the same shard count.
    bool shared = false;
};

/// Which plain HorizontalPodAutoscalers HPAPlus reconciles (the drop-in replacement).
enum class native_hpa_selection {
    all,       ///< every HPA
    annotated, ///< only HPAs annotated autoscaling.hpaplus.io/controller: hpaplus
    none,      ///< none (HPAPlus objects only)
};

struct native_hpa_options {
    native_hpa_selection selection = native_hpa_selection::all;
    /// An HPA whose status another field manager (kube-controller-manager) wrote within this
    /// window is left alone, so two controllers never fight over it.
    std::chrono::seconds foreign_status_window{600};
    /// Reconcile HPAs even when another manager wrote their status recently.
    bool force_takeover = false;
    /// The `source.component` (and `reportingComponent`) of their Events: kube-controller-manager's
    /// name by default, with no host, as its Events carry none.
    std::string event_source = "horizontal-pod-autoscaler";
};

struct controller_options {
    /// --log-level and --log-format as given ("" = not given: $HPAPLUS_LOG_LEVEL and
    /// $HPAPLUS_LOG_FORMAT, then info and text; controller/runtime/logging.hpp).
    std::string log_level;
    std::string log_format;
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
    native_hpa_options native_hpas;
    /// Run CronHPA objects (their CRD must be installed).
    bool enable_cronhpa = true;
    /// Run VPAPlus objects (their CRD must be installed).
    bool enable_vertical = false;
    vertical_options vertical;
    /// The metric backends file (docs/metrics-backends.md); "" = only the Kubernetes metrics APIs.
    std::string metric_backends;
    /// The autoscalers of a namespace share one PodMetrics read per this window (0 = one read per
    /// reconcile, as upstream; metrics/shared_pod_metrics.hpp).
    std::chrono::milliseconds metrics_read_window{1000};
    /// How often a predictive HPAPlus with a Recorded history writes it to its HPAPlusCheckpoint.
    std::chrono::milliseconds prediction_checkpoint_interval{60000};
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
    /// Objects split into this many shards, each a Lease `<lease name>-shard-<i>` the replicas
    /// share out (controller/runtime/shards.hpp); 1 = one Lease, one acting replica.
    int shards = 1;
    /// Lanes of workers, each on its own thread (controller/runtime/manager.hpp); `hpaplus
    /// controller` defaults to the cores it may use, at most 8.
    int threads = 1;
    /// Address of /healthz, /readyz and /metrics ("" = off).
    std::string ops_listen = "0.0.0.0:8080";
    /// After SIGTERM, how long in-flight reconciles may take before the process exits.
    std::chrono::milliseconds shutdown_grace{10000};
    /// The wall clock decisions, CronHPA schedules and written times read (not a flag: tests step
    /// it to show that windows and periods follow the steady clock, and schedules the wall clock).
    core::time_point (*wall_clock)() = core::wall_now;
};

} // namespace hpaplus::controller
