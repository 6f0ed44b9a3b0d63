// bench/bench_cluster.cpp — starting the simulated cluster and filling it.
#include "bench_cluster.hpp"

#include "../tests/support/process.hpp"
#include "demo/embedded_crds.hpp"
#include "kube/api_client.hpp"
#include "kube/yaml_json.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <rapidjson/document.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace hpaplus::bench {
namespace {

namespace asio = boost::asio;

std::string hpaplus_json(const std::string& ns, const std::string& name, int replicas, int period) {
    return R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1","kind":"HPAPlus","metadata":{"name":")" +
           name + R"(","namespace":")" + ns +
           R"("},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":")" +
           name + R"("},"minReplicas":)" + std::to_string(replicas) + R"(,"maxReplicas":)" +
           std::to_string(replicas * 4) + R"(,"syncPeriodSeconds":)" + std::to_string(period) +
           R"(,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]}})";
}

struct creation {
    std::string target;
    std::string body;
};

asio::awaitable<void> create_one(kube::api_client& client, const creation& c, std::string& error) {
    kube::api_request r;
    r.method = "POST";
    r.target = c.target;
    r.body = c.body;
    auto response = co_await client.send(std::move(r));
    if (!response && response.ec != kube::errc::already_exists && error.empty())
        error = "POST " + c.target + ": " + response.status.message;
}

// POSTs every creation, `parallel` at a time; the first failure ends it with a message.
asio::awaitable<int> create_all(kube::api_client& client, const std::vector<creation>& all,
                                std::size_t parallel, std::string& error) {
    std::size_t next = 0;
    std::size_t running = 0;
    auto ex = co_await asio::this_coro::executor;
    asio::steady_timer idle(ex);
    while ((next < all.size() || running > 0) && error.empty()) {
        while (running < parallel && next < all.size()) {
            ++running;
            asio::co_spawn(ex, create_one(client, all[next++], error),
                           [&running](std::exception_ptr) { --running; });
        }
        idle.expires_after(std::chrono::milliseconds(2));
        co_await idle.async_wait(asio::use_awaitable);
    }
    co_return 0;
}

asio::awaitable<int> patch_load(kube::api_client& client, std::string cpu) {
    kube::api_request r;
    r.method = "PATCH";
    r.target = "/apis/apps/v1/namespaces/bench-probe/deployments/probe";
    r.content_type = "application/merge-patch+json";
    r.body = R"({"metadata":{"annotations":{"sim.hpaplus.io/cpu-load":")" + cpu + R"("}}})";
    auto response = co_await client.send(std::move(r));
    if (!response) throw std::runtime_error("PATCH the probe's load: " + response.status.message);
    co_return 0;
}

// Ready pods of every Deployment (status.readyReplicas summed), -1 when the list failed.
asio::awaitable<long> ready_pods(kube::api_client& client) {
    kube::api_request r;
    r.target = "/apis/apps/v1/deployments";
    auto response = co_await client.send(std::move(r));
    if (!response) co_return -1;
    rapidjson::Document doc;
    doc.Parse(response.body.data(), response.body.size());
    if (doc.HasParseError() || !doc.HasMember("items")) co_return -1;
    long ready = 0;
    for (const auto& d : doc["items"].GetArray()) {
        if (!d.HasMember("status")) continue;
        const auto& s = d["status"];
        if (s.HasMember("readyReplicas") && s["readyReplicas"].IsInt())
            ready += s["readyReplicas"].GetInt();
    }
    co_return ready;
}

template <class T> T run(asio::io_context& io, asio::awaitable<T> work) {
    std::optional<T> out;
    std::exception_ptr failure;
    asio::co_spawn(io, std::move(work), [&](std::exception_ptr e, T v) {
        failure = e;
        out = std::move(v);
    });
    io.restart();
    io.run();
    if (failure) std::rethrow_exception(failure);
    return std::move(*out);
}

} // namespace

std::string namespace_of(int object) {
    return "bench-" + std::to_string(object / 10);
}

std::string namespace_json(const std::string& name) {
    return R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + name + R"("}})";
}

std::vector<std::string> namespaces_json(int objects) {
    std::vector<std::string> out;
    for (int first = 0; first < objects; first += 10)
        out.push_back(namespace_json(namespace_of(first)));
    return out;
}

std::string deployment_json(const std::string& ns, const std::string& name, int replicas,
                            const std::string& pod_annotations) {
    return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")" + name +
           R"(","namespace":")" + ns + R"("},"spec":{"replicas":)" + std::to_string(replicas) +
           R"(,"selector":{"matchLabels":{"app":")" + name +
           R"("}},"template":{"metadata":{"labels":{"app":")" + name + R"("},"annotations":{)" +
           pod_annotations +
           R"(}},"spec":{"containers":[{"name":"app","image":"bench","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}}})";
}

std::string hpaplus_binary() {
    if (const char* env = std::getenv("HPAPLUS_BINARY")) return env;
    return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "hpaplus").string();
}

