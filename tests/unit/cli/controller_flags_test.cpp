// `hpaplus controller` flags: defaults, every flag setting its field, bad values naming the flag,
// and the help text.
#include "cli/controller_flags.hpp"

#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>

namespace hpaplus::cli {
using controller::controller_options;
namespace {

using namespace std::chrono_literals;

core::outcome<controller_options> parse(std::vector<std::string> args) {
    args.insert(args.begin(), "controller");
    bool help = false;
    return parse_controller_flags(args, help);
}

TEST(ControllerFlags, DefaultsAreUpstreamsAndEveryFlagSetsItsField) {
    const auto d = parse({});
    ASSERT_TRUE(d);
    EXPECT_EQ(d->default_sync_period, 15s);
    EXPECT_EQ(d->policy.downscale_stabilization_window, 300s);
    EXPECT_DOUBLE_EQ(d->policy.tolerance, 0.1);
    EXPECT_TRUE(d->leader.enabled);
    EXPECT_TRUE(d->enable_cronhpa);
    EXPECT_EQ(d->cron_history_limit, 10);
    EXPECT_EQ(d->leader.lease_duration, 15s);

    const auto o = parse({"--default-sync-period=5s", "--horizontal-pod-autoscaler-tolerance",
                          "0.05", "--horizontal-pod-autoscaler-downscale-stabilization=1m",
                          "--leader-elect=false", "--ops-listen=:9090", "--namespace=shop",
                          "--kube-api-qps=200", "--scale-write-attempts=5",
                          "--leader-elect-lease-duration=30s", "--shutdown-grace=0s",
                          "--cronhpa=false", "--cron-history-limit=3", "--cron-max-sleep=5s"});
    ASSERT_TRUE(o) << o.error().text;
    EXPECT_EQ(o->default_sync_period, 5s);
    EXPECT_DOUBLE_EQ(o->policy.tolerance, 0.05);
    EXPECT_EQ(o->policy.downscale_stabilization_window, 60s);
    EXPECT_FALSE(o->leader.enabled);
    EXPECT_EQ(o->ops_listen, ":9090");
    EXPECT_EQ(o->watch_namespace, "shop");
    EXPECT_DOUBLE_EQ(o->client.qps, 200);
    EXPECT_EQ(o->scale_write_attempts, 5);
    EXPECT_EQ(o->leader.lease_duration, 30s);
    // kube-controller-manager's name for it, so its HPA flags carry over unchanged.
    const auto upstream = parse({"--horizontal-pod-autoscaler-sync-period=30s"});
    ASSERT_TRUE(upstream) << upstream.error().text;
    EXPECT_EQ(upstream->default_sync_period, 30s);
    EXPECT_EQ(o->shutdown_grace, 0ms);
    EXPECT_FALSE(o->enable_cronhpa);
    EXPECT_EQ(o->cron_history_limit, 3);
    EXPECT_EQ(o->cron_max_sleep, 5s);
}

// kube-controller-manager's HPAScaleToZero gate (alpha): off unless the flag turns it on.
TEST(ControllerFlags, FeatureGatesAsKubeControllerManagerTakesThem) {
    EXPECT_FALSE(parse({})->policy.scale_to_zero);
    const auto on = parse({"--feature-gates=HPAScaleToZero=true"});
    ASSERT_TRUE(on) << on.error().text;
    EXPECT_TRUE(on->policy.scale_to_zero);
    const auto off = parse({"--feature-gates", "HPAScaleToZero=true,HPAScaleToZero=False"});
    ASSERT_TRUE(off) << off.error().text;
    EXPECT_FALSE(off->policy.scale_to_zero);
}

TEST(ControllerFlags, VerticalModuleFlags) {
    const auto d = parse({});
    ASSERT_TRUE(d);
    EXPECT_FALSE(d->enable_vertical);
    EXPECT_EQ(d->vertical.interval, 1min);
    EXPECT_EQ(d->vertical.min_replicas, 2);
    EXPECT_DOUBLE_EQ(d->vertical.eviction_tolerance, 0.5);
    EXPECT_EQ(d->vertical.deferred_timeout, 5min);
    EXPECT_EQ(d->vertical.in_progress_timeout, 1h);
    EXPECT_EQ(d->vertical.lifetime_threshold, 12h);

    // A boolean flag alone means true, whether more flags follow or not.
    for (const auto& args : {std::vector<std::string>{"--enable-vertical"},
                             std::vector<std::string>{"--enable-vertical", "--namespace", "x"},
                             std::vector<std::string>{"--enable-vertical=true"}}) {
        const auto o = parse(args);
        ASSERT_TRUE(o) << o.error().text;
        EXPECT_TRUE(o->enable_vertical) << args.size();
    }
    const auto o = parse({"--vertical-interval=10s", "--vertical-checkpoint-interval=5m",
                          "--vertical-min-replicas=1", "--vertical-eviction-tolerance=0.25",
                          "--vertical-deferred-timeout=1m", "--vertical-in-progress-timeout=10m",
                          "--vertical-lifetime-threshold=1h"});
    ASSERT_TRUE(o) << o.error().text;
    EXPECT_EQ(o->vertical.interval, 10s);
    EXPECT_EQ(o->vertical.checkpoint_interval, 5min);
    EXPECT_EQ(o->vertical.min_replicas, 1);
    EXPECT_DOUBLE_EQ(o->vertical.eviction_tolerance, 0.25);
    EXPECT_EQ(o->vertical.deferred_timeout, 1min);
    EXPECT_EQ(o->vertical.in_progress_timeout, 10min);
    EXPECT_EQ(o->vertical.lifetime_threshold, 1h);
    const auto w = parse({"--enable-vertical", "--vertical-webhook-listen=0.0.0.0:8443",
                          "--vertical-webhook-cert-file=/tls/tls.crt",
                          "--vertical-webhook-key-file=/tls/tls.key"});
    ASSERT_TRUE(w) << w.error().text;
    EXPECT_EQ(w->vertical.webhook_listen, "0.0.0.0:8443");
    EXPECT_EQ(w->vertical.webhook_cert_file, "/tls/tls.crt");
    EXPECT_EQ(d->vertical.webhook_listen, "") << "not served unless asked for";
    const std::pair<std::vector<std::string>, const char*> webhook_rows[] = {
        {{"--enable-vertical", "--vertical-webhook-listen=8443"}, "ADDR:PORT"},
        {{"--enable-vertical", "--vertical-webhook-listen=:8443"},
         "needs --vertical-webhook-cert-file and --vertical-webhook-key-file"},
        {{"--vertical-webhook-listen=:8443", "--vertical-webhook-cert-file=a",
          "--vertical-webhook-key-file=b"},
         "needs --enable-vertical"},
    };
    for (const auto& [args, message] : webhook_rows) {
        const auto r = parse(args);
        ASSERT_FALSE(r) << message;
        EXPECT_NE(r.error().text.find(message), std::string::npos) << r.error().text;
    }
    EXPECT_EQ(d->vertical.history_backend, "");
    EXPECT_EQ(d->vertical.history_length, 192h);
    EXPECT_EQ(d->vertical.history_resolution, 1h);
    const auto h =
        parse({"--enable-vertical", "--metric-backends=b.yaml", "--vertical-history-backend=prom",
               "--vertical-history-length=1h", "--vertical-history-resolution=5s"});
    ASSERT_TRUE(h) << h.error().text;
    EXPECT_EQ(h->vertical.history_backend, "prom");
    EXPECT_EQ(h->vertical.history_length, 1h);
    EXPECT_EQ(h->vertical.history_resolution, 5s);
    for (const auto& [args, message] :
         std::initializer_list<std::pair<std::vector<std::string>, const char*>>{
             {{"--enable-vertical", "--vertical-history-backend=prom"},
              "needs --enable-vertical and --metric-backends"},
             {{"--vertical-history-resolution=1s", "--vertical-history-length=24h"},
              "at most 11000 points"}}) {
        const auto r = parse(args);
        ASSERT_FALSE(r) << message;
        EXPECT_NE(r.error().text.find(message), std::string::npos) << r.error().text;
    }
    for (const char* bad : {"--vertical-interval=0s", "--vertical-min-replicas=0",
                            "--vertical-eviction-tolerance=-1", "--enable-vertical=yes"}) {
        const auto r = parse({bad});
        ASSERT_FALSE(r) << bad;
        EXPECT_NE(r.error().text.find(std::string(bad).substr(0, std::string(bad).find('='))),
                  std::string::npos)
            << r.error().text;
    }
}

TEST(ControllerFlags, BadValuesNameTheFlag) {
    const std::pair<std::vector<std::string>, const char*> rows[] = {
        {{"--default-sync-period=0s"}, "--default-sync-period"},
        {{"--default-sync-period=soon"}, "--default-sync-period"},
        {{"--horizontal-pod-autoscaler-tolerance=-1"}, "--horizontal-pod-autoscaler-tolerance"},
        {{"--leader-elect=yes"}, "--leader-elect"},
        {{"--ops-listen=8080"}, "--ops-listen"},
        {{"--scale-write-attempts=0"}, "--scale-write-attempts"},
        {{"--cron-history-limit=0"}, "--cron-history-limit: want an integer from 1 to 100"},
        {{"--cronhpa=maybe"}, "--cronhpa: want true or false"},
        {{"--cron-max-sleep=0s"}, "--cron-max-sleep"},
        {{"--kube-api-burst=0"}, "--kube-api-burst"},
        {{"--no-such-flag=1"}, "unknown flag --no-such-flag"},
        {{"--namespace"}, "--namespace: a value is required"},
        {{"positional"}, "unexpected argument 'positional'"},
        {{"--leader-elect-renew-deadline=20s"}, "--leader-elect-renew-deadline must be shorter"},
        {{"--feature-gates=HPAScaleToZero"}, "--feature-gates: missing bool value for"},
        {{"--feature-gates=HPAScaleToZero=yes"}, "invalid value of HPAScaleToZero=yes"},
        {{"--feature-gates=InPlacePodVerticalScaling=true"},
         "unrecognized feature gate: InPlacePodVerticalScaling"},
    };
    for (const auto& [args, expect] : rows) {
        const auto r = parse(args);
        ASSERT_FALSE(r) << args.front();
        EXPECT_NE(r.error().text.find(expect), std::string::npos) << r.error().text;
    }
}

TEST(ControllerFlags, HelpListsEveryFlagWithItsDefault) {
    const std::string help = controller_flags_help();
    for (const char* part :
         {"--default-sync-period=VALUE", "(default 15s)", "--leader-elect=VALUE", "(default true)",
          "--kube-api-qps", "--ops-listen=VALUE", "(default 0.0.0.0:8080)", "(default 5m0s)",
          "--threads=VALUE", "--shards=VALUE"})
        EXPECT_NE(help.find(part), std::string::npos) << part;
}

// --threads defaults to the cores the process may use, at most 8; it can be set from 1 to 64.
TEST(ControllerFlags, ThreadsDefaultToTheUsableCoresAtMostEight) {
    const auto d = parse({});
    ASSERT_TRUE(d);
    cpu_set_t set;
    CPU_ZERO(&set);
    ASSERT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
    EXPECT_GE(d->threads, 1);
    EXPECT_LE(d->threads, std::min(8, CPU_COUNT(&set)));
    const auto one = parse({"--threads=1"});
    ASSERT_TRUE(one);
    EXPECT_EQ(one->threads, 1);
    EXPECT_FALSE(parse({"--threads=0"}));
    EXPECT_FALSE(parse({"--threads=65"}));
}

} // namespace
} // namespace hpaplus::cli
