// cli/controller_flags.cpp — `hpaplus controller` flags: one table of name, help and setter, so the
// parser and the help text cannot disagree.
#include "cli/controller_flags.hpp"

#include "core/duration.hpp"
#include "kube/client_flags.hpp"
#include "net/listen_address.hpp"

#include <charconv>
#include <cmath>
#include <functional>

namespace hpaplus::cli {
using namespace controller;
namespace {

using core::error_message;
using setter = std::function<core::outcome<bool>(std::string_view, controller_options&)>;

struct flag {
    const char* name;
    const char* help;
    std::function<std::string(const controller_options&)> current; ///< the default, for help
    setter set;
    bool boolean = false; ///< `--name` alone means true
};

core::outcome<bool> bad(std::string_view name, const std::string& want, std::string_view value) {
    return error_message("--" + std::string(name) + ": want " + want + ", got \"" +
                         std::string(value) + "\"");
}

template <class Rep, class Period> std::string show(std::chrono::duration<Rep, Period> d) {
    return core::format_go_duration(std::chrono::duration_cast<std::chrono::nanoseconds>(d));
}

std::string show(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s;
}

// Each helper takes an accessor `[](auto& o) -> auto& { return o.field; }` (usable on a const
// object for the help text and on a mutable one for parsing).

template <class Access>
flag duration_flag(const char* name, const char* help, Access field,
                   std::chrono::nanoseconds min = std::chrono::nanoseconds(1)) {
    using duration = std::remove_cvref_t<decltype(field(std::declval<controller_options&>()))>;
    return {name, help, [field](const controller_options& o) { return show(field(o)); },
            [name, field, min](std::string_view v, controller_options& o) -> core::outcome<bool> {
                const auto d = core::parse_go_duration(v);
                if (!d || *d < min)
                    return bad(name,
                               "a duration of at least " + core::format_go_duration(min) +
                                   " such as 15s",
                               v);
                field(o) = std::chrono::ceil<duration>(*d);
                return true;
            }};
}

template <class Access>
flag text_flag(const char* name, const char* help, Access field, bool show_default = true) {
    return {name, help,
            [field, show_default](const controller_options& o) {
                return show_default ? std::string(field(o)) : std::string();
            },
            [field](std::string_view v, controller_options& o) -> core::outcome<bool> {
                field(o) = std::string(v);
                return true;
            }};
}

// ADDR:PORT, or "" for off.
template <class Access>
flag listen_flag(const char* name, const char* help, Access field, const char* example) {
    return {
        name, help, [field](const controller_options& o) { return std::string(field(o)); },
        [name, field, example](std::string_view v, controller_options& o) -> core::outcome<bool> {
            std::string address;
            unsigned short port = 0;
            if (!v.empty() && !net::split_listen(v, address, port))
                return bad(name, std::string("ADDR:PORT such as ") + example, v);
            field(o) = std::string(v);
            return true;
        }};
}

template <class Access> flag number_flag(const char* name, const char* help, Access field) {
    return {name, help, [field](const controller_options& o) { return show(field(o)); },
            [name, field](std::string_view v, controller_options& o) -> core::outcome<bool> {
                double x = 0;
                const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
                if (ec != std::errc{} || end != v.data() + v.size() || !std::isfinite(x) || x < 0)
                    return bad(name, "a number >= 0", v);
                field(o) = x;
                return true;
            }};
}

template <class Access> flag bool_flag(const char* name, const char* help, Access field) {
    return {
        name, help,
        [field](const controller_options& o) { return std::string(field(o) ? "true" : "false"); },
        [name, field](std::string_view v, controller_options& o) -> core::outcome<bool> {
            if (v != "true" && v != "false") return bad(name, "true or false", v);
            field(o) = v == "true";
            return true;
        },
        true};
}

template <class Access>
flag integer_flag(const char* name, const char* help, Access field, int min, int max) {
    return {
        name, help, [field](const controller_options& o) { return std::to_string(field(o)); },
        [name, field, min, max](std::string_view v, controller_options& o) -> core::outcome<bool> {
            int n = 0;
            const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec != std::errc{} || end != v.data() + v.size() || n < min || n > max)
                return bad(name,
                           "an integer from " + std::to_string(min) + " to " + std::to_string(max),
                           v);
            field(o) = n;
            return true;
        }};
}

const std::vector<flag>& flags() {
    using namespace std::chrono_literals;
    static const std::vector<flag> table = {
        text_flag(
            "kubeconfig", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)",
            [](auto& o) -> auto& { return o.kubeconfig; }, false),
        text_flag(
            "context", "kubeconfig context (default: its current-context)",
            [](auto& o) -> auto& { return o.context; }, false),
        text_flag(
            "namespace", "watch only this namespace (default: all)",
            [](auto& o) -> auto& { return o.watch_namespace; }, false),
        duration_flag(
            "default-sync-period", "period of an HPAPlus without spec.syncPeriodSeconds",
            [](auto& o) -> auto& { return o.default_sync_period; }, 1s),
        number_flag(
            "horizontal-pod-autoscaler-tolerance", "controller-wide tolerance (upstream flag)",
            [](auto& o) -> auto& { return o.policy.tolerance; }),
        duration_flag(
            "horizontal-pod-autoscaler-downscale-stabilization",
            "scale-down window without spec.behavior (upstream flag)",
            [](auto& o) -> auto& { return o.policy.downscale_stabilization_window; }, 0s),
        duration_flag(
            "horizontal-pod-autoscaler-cpu-initialization-period",
            "CPU samples of pods younger than this are handled as unready (upstream flag)",
            [](auto& o) -> auto& { return o.policy.cpu_initialization_period; }, 0s),
        duration_flag(
            "horizontal-pod-autoscaler-initial-readiness-delay",
            "readiness flips within this time after start are ignored (upstream flag)",
            [](auto& o) -> auto& { return o.policy.initial_readiness_delay; }, 0s),
        integer_flag(
            "scale-write-attempts", "attempts to write /scale after conflicts, each on fresh data",
            [](auto& o) -> auto& { return o.scale_write_attempts; }, 1, 100),
        integer_flag(
            "cron-history-limit", "runs each CronHPA keeps in status.history",
            [](auto& o) -> auto& { return o.cron_history_limit; }, 1, 100),
        duration_flag(
            "cron-max-sleep",
            "longest a CronHPA worker sleeps before it checks the wall clock again",
            [](auto& o) -> auto& { return o.cron_max_sleep; }, 1s),
        duration_flag(
            "event-aggregation-window", "identical Events within this window update one Event",
            [](auto& o) -> auto& { return o.event_aggregation_window; }, 0s),
        duration_flag(
            "cache-sync-timeout", "start-up fails when the first lists take longer",
            [](auto& o) -> auto& { return o.cache_sync_timeout; }),
        duration_flag(
            "watch-timeout", "server-side timeout of each watch (then it is resumed)",
            [](auto& o) -> auto& { return o.informer.watch_timeout; }, 1s),
        duration_flag(
            "watch-idle-timeout", "a watch with no event or bookmark for this long is reconnected",
            [](auto& o) -> auto& { return o.informer.idle_timeout; }, 1s),
        duration_flag(
            "relist-max-backoff",
            "longest wait between failed lists or watches (doubling from 800ms)",
            [](auto& o) -> auto& { return o.informer.max_backoff; }, 1s),
        bool_flag(
            "leader-elect", "elect a leader on a Lease so only one replica acts",
            [](auto& o) -> auto& { return o.leader.enabled; }),
        bool_flag(
            "cronhpa", "run CronHPA objects (needs crds/cronhpa.yaml installed)",
            [](auto& o) -> auto& { return o.enable_cronhpa; }),
        bool_flag(
            "enable-vertical", "run VPAPlus objects (needs crds/vpaplus.yaml installed)",
            [](auto& o) -> auto& { return o.enable_vertical; }),
        duration_flag(
            "vertical-interval", "how often each VPAPlus samples metrics and updates pods",
            [](auto& o) -> auto& { return o.vertical.interval; }, 100ms),
        duration_flag(
            "vertical-checkpoint-interval",
            "how often each VPAPlus writes its histograms to VPAPlusCheckpoint objects",
            [](auto& o) -> auto& { return o.vertical.checkpoint_interval; }, 100ms),
        integer_flag(
            "vertical-min-replicas",
            "pods a workload needs before any is updated (upstream --min-replicas)",
            [](auto& o) -> auto& { return o.vertical.min_replicas; }, 1, 1000000),
        number_flag(
            "vertical-eviction-tolerance",
            "fraction of a workload's replicas that may be resizing or evicted at once",
            [](auto& o) -> auto& { return o.vertical.eviction_tolerance; }),
        duration_flag(
            "vertical-deferred-timeout", "a resize Deferred this long falls back to eviction",
            [](auto& o) -> auto& { return o.vertical.deferred_timeout; }, 1s),
        duration_flag(
            "vertical-in-progress-timeout", "a resize in progress this long falls back to eviction",
            [](auto& o) -> auto& { return o.vertical.in_progress_timeout; }, 1s),
        duration_flag(
            "vertical-lifetime-threshold",
            "pods older than this are updated for a change of at least 10 % (upstream 12h)",
            [](auto& o) -> auto& { return o.vertical.lifetime_threshold; }, 1s),
        listen_flag(
            "vertical-webhook-listen",
            "address of the pod admission webhook, served over TLS at /mutate-pods (\"\" = off)",
            [](auto& o) -> auto& { return o.vertical.webhook_listen; }, "0.0.0.0:8443"),
        text_flag(
            "vertical-webhook-cert-file", "PEM serving certificate of the admission webhook",
            [](auto& o) -> auto& { return o.vertical.webhook_cert_file; }, false),
        text_flag(
            "vertical-webhook-key-file", "PEM private key of the admission webhook",
            [](auto& o) -> auto& { return o.vertical.webhook_key_file; }, false),
        text_flag(
            "vertical-history-backend",
            "prometheus backend (of --metric-backends) a new VPAPlus's history is read from",
            [](auto& o) -> auto& { return o.vertical.history_backend; }, false),
        duration_flag(
            "vertical-history-length", "how far back that history goes (upstream 8d)",
            [](auto& o) -> auto& { return o.vertical.history_length; }, 1s),
        duration_flag(
            "vertical-history-resolution", "one history sample per this much time (upstream 1h)",
            [](auto& o) -> auto& { return o.vertical.history_resolution; }, 1s),
        text_flag(
            "metric-backends",
            "file naming the Prometheus and monitor backends metrics may use (\"\" = none)",
            [](auto& o) -> auto& { return o.metric_backends; }, false),
        text_flag(
            "leader-elect-namespace", "namespace of the Lease",
            [](auto& o) -> auto& { return o.leader.lease_namespace; }),
        text_flag(
            "leader-elect-name", "name of the Lease",
            [](auto& o) -> auto& { return o.leader.lease_name; }),
        text_flag(
            "leader-elect-identity", "this replica's name in the Lease (default: hostname_pid)",
            [](auto& o) -> auto& { return o.leader.identity; }, false),
        duration_flag(
            "leader-elect-lease-duration", "how long a Lease holds without renewal",
            [](auto& o) -> auto& { return o.leader.lease_duration; }),
        duration_flag(
            "leader-elect-renew-deadline",
            "the leader stops acting when it could not renew for this long",
            [](auto& o) -> auto& { return o.leader.renew_deadline; }),
        duration_flag(
            "leader-elect-retry-period", "how often the Lease is tried and renewed",
            [](auto& o) -> auto& { return o.leader.retry_period; }),
        listen_flag(
            "ops-listen", "address of /healthz, /readyz and /metrics (\"\" = off)",
            [](auto& o) -> auto& { return o.ops_listen; }, "0.0.0.0:8080"),
        duration_flag(
            "shutdown-grace", "after SIGTERM, how long in-flight reconciles may take",
            [](auto& o) -> auto& { return o.shutdown_grace; }, 0s),
    };
    return table;
}

