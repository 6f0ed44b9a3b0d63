// cli/controller_flags.cpp — `hpaplus controller` flags: one table (cli/flags) of name, help and
// the field each sets, so the parser and the help text cannot disagree.
#include "cli/controller_flags.hpp"

#include "cli/client_flags.hpp"
#include "cli/flags.hpp"
#include "cli/log_flags.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace hpaplus::cli {
using namespace controller;
namespace {

using core::error_message;

// --feature-gates as component-base parses it: comma-separated key=bool pairs, each key a gate of
// this release, the value true or false in any case (Go's ParseBool spellings too).
std::optional<std::string> parse_feature_gates(std::string_view text,
                                               policy::controller_config& config) {
    while (!text.empty()) {
        const auto comma = text.find(',');
        const std::string_view pair = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        if (pair.empty()) continue;
        const auto eq = pair.find('=');
        if (eq == std::string_view::npos) return "missing bool value for " + std::string(pair);
        const std::string_view key = pair.substr(0, eq), value = pair.substr(eq + 1);
        std::optional<bool> on;
        for (const char* t : {"1", "t", "T", "TRUE", "true", "True"})
            if (value == t) on = true;
        for (const char* f : {"0", "f", "F", "FALSE", "false", "False"})
            if (value == f) on = false;
        if (!on)
            return "invalid value of " + std::string(key) + "=" + std::string(value) +
                   ": want true or false";
        if (key != "HPAScaleToZero")
            return "unrecognized feature gate: " + std::string(key) + " (known: HPAScaleToZero)";
        config.scale_to_zero = *on;
    }
    return std::nullopt;
}

void add_controller_flags(flag_table& flags, controller_options& o) {
    using namespace std::chrono_literals;
    flags.text("kubeconfig", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)",
               o.kubeconfig, false);
    flags.text("context", "kubeconfig context (default: its current-context)", o.context, false);
    add_log_flags(flags, o.log_level, o.log_format);
    flags.text("namespace", "watch only this namespace (default: all)", o.watch_namespace, false);
    flags.duration("default-sync-period",
                   "period of an autoscaler without its own (spec.syncPeriodSeconds, annotation)",
                   o.default_sync_period, 1s);
    flags.duration("horizontal-pod-autoscaler-sync-period",
                   "the same as --default-sync-period (upstream flag)", o.default_sync_period, 1s);
    flags.number("horizontal-pod-autoscaler-tolerance", "controller-wide tolerance (upstream flag)",
                 o.policy.tolerance);
    flags.duration("horizontal-pod-autoscaler-downscale-stabilization",
                   "scale-down window without spec.behavior (upstream flag)",
                   o.policy.downscale_stabilization_window, 0s);
    flags.duration("horizontal-pod-autoscaler-cpu-initialization-period",
                   "CPU samples of pods younger than this are handled as unready (upstream flag)",
                   o.policy.cpu_initialization_period, 0s);
    flags.duration("horizontal-pod-autoscaler-initial-readiness-delay",
                   "readiness flips within this time after start are ignored (upstream flag)",
                   o.policy.initial_readiness_delay, 0s);
    flags.custom("feature-gates",
                 "kube-controller-manager's gates for native HPAs, as key=bool pairs: "
                 "HPAScaleToZero (alpha, off: no ScaledToZero condition, zero replicas disable "
                 "scaling; HPAPlus objects always have it on)",
                 "", [&o](std::string_view v) { return parse_feature_gates(v, o.policy); });
    flags.integer("scale-write-attempts",
                  "attempts to write /scale after conflicts, each on fresh data",
                  o.scale_write_attempts, 1, 100);
    flags.integer("cron-history-limit", "runs each CronHPA keeps in status.history",
                  o.cron_history_limit, 1, 100);
    flags.duration("cron-max-sleep",
                   "longest a CronHPA worker sleeps before it checks the wall clock again",
                   o.cron_max_sleep, 1s);
    flags.duration("event-aggregation-window",
                   "identical Events within this window update one Event",
                   o.event_aggregation_window, 0s);
    flags.duration("cache-sync-timeout", "start-up fails when the first lists take longer",
                   o.cache_sync_timeout);
    flags.duration("watch-timeout", "server-side timeout of each watch (then it is resumed)",
                   o.informer.watch_timeout, 1s);
    flags.duration("watch-idle-timeout",
                   "a watch with no event or bookmark for this long is reconnected",
                   o.informer.idle_timeout, 1s);
    flags.duration("relist-max-backoff",
                   "longest wait between failed lists or watches (doubling from 800ms); past 5s "
                   "without a working one, nothing is decided until a full list",
                   o.informer.max_backoff, 1s);
    flags.boolean("leader-elect", "elect a leader on a Lease so only one replica acts",
                  o.leader.enabled);
    flags.custom("native-hpas",
                 "which autoscaling/v2 HorizontalPodAutoscalers to reconcile: all, annotated "
                 "(autoscaling.hpaplus.io/controller: hpaplus) or none",
                 "all", [&o](std::string_view v) -> std::optional<std::string> {
                     if (v == "all")
                         o.native_hpas.selection = native_hpa_selection::all;
                     else if (v == "annotated")
                         o.native_hpas.selection = native_hpa_selection::annotated;
                     else if (v == "none")
                         o.native_hpas.selection = native_hpa_selection::none;
                     else
                         return "want all, annotated or none";
                     return std::nullopt;
                 });
    flags.duration("native-hpa-stand-back-window",
                   "an HPA whose status another controller wrote this recently is left alone",
                   o.native_hpas.foreign_status_window, 0s);
    flags.boolean("native-hpa-force-takeover",
                  "reconcile HPAs even when another controller wrote their status recently",
                  o.native_hpas.force_takeover);
    flags.text("native-hpa-event-source",
               "the source.component of native HPAs' Events (kube-controller-manager's name by "
               "default, so event filters keyed on it keep working)",
               o.native_hpas.event_source);
    flags.boolean("cronhpa",
                  "run CronHPA objects (watched for until crds/cronhpa.yaml is installed)",
                  o.enable_cronhpa);
    flags.duration("prediction-checkpoint-interval",
                   "how often a Recorded prediction history is written to its HPAPlusCheckpoint",
                   o.prediction_checkpoint_interval, 100ms);
    flags.boolean("enable-vertical",
                  "run VPAPlus objects (watched for until crds/vpaplus.yaml is installed)",
                  o.enable_vertical);
    flags.duration("vertical-interval", "how often each VPAPlus samples metrics and updates pods",
                   o.vertical.interval, 100ms);
    flags.duration("vertical-checkpoint-interval",
                   "how often each VPAPlus writes its histograms to VPAPlusCheckpoint objects",
                   o.vertical.checkpoint_interval, 100ms);
    flags.integer("vertical-min-replicas",
                  "pods a workload needs before any is updated (upstream --min-replicas)",
                  o.vertical.min_replicas, 1, 1000000);
    flags.number("vertical-eviction-tolerance",
                 "fraction of a workload's replicas that may be resizing or evicted at once",
                 o.vertical.eviction_tolerance);
    flags.duration("vertical-deferred-timeout",
                   "a resize Deferred this long falls back to eviction",
                   o.vertical.deferred_timeout, 1s);
    flags.duration("vertical-in-progress-timeout",
                   "a resize in progress this long falls back to eviction",
                   o.vertical.in_progress_timeout, 1s);
    flags.duration("vertical-lifetime-threshold",
                   "pods older than this are updated for a change of at least 10 % (upstream 12h)",
                   o.vertical.lifetime_threshold, 1s);
    flags.listen(
        "vertical-webhook-listen",
        "address of the pod admission webhook, served over TLS at /mutate-pods (\"\" = off)",
        o.vertical.webhook_listen, "0.0.0.0:8443", true);
    flags.text("vertical-webhook-cert-file", "PEM serving certificate of the admission webhook",
               o.vertical.webhook_cert_file, false);
    flags.text("vertical-webhook-key-file", "PEM private key of the admission webhook",
               o.vertical.webhook_key_file, false);
    flags.text("vertical-history-backend",
               "prometheus backend (of --metric-backends) a new VPAPlus's history is read from",
               o.vertical.history_backend, false);
    flags.duration("vertical-history-length", "how far back that history goes (upstream 8d)",
                   o.vertical.history_length, 1s);
    flags.duration("vertical-history-resolution",
                   "one history sample per this much time (upstream 1h)",
                   o.vertical.history_resolution, 1s);
    flags.text("vertical-record-samples",
               "append every sample a VPAPlus feeds to its history, as JSON lines for "
               "`hpaplus recommend` (\"\" = none)",
               o.vertical.record_samples, false);
    flags.text("metric-backends",
               "file naming the Prometheus and monitor backends metrics may use (\"\" = none)",
               o.metric_backends, false);
    flags.duration("metrics-read-window",
                   "autoscalers of one namespace share one PodMetrics read per this window (0 = "
                   "one read per reconcile, as upstream)",
                   o.metrics_read_window, 0s);
    flags.integer("threads",
                  "lanes of workers, each on its own thread, objects spread over them by a hash "
                  "of their key; the default is the cores this process may use (CPU affinity, "
                  "cgroup CPU quota), at most 8",
                  o.threads, 1, 64);
    flags.integer(
        "shards",
        "split the objects into this many shards, each a Lease <leader-elect-name>-shard-<i> "
        "that the replicas share out (1 = one Lease, one acting replica)",
        o.shards, 1, 1024);
    flags.text("leader-elect-namespace", "namespace of the Lease", o.leader.lease_namespace);
    flags.text("leader-elect-name", "name of the Lease", o.leader.lease_name);
    flags.text("leader-elect-identity", "this replica's name in the Lease (default: hostname_pid)",
               o.leader.identity, false);
    flags.duration("leader-elect-lease-duration", "how long a Lease holds without renewal",
                   o.leader.lease_duration);
    flags.duration("leader-elect-renew-deadline",
                   "the leader stops acting when it could not renew for this long",
                   o.leader.renew_deadline);
    flags.duration("leader-elect-retry-period", "how often the Lease is tried and renewed",
                   o.leader.retry_period);
    flags.listen("ops-listen",
                 "address of /healthz, /readyz, /metrics and /debug/objects (\"\" = off)",
                 o.ops_listen, "0.0.0.0:8080", true);
    flags.duration("shutdown-grace", "after SIGTERM, how long in-flight reconciles may take",
                   o.shutdown_grace, 0s);
    add_client_flags(flags, o.client);
}

