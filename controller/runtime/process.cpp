// controller/runtime/process.cpp — wiring and lifecycle of the controller.
#include "controller/runtime/process.hpp"

#include "controller/runtime/leader_election.hpp"
#include "controller/runtime/manager.hpp"
#include "controller/runtime/ops_server.hpp"
#include "controller/runtime/run_and_wait.hpp"
#include "controller/runtime/shards.hpp"
#include "controller/runtime/telemetry.hpp"
#include "controller/vpaplus/admission_webhook.hpp"
#include "core/build_info.hpp"
#include "kube/api_client.hpp"
#include "metrics/metric_sources.hpp"
#include "net/listen_address.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include <optional>
#include <thread>

namespace hpaplus::controller {

namespace asio = boost::asio;

namespace {
// The --metric-backends file; a mistake in it is a start-up error.
metrics::backends_file backends_of(const controller_options& options) {
    if (options.metric_backends.empty()) return {};
    auto file = metrics::load_backends(options.metric_backends);
    if (!file) throw std::runtime_error("--metric-backends: " + file.error().text);
    return std::move(*file);
}

// What one API client may use: with lanes, the informers' client and each lane's get an equal
// share of --kube-api-qps, --kube-api-burst and the connections, so that the process stays within
// the flags; with one lane, one client has them all.
kube::client_options client_share(const controller_options& options) {
    auto o = options.client;
    if (options.threads <= 1) return o;
    const int n = options.threads + 1;
    o.qps = o.qps / n;
    o.burst = std::max(1, o.burst / n);
    o.max_connections = std::max<std::size_t>(1, o.max_connections / static_cast<std::size_t>(n));
    o.max_idle_connections =
        std::max<std::size_t>(1, o.max_idle_connections / static_cast<std::size_t>(n));
    return o;
}

} // namespace

// With --threads N > 1, one of N lanes of workers: a thread running its own io_context, with its
// own API client (a share of --kube-api-qps and of the connections), metric sources and /metrics
// recorder.
struct lane_context {
    lane_context(const kube::cluster_config& config, const controller_options& options,
                 const metrics::backends_file& backends, telemetry& metrics,
                 std::shared_ptr<metrics::pod_metrics_exchange> exchange)
        : work(io.get_executor()), client(io.get_executor(), config, client_share(options)),
          sources(io.get_executor(), client, backends, options.metrics_read_window,
                  std::move(exchange)),
          recorder(metrics.new_recorder()) {
        client.set_request_observer([r = recorder.get()](const std::string& method, int code) {
            r->api_request(method, code);
        });
        thread = std::thread([this] { io.run(); });
    }
    ~lane_context() { stop(); }
    void stop() {
        if (!thread.joinable()) return;
        work.reset();
        io.stop();
        thread.join();
    }
    template <class F> auto ask(F f) { return run_and_wait(io.get_executor(), std::move(f)); }

    asio::io_context io{1};
    asio::executor_work_guard<asio::io_context::executor_type> work;
    kube::api_client client;
    metrics::metric_sources sources;
    std::unique_ptr<telemetry::recorder> recorder;
    std::thread thread;
};

struct controller_process::impl {
    impl(asio::io_context& io_, kube::cluster_config config, controller_options options_)
        : io(io_), options(std::move(options_)),
          client(io.get_executor(), config, client_share(options)), backends(backends_of(options)),
          recorder(metrics.new_recorder()), sources(single_lane_sources()), lanes(lanes_of(config)),
          objects(io.get_executor(), client, options, lane_inputs()) {
        client.set_request_observer([r = recorder.get()](const std::string& method, int code) {
            r->api_request(method, code);
        });
        if (!options.ops_listen.empty()) {
            std::string address;
            unsigned short port = 0;
            if (!net::split_listen(options.ops_listen, address, port))
                throw std::runtime_error("--ops-listen: want ADDR:PORT, got \"" +
                                         options.ops_listen + "\"");
            ops = std::make_unique<ops_server>(
                io.get_executor(), address, port,
                ops_handlers{[this] { return not_ready(); },
                             [this] {
                                 metrics.observe_pools(objects.pools());
                                 metrics.observe_backends(backend_summaries());
                                 metrics.set_leader(objects.acting());
                                 if (shards && shards->shard_count() > 1)
                                     metrics.set_shards(held_shards(), shards->members());
                                 return metrics.exposition();
                             },
                             &objects.snapshots()});
        }
        if (!options.vertical.webhook_listen.empty() && objects.vpapluses())
            webhook = std::make_unique<pod_admission_server>(
                io.get_executor(), options.vertical.webhook_listen,
                options.vertical.webhook_cert_file, options.vertical.webhook_key_file,
                pod_admission_env{client, *objects.vpapluses(), objects.deployments()});
        if (options.leader.enabled) {
            // Renewals on their own connection and outside the rate limit: reconcile traffic
            // queued behind --kube-api-qps must never make a leader miss its renew deadline.
            auto lease_options = options.client;
            lease_options.qps = 0;
            // A renewal that hangs is given up at the renew deadline, as client-go's is.
            lease_options.request_timeout =
                std::min(lease_options.request_timeout, options.leader.renew_deadline);
            lease_options.max_connections = 1;
            lease_options.max_idle_connections = 1;
            lease_client =
                std::make_unique<kube::api_client>(io.get_executor(), config, lease_options);
            // One leader (--shards 1) or the objects shared out; either way under the layout
            // Lease that says which shard count is in force (shards.hpp).
            shards = std::make_unique<shard_coordinator>(
                *lease_client, options.leader,
                static_cast<std::size_t>(std::max(1, options.shards)),
                [this] { shards_changed(); });
            objects.set_owner([this](std::string_view key) { return shards->owns(key); });
            set_write_fence([this](std::string_view key) { return shards->may_write(key); });
        }
    }

