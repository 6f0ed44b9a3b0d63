// controller/options.cpp — `hpaplus controller` flags: one table of name, help and setter, so the
// parser and the help text cannot disagree.
#include "controller/options.hpp"

#include "core/duration.hpp"
#include "kube/client_flags.hpp"

#include <charconv>
#include <cmath>
#include <functional>

namespace hpaplus::controller {
namespace {

using core::error_message;
using setter = std::function<core::outcome<bool>(std::string_view, controller_options&)>;

struct flag {
    const char* name;
    const char* help;
    std::function<std::string(const controller_options&)> current; ///< the default, for help
    setter set;
};

core::outcome<bool> bad(std::string_view name, const std::string& want, std::string_view value) {
    return error_message("--" + std::string(name) + ": want " + want + ", got \"" +
                         std::string(value) + "\"");
}

template <class Duration>
setter duration_flag(const char* name, Duration controller_options::*field, bool allow_zero) {
    return [=](std::string_view value, controller_options& o) -> core::outcome<bool> {
        const auto d = core::parse_go_duration(value);
        if (!d || *d < std::chrono::nanoseconds::zero() ||
            (!allow_zero && *d == std::chrono::nanoseconds::zero()))
            return bad(name, "a positive duration such as 15s", value);
        o.*field = std::chrono::ceil<Duration>(*d);
        return true;
    };
}

template <class Duration>
setter leader_duration(const char* name, Duration leader_election_options::*field) {
    return [=](std::string_view value, controller_options& o) -> core::outcome<bool> {
        const auto d = core::parse_go_duration(value);
        if (!d || *d <= std::chrono::nanoseconds::zero())
            return bad(name, "a positive duration such as 15s", value);
        o.leader.*field = std::chrono::ceil<Duration>(*d);
        return true;
    };
}

setter seconds_flag(const char* name, std::chrono::seconds policy::controller_config::*field) {
    return [=](std::string_view value, controller_options& o) -> core::outcome<bool> {
        const auto d = core::parse_go_duration(value);
        if (!d || *d < std::chrono::nanoseconds::zero())
            return bad(name, "a duration such as 5m0s", value);
        o.policy.*field = std::chrono::ceil<std::chrono::seconds>(*d);
        return true;
    };
}

setter number_flag(const char* name, double policy::controller_config::*field) {
    return [=](std::string_view value, controller_options& o) -> core::outcome<bool> {
        double v = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc{} || end != value.data() + value.size() || !std::isfinite(v) || v < 0)
            return bad(name, "a number >= 0", value);
        o.policy.*field = v;
        return true;
    };
}

setter string_flag(std::string controller_options::*field) {
    return [=](std::string_view value, controller_options& o) -> core::outcome<bool> {
        o.*field = std::string(value);
        return true;
    };
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

const std::vector<flag>& flags() {
    static const std::vector<flag> table = {
        {"kubeconfig", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)",
         [](auto&) { return std::string(); }, string_flag(&controller_options::kubeconfig)},
        {"context", "kubeconfig context (default: its current-context)",
         [](auto&) { return std::string(); }, string_flag(&controller_options::context)},
        {"namespace", "watch only this namespace (default: all)",
         [](auto&) { return std::string(); }, string_flag(&controller_options::watch_namespace)},
        {"default-sync-period", "period of an HPAPlus without spec.syncPeriodSeconds",
         [](auto& o) { return show(o.default_sync_period); },
         duration_flag("default-sync-period", &controller_options::default_sync_period, false)},
        {"horizontal-pod-autoscaler-tolerance", "controller-wide tolerance (upstream flag)",
         [](auto& o) { return show(o.policy.tolerance); },
         number_flag("horizontal-pod-autoscaler-tolerance", &policy::controller_config::tolerance)},
        {"horizontal-pod-autoscaler-downscale-stabilization",
         "scale-down window without spec.behavior (upstream flag)",
         [](auto& o) { return show(o.policy.downscale_stabilization_window); },
         seconds_flag("horizontal-pod-autoscaler-downscale-stabilization",
                      &policy::controller_config::downscale_stabilization_window)},
        {"horizontal-pod-autoscaler-cpu-initialization-period",
         "CPU samples of pods younger than this are handled as unready (upstream flag)",
         [](auto& o) { return show(o.policy.cpu_initialization_period); },
         seconds_flag("horizontal-pod-autoscaler-cpu-initialization-period",
                      &policy::controller_config::cpu_initialization_period)},
        {"horizontal-pod-autoscaler-initial-readiness-delay",
         "readiness flips within this time after start are ignored (upstream flag)",
         [](auto& o) { return show(o.policy.initial_readiness_delay); },
         seconds_flag("horizontal-pod-autoscaler-initial-readiness-delay",
                      &policy::controller_config::initial_readiness_delay)},
        {"scale-write-attempts", "attempts to write /scale after conflicts, each on fresh data",
         [](auto& o) { return std::to_string(o.scale_write_attempts); },
         [](std::string_view v, controller_options& o) -> core::outcome<bool> {
             int n = 0;
             const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
             if (ec != std::errc{} || end != v.data() + v.size() || n < 1 || n > 100)
                 return bad("scale-write-attempts", "an integer from 1 to 100", v);
             o.scale_write_attempts = n;
             return true;
         }},
        {"event-aggregation-window", "identical Events within this window update one Event",
         [](auto& o) { return show(o.event_aggregation_window); },
         duration_flag("event-aggregation-window", &controller_options::event_aggregation_window,
                       true)},
        {"cache-sync-timeout", "start-up fails when the first lists take longer",
         [](auto& o) { return show(o.cache_sync_timeout); },
         duration_flag("cache-sync-timeout", &controller_options::cache_sync_timeout, false)},
        {"watch-timeout", "server-side timeout of each watch (then it is resumed)",
         [](auto& o) { return show(o.informer.watch_timeout); },
         [](std::string_view v, controller_options& o) -> core::outcome<bool> {
             const auto d = core::parse_go_duration(v);
             if (!d || *d < std::chrono::seconds(1))
                 return bad("watch-timeout", "a duration of at least 1s", v);
             o.informer.watch_timeout = std::chrono::ceil<std::chrono::seconds>(*d);
             return true;
         }},
        {"watch-idle-timeout", "a watch with no event or bookmark for this long is reconnected",
         [](auto& o) { return show(o.informer.idle_timeout); },
         [](std::string_view v, controller_options& o) -> core::outcome<bool> {
             const auto d = core::parse_go_duration(v);
             if (!d || *d < std::chrono::seconds(1))
                 return bad("watch-idle-timeout", "a duration of at least 1s", v);
             o.informer.idle_timeout = std::chrono::ceil<std::chrono::milliseconds>(*d);
             return true;
         }},
        {"relist-max-backoff", "longest wait between failed lists or watches (doubling from 800ms)",
         [](auto& o) { return show(o.informer.max_backoff); },
         [](std::string_view v, controller_options& o) -> core::outcome<bool> {
             const auto d = core::parse_go_duration(v);
             if (!d || *d < std::chrono::seconds(1))
                 return bad("relist-max-backoff", "a duration of at least 1s", v);
             o.informer.max_backoff = std::chrono::ceil<std::chrono::milliseconds>(*d);
             return true;
         }},
        {"leader-elect", "elect a leader on a Lease so only one replica acts (true|false)",
         [](auto& o) { return std::string(o.leader.enabled ? "true" : "false"); },
         [](std::string_view v, controller_options& o) -> core::outcome<bool> {
             if (v != "true" && v != "false") return bad("leader-elect", "true or false", v);
             o.leader.enabled = v == "true";
             return true;
         }},
        {"leader-elect-namespace", "namespace of the Lease",
         [](auto& o) { return o.leader.lease_namespace; },
         [](std::string_view v, controller_options& o) -> core::outcome<bool> {
             o.leader.lease_namespace = std::string(v);
             return true;
         }},
        {"leader-elect-name", "name of the Lease", [](auto& o) { return o.leader.lease_name; },
         [](std::string_view v, controller_options& o) -> core::outcome<bool> {
             o.leader.lease_name = std::string(v);
             return true;
         }},
        {"leader-elect-identity", "this replica's name in the Lease (default: hostname_pid)",
         [](auto&) { return std::string(); },
         [](std::string_view v, controller_options& o) -> core::outcome<bool> {
             o.leader.identity = std::string(v);
             return true;
         }},
        {"leader-elect-lease-duration", "how long a Lease holds without renewal",
         [](auto& o) { return show(o.leader.lease_duration); },
         leader_duration("leader-elect-lease-duration", &leader_election_options::lease_duration)},
        {"leader-elect-renew-deadline",
         "the leader stops acting when it could not renew for this long",
         [](auto& o) { return show(o.leader.renew_deadline); },
         leader_duration("leader-elect-renew-deadline", &leader_election_options::renew_deadline)},
        {"leader-elect-retry-period", "how often the Lease is tried and renewed",
         [](auto& o) { return show(o.leader.retry_period); },
         leader_duration("leader-elect-retry-period", &leader_election_options::retry_period)},
        {"ops-listen", "address of /healthz, /readyz and /metrics (\"\" = off)",
         [](auto& o) { return o.ops_listen; },
         [](std::string_view v, controller_options& o) -> core::outcome<bool> {
             std::string address;
             unsigned short port = 0;
             if (!v.empty() && !split_listen(v, address, port))
                 return bad("ops-listen", "ADDR:PORT such as 0.0.0.0:8080", v);
             o.ops_listen = std::string(v);
             return true;
         }},
        {"shutdown-grace", "after SIGTERM, how long in-flight reconciles may take",
         [](auto& o) { return show(o.shutdown_grace); },
         duration_flag("shutdown-grace", &controller_options::shutdown_grace, true)},
    };
    return table;
}

} // namespace

bool split_listen(std::string_view text, std::string& address, unsigned short& port) {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return false;
    address = std::string(text.substr(0, colon));
    if (address.size() > 1 && address.front() == '[' && address.back() == ']')
        address = address.substr(1, address.size() - 2);
    if (address.empty()) address = "0.0.0.0";
    const std::string_view p = text.substr(colon + 1);
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), value);
    if (p.empty() || ec != std::errc{} || end != p.data() + p.size() || value > 65535) return false;
    port = static_cast<unsigned short>(value);
    return true;
}

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

} // namespace hpaplus::controller