bool is_boolean(std::string_view name) {
    for (const auto& f : flags())
        if (name == f.name) return f.boolean;
    return false;
}

} // namespace

core::outcome<controller_options> parse_controller_flags(const std::vector<std::string>& args,
                                                         bool& help) {
    controller_options o;
    help = false;
    for (std::size_t i = 1; i < args.size(); ++i) {
        std::string_view arg = args[i];
        if (arg == "--help" || arg == "-h") {
            help = true;
            return o;
        }
        if (arg.substr(0, 2) != "--")
            return error_message("unexpected argument '" + std::string(arg) +
                                 "' (see 'hpaplus controller --help')");
        arg.remove_prefix(2);
        std::string_view name = arg;
        std::string value;
        if (const auto eq = arg.find('='); eq != std::string_view::npos) {
            name = arg.substr(0, eq);
            value = std::string(arg.substr(eq + 1));
        } else if (is_boolean(name) &&
                   (i + 1 >= args.size() || std::string_view(args[i + 1]).substr(0, 2) == "--")) {
            value = "true";
        } else if (i + 1 < args.size()) {
            value = args[++i];
        } else {
            return error_message("--" + std::string(name) + ": a value is required");
        }
        auto client = kube::apply_client_flag(name, value, o.client);
        if (!client) return client.error();
        if (*client) continue;
        bool known = false;
        for (const auto& f : flags()) {
            if (name != f.name) continue;
            known = true;
            auto r = f.set(value, o);
            if (!r) return r.error();
        }
        if (!known)
            return error_message("unknown flag --" + std::string(name) +
                                 " (see 'hpaplus controller --help')");
    }
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
    if (!o.vertical.webhook_listen.empty() && !o.enable_vertical)
        return error_message("--vertical-webhook-listen needs --enable-vertical");
    if (o.leader.renew_deadline >= o.leader.lease_duration)
        return error_message("--leader-elect-renew-deadline must be shorter than "
                             "--leader-elect-lease-duration");
    if (o.leader.retry_period >= o.leader.renew_deadline)
        return error_message("--leader-elect-retry-period must be shorter than "
                             "--leader-elect-renew-deadline");
    return o;
}

std::string controller_flags_help() {
    const controller_options defaults;
    std::string out;
    for (const auto& f : flags()) {
        std::string line = "  --" + std::string(f.name) + "=VALUE\n        " + f.help;
        const std::string d = f.current(defaults);
        if (!d.empty()) line += " (default " + d + ")";
        out += line + "\n";
    }
    return out + "\nAPI client:\n" + kube::client_flags_help();
}

} // namespace hpaplus::cli