    std::vector<std::unique_ptr<lane_context>> lanes_of(const kube::cluster_config& config) {
        std::vector<std::unique_ptr<lane_context>> out;
        if (options.threads <= 1) return out;
        // The lanes share their finished PodMetrics reads: a namespace's list is read once per
        // window, whichever lanes its objects are on.
        const auto exchange =
            std::make_shared<metrics::pod_metrics_exchange>(options.metrics_read_window);
        for (int i = 0; i < options.threads; ++i)
            out.push_back(
                std::make_unique<lane_context>(config, options, backends, metrics, exchange));
        return out;
    }

    // Every backend's counts, each lane's read on its own thread and added up.
    std::vector<metrics::backend_summary> backend_summaries() {
        if (sources) return sources->backend_summaries();
        std::vector<metrics::backend_summary> all;
        for (auto& l : lanes) {
            auto each = l->ask([&l] { return l->sources.backend_summaries(); });
            if (all.empty()) {
                all = std::move(each);
                continue;
            }
            for (std::size_t i = 0; i < all.size() && i < each.size(); ++i)
                all[i].stats.add(each[i].stats); // every lane has the same backends, in order
        }
        return all;
    }

    // With one lane the objects run on this thread and use its client and sources.
    std::optional<metrics::metric_sources> single_lane_sources() {
        if (options.threads > 1) return std::nullopt;
        return std::optional<metrics::metric_sources>(std::in_place, io.get_executor(), client,
                                                      backends, options.metrics_read_window);
    }

    std::vector<lane_resources> lane_inputs() {
        if (lanes.empty()) return {{io.get_executor(), client, *sources, recorder.get()}};
        std::vector<lane_resources> out;
        for (auto& l : lanes)
            out.push_back({l->io.get_executor(), l->client, l->sources, l->recorder.get()});
        return out;
    }

    // Every client that writes asks the fence (it is thread-safe: leader_election.hpp).
    void set_write_fence(const kube::api_client::write_fence& fence) {
        client.set_write_fence(fence);
        for (auto& l : lanes)
            l->client.set_write_fence(fence);
    }

    asio::awaitable<void> run() {
        spdlog::info("{} starting", core::version_line());
        const bool synced = co_await objects.start_caches();
        if (!synced) {
            spdlog::error("the caches did not sync within {} ms ({}); are the CRDs installed "
                          "(kubectl apply -f crds/; or --cronhpa=false without the CronHPA one) "
                          "and is the API server reachable?",
                          options.cache_sync_timeout.count(), objects.unsynced_report());
            finish(1);
            co_return;
        }
        ready = true;
        spdlog::info("caches synced: {} HPAPlus objects, {} HorizontalPodAutoscalers",
                     objects.hpapluses().items()->size(),
                     objects.hpas() ? objects.hpas()->items()->size() : 0);
        if (const auto missing = objects.unserved_report(); !missing.empty())
            spdlog::warn("not served, so watched for until it is (kubectl apply -f crds/ installs "
                         "HPAPlus's CustomResourceDefinitions): {}",
                         missing);
        // Every replica answers admission reviews (from its caches), leader or not.
        if (webhook) {
            webhook->start();
            spdlog::info("pod admission webhook at {}", webhook->url());
        }
        if (stopping) co_return;
        if (!shards) {
            objects.start_workers();
            co_return;
        }
        co_await shards->run();
    }