struct bench_cluster::impl {
    test::temp_dir dir;
    std::unique_ptr<test::child_process> sim;
    asio::io_context io;
    std::unique_ptr<kube::api_client> client;
};

bench_cluster::bench_cluster() : impl_(std::make_unique<impl>()) {
    directory_ = impl_->dir.path();
    kubeconfig_path_ = directory_ + "/kubeconfig";
    // One node large enough for every pod; a 5 s tick keeps 100,000 simulated pods cheap (the
    // benchmarks need no pod to change once all are ready); the storage quota fits them.
    const std::string command = "exec " + hpaplus_binary() +
                                " sim --tick 5s --node-cpu 100000 --node-memory 1000Ti"
                                " --storage-quota 2Gi"
                                " --kubeconfig-out " +
                                kubeconfig_path_ + " >" + directory_ + "/sim.log 2>&1";
    impl_->sim =
        std::make_unique<test::child_process>(std::vector<std::string>{"/bin/sh", "-c", command});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::string kubeconfig;
    while (std::chrono::steady_clock::now() < deadline) {
        std::ifstream log(directory_ + "/sim.log");
        std::stringstream text;
        text << log.rdbuf();
        if (text.str().find("listening on") != std::string::npos) {
            std::ifstream in(kubeconfig_path_);
            std::stringstream k;
            k << in.rdbuf();
            kubeconfig = k.str();
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (kubeconfig.empty())
        throw std::runtime_error("hpaplus sim did not start within 20 s (" + hpaplus_binary() +
                                 "; see " + directory_ + "/sim.log)");
    auto config = kube::parse_kubeconfig(kubeconfig, directory_);
    if (!config) throw std::runtime_error("the sim's kubeconfig: " + config.error().text);
    config_ = *config;
    kube::client_options options;
    options.qps = 1e6;
    options.burst = 1000000;
    options.max_idle_connections = 64;
    impl_->client = std::make_unique<kube::api_client>(impl_->io.get_executor(), config_, options);
}

bench_cluster::~bench_cluster() = default;

int bench_cluster::sim_pid() const {
    return impl_->sim->pid();
}

std::string bench_cluster::pod_metrics_target(int object) {
    return "/apis/metrics.k8s.io/v1beta1/namespaces/" + namespace_of(object) +
           "/pods?labelSelector=app%3Do-" + std::to_string(object);
}

void bench_cluster::populate(const cluster_layout& layout) {
    std::vector<creation> crds;
    for (const char* yaml : {demo::hpaplus_crd_yaml, demo::cronhpa_crd_yaml}) {
        auto docs = kube::yaml_documents_to_json(yaml);
        if (!docs) throw std::runtime_error("a compiled-in CRD: " + docs.error().text);
        for (auto& d : *docs)
            crds.push_back({"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", d});
    }
    std::vector<creation> namespaces, workloads, autoscalers;
    for (auto& json : namespaces_json(layout.objects))
        namespaces.push_back({"/api/v1/namespaces", std::move(json)});
    for (int i = 0; i < layout.objects; ++i) {
        const std::string ns = namespace_of(i), name = "o-" + std::to_string(i);
        workloads.push_back({"/apis/apps/v1/namespaces/" + ns + "/deployments",
                             deployment_json(ns, name, layout.pods_per_object, steady_usage)});
        autoscalers.push_back(
            {"/apis/autoscaling.hpaplus.io/v1alpha1/namespaces/" + ns + "/hpapluses",
             hpaplus_json(ns, name, layout.pods_per_object, layout.period_seconds)});
    }
    int pods = layout.objects * layout.pods_per_object;
    if (layout.probe) {
        namespaces.push_back({"/api/v1/namespaces", namespace_json("bench-probe")});
        // The probe's pods take their share of the Deployment's load, so raising the load is a
        // spike the next reconcile sees.
        std::string probe = deployment_json("bench-probe", "probe", layout.pods_per_object, "");
        workloads.push_back({"/apis/apps/v1/namespaces/bench-probe/deployments", probe});
        autoscalers.push_back(
            {"/apis/autoscaling.hpaplus.io/v1alpha1/namespaces/bench-probe/hpapluses",
             hpaplus_json("bench-probe", "probe", layout.pods_per_object, 1)});
        pods += layout.pods_per_object;
    }
    std::string error;
    for (const auto* batch : {&crds, &namespaces, &workloads, &autoscalers}) {
        run(impl_->io, create_all(*impl_->client, *batch, 32, error));
        if (!error.empty()) throw std::runtime_error(error);
        if (batch == &crds) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    if (layout.probe) set_probe_load(std::to_string(layout.pods_per_object * 50) + "m");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    long ready = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        ready = run(impl_->io, ready_pods(*impl_->client));
        if (ready >= pods) return;
        std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    throw std::runtime_error("only " + std::to_string(ready) + " of " + std::to_string(pods) +
                             " pods became ready within 5 minutes");
}

void bench_cluster::set_probe_load(const std::string& cpu) {
    run(impl_->io, patch_load(*impl_->client, cpu));
}

} // namespace hpaplus::bench