// Rules between flags, once all are read.
core::outcome<bool> check_combinations(const controller_options& o) {
    if (!o.vertical.webhook_listen.empty() &&
        (o.vertical.webhook_cert_file.empty() || o.vertical.webhook_key_file.empty()))
        return error_message("--vertical-webhook-listen needs --vertical-webhook-cert-file and "
                             "--vertical-webhook-key-file");
    if (!o.vertical.history_backend.empty() && (!o.enable_vertical || o.metric_backends.empty()))
        return error_message("--vertical-history-backend needs --enable-vertical and "
                             "--metric-backends");
    if (o.vertical.history_length / o.vertical.history_resolution > 11000)
        return error_message("--vertical-history-length / --vertical-history-resolution must be "
                             "at most 11000 points (Prometheus' limit per series)");
    if (!o.vertical.record_samples.empty() && !o.enable_vertical)
        return error_message("--vertical-record-samples needs --enable-vertical");
    if (!o.vertical.webhook_listen.empty() && !o.enable_vertical)
        return error_message("--vertical-webhook-listen needs --enable-vertical");
    if (o.shards > 1 && !o.leader.enabled)
        return error_message("--shards needs --leader-elect: the shards are Leases");
    if (o.leader.renew_deadline >= o.leader.lease_duration)
        return error_message("--leader-elect-renew-deadline must be shorter than "
                             "--leader-elect-lease-duration");
    if (o.leader.retry_period >= o.leader.renew_deadline)
        return error_message("--leader-elect-retry-period must be shorter than "
                             "--leader-elect-renew-deadline");
    return true;
}