    // A shard was gained or lost: workers for the objects of the held shards, none for others.
    void shards_changed() {
        if (stopping) return;
        if (shards->held().empty()) {
            objects.stop_workers();
        } else if (!objects.acting()) {
            objects.start_workers();
        } else {
            objects.reshard();
        }
    }

    std::vector<bool> held_shards() const {
        std::vector<bool> held(shards->shard_count(), false);
        for (const std::size_t i : shards->held())
            held[i] = true;
        return held;
    }

    asio::awaitable<void> stop() {
        spdlog::info("shutting down: finishing in-flight reconciles (at most {} ms)",
                     options.shutdown_grace.count());
        if (shards) shards->stop();
        objects.stop_workers();
        co_await objects.drain(options.shutdown_grace);
        if (shards) co_await shards->release();
        objects.stop_forecasts();
        objects.stop_caches();
        if (ops) ops->stop();
        if (webhook) webhook->stop();
        client.close();
        for (auto& l : lanes)
            l->ask([&l] {
                l->client.close();
                return 0;
            });
        if (lease_client) lease_client->close();
        finish(0);
    }

    // The /readyz answer: caches first, then a Lease this replica cannot even try to take.
    std::string not_ready() const {
        if (!ready) return "caches not synced";
        if (shards && shards->held().empty() && !shards->problem().empty())
            return shards->problem();
        return "";
    }

    void finish(int code) {
        if (exited) return;
        exited = true;
        if (on_exit) on_exit(code);
    }

    ~impl() {
        // The lanes' threads end before the workers, caches and clients they use go.
        for (auto& l : lanes)
            l->stop();
    }

    asio::io_context& io;
    controller_options options;
    kube::api_client client; ///< the informers' (and the only one with a single lane)
    std::unique_ptr<kube::api_client> lease_client;
    telemetry metrics;
    metrics::backends_file backends;
    std::unique_ptr<telemetry::recorder> recorder;    ///< this thread's reconciles and requests
    std::optional<metrics::metric_sources> sources;   ///< with one lane (lanes have their own)
    std::vector<std::unique_ptr<lane_context>> lanes; ///< with --threads N > 1
    manager objects;
    std::unique_ptr<ops_server> ops;
    std::unique_ptr<pod_admission_server> webhook;
    std::unique_ptr<shard_coordinator> shards; ///< with leader election (--leader-elect)
    std::function<void(int)> on_exit;
    bool ready = false;
    bool stopping = false;
    bool exited = false;
};

namespace {
void log_exception(std::exception_ptr e) {
    log_failure("controller", e);
}
} // namespace

controller_process::controller_process(asio::io_context& io, kube::cluster_config config,
                                       controller_options options)
    : impl_(std::make_unique<impl>(io, std::move(config), std::move(options))) {}

controller_process::~controller_process() = default;

void controller_process::start(std::function<void(int)> on_exit) {
    impl_->on_exit = std::move(on_exit);
    if (impl_->ops) impl_->ops->start();
    asio::co_spawn(impl_->io, impl_->run(), log_exception);
}

std::uint64_t controller_process::api_requests() const {
    std::uint64_t sent = impl_->client.attempts();
    for (auto& l : impl_->lanes)
        sent += l->ask([&l] { return l->client.attempts(); });
    return sent;
}

std::uint64_t controller_process::pod_metrics_lists() const {
    std::uint64_t sent = impl_->sources ? impl_->sources->pod_metrics_lists() : 0;
    for (auto& l : impl_->lanes)
        sent += l->ask([&l] { return l->sources.pod_metrics_lists(); });
    return sent;
}

void controller_process::shutdown() {
    if (impl_->stopping) return;
    impl_->stopping = true;
    asio::co_spawn(impl_->io, impl_->stop(), log_exception);
}

manager& controller_process::objects() {
    return impl_->objects;
}
telemetry& controller_process::metrics() {
    return impl_->metrics;
}
bool controller_process::leading() const {
    return impl_->objects.acting();
}
std::vector<asio::any_io_executor> controller_process::executors() const {
    std::vector<asio::any_io_executor> all{impl_->io.get_executor()};
    for (const auto& l : impl_->lanes)
        all.push_back(l->io.get_executor());
    return all;
}

std::string controller_process::ops_url() const {
    return impl_->ops ? impl_->ops->url() : std::string();
}
std::string controller_process::webhook_url() const {
    return impl_->webhook ? impl_->webhook->url() : std::string();
}

} // namespace hpaplus::controller
