// bench/controller_bench.cpp — `hpaplus-bench`: the performance goals of docs/performance.md,
// each measured against a bare-client baseline taken in the same run. Modes:
//   throughput  G1 (reconciles/s), G4 (CPU per reconcile), G5 (API requests per reconcile)
//   timeliness  G2 (timer lateness, a 1 s probe among slower objects, spike to /scale)
//   memory      G3 (resident memory per object, slope between two object counts)
// Every mode starts its own `hpaplus sim` process, fills it, and prints JSON lines.
#include "allocation_count.hpp"
#include "bare_client.hpp"
#include "bench_cluster.hpp"
#include "json_line.hpp"
#include "pod_metrics_decode.hpp"
#include "process_stats.hpp"
#include "sim_step.hpp"

#include "../tests/support/process.hpp"
#include "controller/hpaplus/worker.hpp"
#include "controller/runtime/manager.hpp"
#include "controller/runtime/process.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <map>
#include <mutex>
#include <thread>

namespace hpaplus::bench {
namespace {

namespace asio = boost::asio;
using clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

struct args {
    std::string mode;
    std::map<std::string, double> values;
    double get(const std::string& key, double fallback) const {
        const auto it = values.find(key);
        return it == values.end() ? fallback : it->second;
    }
};

// --metrics-read-window-ms (default 1000, the controller's): 0 measures one PodMetrics read per
// reconcile, as before shared reads.
std::chrono::milliseconds read_window(const args& a) {
    return std::chrono::milliseconds(static_cast<long long>(a.get("metrics-read-window-ms", 1000)));
}

// --threads (default 1): the controller's lanes of workers.
int lanes(const args& a) {
    return static_cast<int>(a.get("threads", 1));
}

double ms(std::chrono::nanoseconds d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

// The probe object's reconcile starts and its first rescale after a spike (the controller's
// thread writes, the benchmark's reads under the mutex).
class probe_observer : public controller::reconcile_observer {
  public:
    void reconciled(const std::string&, const std::string& ns, const std::string&,
                    const controller::reconcile_outcome& outcome,
                    std::chrono::nanoseconds took) override {
        if (ns != "bench-probe") return;
        const auto started = clock::now() - took;
        std::lock_guard lock(mutex_);
        if (last_start_ != clock::time_point{}) {
            const auto excess = started - last_start_ - seconds(1);
            intervals_.record(excess);
            if (excess > worst_.excess) worst_ = {excess, last_took_, last_metrics_};
        }
        last_start_ = started;
        last_took_ = took;
        last_metrics_ = outcome.metrics_latency;
        if (outcome.rescaled && spiked_at_ != clock::time_point{} &&
            rescaled_at_ == clock::time_point{})
            rescaled_at_ = clock::now();
    }
    void forgotten(const std::string&, const std::string&, const std::string&) override {}

    void spike() {
        std::lock_guard lock(mutex_);
        spiked_at_ = clock::now();
    }
    std::optional<std::chrono::nanoseconds> spike_to_scale() {
        std::lock_guard lock(mutex_);
        if (rescaled_at_ == clock::time_point{}) return std::nullopt;
        return rescaled_at_ - spiked_at_;
    }
    /// Forgets the intervals recorded so far (those before the measured window).
    void restart() {
        std::lock_guard lock(mutex_);
        intervals_ = {};
        worst_ = {};
    }
    /// The longest interval since restart(), with the pass before it: whether that pass itself
    /// took long (its metrics, say) or its timer woke late.
    struct late_interval {
        std::chrono::nanoseconds excess{std::chrono::nanoseconds::min()};
        std::chrono::nanoseconds previous_pass{0};
        std::chrono::nanoseconds previous_metrics{0};
    };
    late_interval worst() {
        std::lock_guard lock(mutex_);
        return worst_;
    }
    /// Start-to-start interval minus the 1 s period (negative: early, e.g. woken by a change).
    core::latency_histogram lateness() {
        std::lock_guard lock(mutex_);
        return intervals_;
    }

  private:
    std::mutex mutex_;
    clock::time_point last_start_, spiked_at_, rescaled_at_;
    std::chrono::nanoseconds last_took_{0}, last_metrics_{0};
    core::latency_histogram intervals_;
    late_interval worst_;
};

struct controller_snapshot {
    std::uint64_t reconciles = 0;
    std::uint64_t api_requests = 0;
    std::uint64_t status_writes = 0;
    std::size_t workers = 0;
    bool acting = false;
    core::latency_histogram lateness;
};

// The real controller on its own thread and io_context, as `hpaplus controller` runs it.
class controller_runner {
  public:
    controller_runner(const kube::cluster_config& config, std::size_t connections,
                      controller::reconcile_observer* observer,
                      std::chrono::milliseconds metrics_read_window, int threads) {
        controller::controller_options o;
        o.threads = threads;
        o.metrics_read_window = metrics_read_window;
        o.ops_listen.clear();
        o.leader.enabled = false;
        o.client.qps = 1e6; // measure the controller, not a client-side limit
        o.client.burst = 1000000;
        o.client.max_connections = o.client.max_idle_connections = connections;
        o.cache_sync_timeout = std::chrono::minutes(5);
        o.policy.cpu_initialization_period = seconds(1);
        process_ = std::make_unique<controller::controller_process>(io_, config, o);
        if (observer) process_->objects().add_observer(observer);
        process_->start([this](int) { io_.stop(); });
        thread_ = std::thread([this] { io_.run(); });
    }
    ~controller_runner() {
        asio::post(io_, [this] { process_->shutdown(); });
        if (thread_.joinable()) thread_.join();
        process_.reset();
    }
    controller_snapshot snapshot() {
        std::promise<controller_snapshot> result;
        asio::post(io_, [&] {
            controller_snapshot s;
            const auto& stats = process_->objects().stats();
            s.reconciles = stats.reconciles;
            s.status_writes = stats.status_writes;
            s.lateness = stats.lateness;
            s.api_requests = process_->api_requests();
            s.workers = process_->objects().worker_count();
            s.acting = process_->objects().acting();
            result.set_value(s);
        });
        return result.get_future().get();
    }
    /// Waits until the caches synced and a worker runs for each of `objects`.
    void wait_acting(std::size_t objects) {
        const auto deadline = clock::now() + std::chrono::minutes(5);
        while (clock::now() < deadline) {
            const auto s = snapshot();
            if (s.acting && s.workers >= objects) return;
            std::this_thread::sleep_for(milliseconds(100));
        }
        throw std::runtime_error("the controller did not start acting within 5 minutes");
    }

    // Until every object has written its first status: the bench's autoscalers are created
    // without one, and at 16,000 objects those first writes outlast a few seconds of warm-up,
    // so a measurement would count the start-up burst instead of the steady pass.
    void wait_settled(std::size_t objects) {
        wait_acting(objects);
        const auto deadline = clock::now() + std::chrono::minutes(5);
        while (snapshot().status_writes < objects) {
            if (clock::now() >= deadline) {
                std::fprintf(stderr, "bench: not every object wrote its status in 5 minutes\n");
                return;
            }
            std::this_thread::sleep_for(milliseconds(100));
        }
    }

  private:
    asio::io_context io_{1};
    std::unique_ptr<controller::controller_process> process_;
    std::thread thread_;
};

std::function<std::string(std::uint64_t)> metrics_targets(int objects) {
    std::vector<std::string> all;
    for (int i = 0; i < objects; ++i)
        all.push_back(bench_cluster::pod_metrics_target(i));
    return [all = std::move(all)](std::uint64_t k) { return all[k % all.size()]; };
}

void print_baseline(const char* name, const bare_result& b, int connections) {
    json_line(name)
        .add("requests_per_s", b.rate())
        .add("cpu_us_per_request", b.cpu_per_request() * 1e6)
        .add("latency_p50_ms", ms(b.latency.quantile(0.5)))
        .add("latency_p99_ms", ms(b.latency.quantile(0.99)))
        .add("connections", connections)
        .add("failures", static_cast<double>(b.failures))
        .print();
}

int throughput(const args& a) {
    const int objects = static_cast<int>(a.get("objects", 10000));
    const int connections = static_cast<int>(a.get("connections", 16));
    const auto measure = seconds(static_cast<int>(a.get("seconds", 20)));
    const auto warmup = seconds(static_cast<int>(a.get("warmup", 10)));
    const milliseconds baseline_time(static_cast<int>(a.get("baseline-seconds", 5) * 1000));
    bench_cluster cluster;
    cluster.populate({objects, 10, 1, false});
    const auto& host = cluster.config().host;
    const auto& port = cluster.config().port;
    const auto targets = metrics_targets(objects);

    // The simulated server renders a pod's PodMetrics once per version, on its first read: every
    // target is read once first, or the baseline before pays for renders that the one after (and
    // the controller) no longer does — it read 1.5 times slower than the one after.
    for (std::uint64_t read = 0; read < static_cast<std::uint64_t>(objects);) {
        const auto from = read;
        const auto warm = run_bare_client(host, port, connections, seconds(1),
                                          [&](std::uint64_t k) { return targets(from + k); });
        if (warm.requests == 0) throw std::runtime_error("the bare client read nothing");
        read += warm.requests;
    }
    const auto before = run_bare_client(host, port, connections, baseline_time, targets);
    print_baseline("baseline_before", before, connections);

    controller_snapshot s0, s1;
    double cpu = 0, sim_cpu = 0, wall = 0;
    std::vector<double> per_second;
    std::uint64_t allocations0 = 0, allocations1 = 0;
    {
        controller_runner controller(cluster.config(), static_cast<std::size_t>(connections),
                                     nullptr, read_window(a), lanes(a));
        controller.wait_settled(static_cast<std::size_t>(objects));
        std::this_thread::sleep_for(warmup);
        s0 = controller.snapshot();
        allocations0 = allocations();
        const auto cpu0 = process_cpu(), sim0 = process_cpu(cluster.sim_pid());
        const auto t0 = clock::now();
        std::uint64_t last = s0.api_requests;
        for (auto next = t0 + seconds(1); next <= t0 + measure; next += seconds(1)) {
            std::this_thread::sleep_until(next);
            const auto now = controller.snapshot().api_requests;
            per_second.push_back(static_cast<double>(now - last));
            last = now;
        }
        s1 = controller.snapshot();
        allocations1 = allocations();
        wall = std::chrono::duration<double>(clock::now() - t0).count();
        cpu = (process_cpu() - cpu0).count();
        sim_cpu = (process_cpu(cluster.sim_pid()) - sim0).count();
    }
    const auto after = run_bare_client(host, port, connections, baseline_time, targets);
    print_baseline("baseline_after", after, connections);

    const double reconciles = static_cast<double>(s1.reconciles - s0.reconciles);
    const double rate = reconciles / wall;
    const double bare_rate = (before.rate() + after.rate()) / 2;
    const double bare_cpu = (before.cpu_per_request() + after.cpu_per_request()) / 2;
    const double cpu_per = reconciles > 0 ? cpu / reconciles : 0;
    const double requests = static_cast<double>(s1.api_requests - s0.api_requests);
    double mean = 0, peak = 0;
    for (double v : per_second)
        mean += v, peak = std::max(peak, v);
    mean = per_second.empty() ? 0 : mean / static_cast<double>(per_second.size());
    json_line("G1_throughput")
        .add("threads", lanes(a))
        .add("objects", objects)
        .add("offered_per_s", objects)
        .add("reconciles_per_s", rate)
        .add("bare_requests_per_s", bare_rate)
        .add("ratio", bare_rate > 0 ? rate / bare_rate : 0)
        .add("baseline_drift", before.rate() > 0 ? after.rate() / before.rate() : 0)
        .add("sim_cpu_share", wall > 0 ? sim_cpu / wall : 0)
        .flag("met", bare_rate > 0 && rate / bare_rate >= 2.0)
        .print();
    auto g4 = json_line("G4_cpu");
    g4.add("cpu_us_per_reconcile", cpu_per * 1e6)
        .add("bare_cpu_us_per_request", bare_cpu * 1e6)
        .add("ratio", bare_cpu > 0 ? cpu_per / bare_cpu : 0)
        .add("controller_cpu_share", wall > 0 ? cpu / wall : 0);
    // Every thread of the benchmark process counts: the controller's, and the few of the
    // sampling loop above.
    if (allocations_counted() && reconciles > 0)
        g4.add("allocations_per_reconcile",
               static_cast<double>(allocations1 - allocations0) / reconciles);
    g4.flag("met", bare_cpu > 0 && cpu_per / bare_cpu <= 1.5).print();
    json_line("G5_api_cost")
        .add("requests_per_reconcile", reconciles > 0 ? requests / reconciles : 0)
        .add("status_writes_per_reconcile",
             reconciles > 0 ? static_cast<double>(s1.status_writes - s0.status_writes) / reconciles
                            : 0)
        .add("rate_max_over_mean", mean > 0 ? peak / mean : 0)
        .flag("met",
              reconciles > 0 && requests / reconciles <= 1.0 && mean > 0 && peak / mean <= 1.5)
        .print();
    return 0;
}

int timeliness(const args& a) {
    const int objects = static_cast<int>(a.get("objects", 10000));
    const int period = static_cast<int>(a.get("period", 15));
    const int connections = static_cast<int>(a.get("connections", 16));
    const auto measure = seconds(static_cast<int>(a.get("seconds", 30)));
    bench_cluster cluster;
    cluster.populate({objects, 10, period, true});
    // The GET latency the spike bound allows for: a GET that does not queue behind others.
    const auto paced = run_bare_client_paced(cluster.config().host, cluster.config().port, 100,
                                             seconds(5), metrics_targets(objects));
    print_baseline("baseline_paced_get", paced, 1);

    probe_observer probe;
    controller_snapshot s0, s1;
    std::optional<std::chrono::nanoseconds> spike;
    double wall = 0;
    {
        controller_runner controller(cluster.config(), static_cast<std::size_t>(connections),
                                     &probe, read_window(a), lanes(a));
        controller.wait_settled(static_cast<std::size_t>(objects) + 1);
        // Every object has had its first, phase-shifted reconcile after one period.
        std::this_thread::sleep_for(seconds(period + 2));
        s0 = controller.snapshot();
        probe.restart();
        const auto t0 = clock::now();
        std::this_thread::sleep_for(measure / 2);
        probe.spike();
        cluster.set_probe_load("4"); // 400 % of the pods' requests: the probe must scale up
        std::this_thread::sleep_until(t0 + measure);
        s1 = controller.snapshot();
        wall = std::chrono::duration<double>(clock::now() - t0).count();
        spike = probe.spike_to_scale();
        const auto lateness = s1.lateness.since(s0.lateness);
        const auto probe_late = probe.lateness();
        const auto probe_worst = probe.worst();
        const double period_ms = period * 1000.0;
        const double bound_ms = 1000.0 + 2 * ms(paced.latency.quantile(0.99));
        json_line("G2_timeliness")
            .add("objects", objects)
            .add("period_s", period)
            .add("reconciles_per_s", static_cast<double>(s1.reconciles - s0.reconciles) / wall)
            .add("timer_wakeups", static_cast<double>(lateness.count()))
            .add("lateness_p50_ms", ms(lateness.quantile(0.5)))
            .add("lateness_p99_ms", ms(lateness.quantile(0.99)))
            .add("lateness_p99_share_of_period", ms(lateness.quantile(0.99)) / period_ms)
            .add("probe_interval_excess_p99_ms", ms(probe_late.quantile(0.99)))
            .add("probe_interval_excess_max_ms", ms(probe_late.max()))
            // The longest interval's pass before it: a long pass (its metrics) or a late timer.
            .add("probe_longest_interval_previous_pass_ms", ms(probe_worst.previous_pass))
            .add("probe_longest_interval_previous_metrics_ms", ms(probe_worst.previous_metrics))
            .add("spike_to_scale_ms", spike ? ms(*spike) : -1)
            .add("spike_bound_ms", bound_ms)
            .flag("met", ms(lateness.quantile(0.99)) <= period_ms / 100 &&
                             ms(probe_late.quantile(0.99)) <= 10 && spike && ms(*spike) <= bound_ms)
            .print();
    }
    return 0;
}

// The resident memory of a real `hpaplus controller` process once it has reconciled every object
// a few times.
std::uint64_t controller_rss(int objects, int period, int threads) {
    bench_cluster cluster;
    cluster.populate({objects, 10, period, false});
    const std::string command =
        "exec " + hpaplus_binary() + " controller --kubeconfig " + cluster.kubeconfig_path() +
        " --leader-elect=false --ops-listen= --kube-api-qps=1000000"
        " --kube-api-burst=1000000 --threads " +
        std::to_string(threads) + " >" + cluster.directory() + "/controller.log 2>&1";
    test::child_process controller({"/bin/sh", "-c", command});
    std::this_thread::sleep_for(seconds(3 * period + 10));
    const std::uint64_t rss = resident_bytes(controller.pid());
    if (rss == 0) throw std::runtime_error("the controller process ended early");
    return rss;
}

int memory(const args& a) {
    const int from = static_cast<int>(a.get("from", 1000));
    const int to = static_cast<int>(a.get("to", 10000));
    const int period = static_cast<int>(a.get("period", 5));
    const std::uint64_t small = controller_rss(from, period, lanes(a));
    json_line("controller_rss").add("objects", from).add("rss_mib", small / 1048576.0).print();
    const std::uint64_t large = controller_rss(to, period, lanes(a));
    json_line("controller_rss").add("objects", to).add("rss_mib", large / 1048576.0).print();
    const double slope = (static_cast<double>(large) - static_cast<double>(small)) / (to - from);
    json_line("G3_memory")
        .add("bytes_per_object", slope)
        .add("goal_bytes_per_object", 4096)
        .add("pods_per_object", 10)
        .flag("met", slope <= 4096)
        .print();
    return 0;
}

args parse(int argc, char** argv) {
    args a;
    if (argc < 2) return a;
    a.mode = argv[1];
    for (int i = 2; i + 1 < argc; i += 2) {
        std::string key = argv[i];
        if (key.rfind("--", 0) != 0) throw std::runtime_error("expected --KEY VALUE, got " + key);
        a.values[key.substr(2)] = std::stod(argv[i + 1]);
    }
    return a;
}

} // namespace
} // namespace hpaplus::bench

int main(int argc, char** argv) {
    using namespace hpaplus::bench;
    spdlog::set_level(spdlog::level::warn); // the controller's info lines would drown the results
    try {
        const args a = parse(argc, argv);
        if (a.mode == "throughput") return throughput(a);
        if (a.mode == "timeliness") return timeliness(a);
        if (a.mode == "memory") return memory(a);
        if (a.mode == "pod-metrics")
            return pod_metrics_decode(static_cast<int>(a.get("pods", 100)), a.get("seconds", 3));
        if (a.mode == "sim-step")
            return sim_step(static_cast<int>(a.get("objects", 10000)),
                            static_cast<int>(a.get("pods-per-object", 10)),
                            static_cast<int>(a.get("steps", 5)));
        std::fprintf(stderr,
                     "usage: hpaplus-bench throughput|timeliness|memory|sim-step|pod-metrics "
                     "[--KEY VALUE]...\n"
                     "  throughput --objects 10000 --seconds 20 --warmup 10 --connections 16 "
                     "--threads 1\n"
                     "  timeliness --objects 10000 --period 15 --seconds 30\n"
                     "  memory --from 1000 --to 10000 --period 5\n"
                     "  sim-step --objects 10000 --pods-per-object 10 --steps 5\n"
                     "  pod-metrics --pods 100 --seconds 3\n"
                     "(see docs/performance.md)\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hpaplus-bench: %s\n", e.what());
        return 1;
    }
}