// The CPU quota of this process's cgroup in whole cores, rounded up (0: none): cgroup v2's
// cpu.max ("max 100000" or "200000 100000"), else v1's cfs quota and period. A container with
// limits.cpu 2 runs on every core of its node but gets two cores' time.
int cgroup_cores() {
    double quota = 0, period = 0;
    if (std::ifstream v2("/sys/fs/cgroup/cpu.max"); v2) {
        std::string q;
        if (!(v2 >> q >> period) || q == "max") return 0;
        quota = std::strtod(q.c_str(), nullptr);
    } else {
        std::ifstream q("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
        std::ifstream p("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
        if (!(q >> quota) || !(p >> period)) return 0;
    }
    if (quota <= 0 || period <= 0) return 0;
    return static_cast<int>(std::ceil(quota / period));
}

// --threads' default: the cores this process may use — its CPU affinity (a cpuset), and its
// cgroup's CPU quota (a container's CPU limit) — at most 8.
int default_threads() {
    cpu_set_t set;
    CPU_ZERO(&set);
    int cores = 0;
    if (::sched_getaffinity(0, sizeof set, &set) == 0) cores = CPU_COUNT(&set);
    if (cores <= 0) cores = static_cast<int>(std::thread::hardware_concurrency());
    if (const int quota = cgroup_cores(); quota > 0) cores = std::min(cores, quota);
    return std::clamp(cores, 1, 8);
}

} // namespace

core::outcome<controller_options> parse_controller_flags(const std::vector<std::string>& args,
                                                         bool& help) {
    controller_options o;
    o.threads = default_threads();
    flag_table flags("hpaplus controller");
    add_controller_flags(flags, o);
    auto parsed = flags.parse(args);
    if (!parsed) return parsed.error();
    help = *parsed;
    if (help) return o;
    if (auto ok = check_combinations(o); !ok) return ok.error();
    return o;
}

std::string controller_flags_help() {
    controller_options defaults;
    defaults.threads = default_threads();
    flag_table flags("hpaplus controller");
    add_controller_flags(flags, defaults);
    return flags.help();
}

} // namespace hpaplus::cli
