// sim/cluster.cpp — wiring of the simulated cluster.
#include "sim/cluster.hpp"

#include "net/base64.hpp"

#include "sim/apiserver/cel_rules.hpp"
#include "sim/apiserver/schema.hpp"

#include "sim/workload/prometheus.hpp"

namespace hpaplus::sim {
namespace {

core::time_point wall_clock() {
    return std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now());
}

} // namespace

cluster::cluster(boost::asio::io_context& io, cluster_options options)
    : store_(wall_clock), io_(io) {
    store_.set_quota_bytes(options.storage_quota_bytes);
    if (options.tls) tls_ = net::make_self_signed({"127.0.0.1", "localhost", "::1"});
    // Every cluster has a CA, published in each namespace's kube-root-ca.crt; over plain HTTP it
    // is one made for that alone (it verifies nothing the sim serves).
    if (!options.publish_root_ca)
        options.workload.root_ca_pem.clear();
    else if (options.workload.root_ca_pem.empty())
        options.workload.root_ca_pem =
            (tls_ ? *tls_ : net::make_self_signed({"127.0.0.1"})).ca_cert_pem;
    api_ = std::make_unique<api_server>(io.get_executor(), store_, options.api);
    api_->bootstrap();
    workload_ = std::make_unique<workload_model>(io.get_executor(), store_, options.workload);
    admission_ = std::make_unique<admission>(io.get_executor(), store_);
    api_->use_admission(*admission_);
    workload_->use_admission(*admission_);
    api_->serve_prometheus([this] { return prometheus_text(store_, *workload_); });
    api_->serve_node_stats(
        [this](const std::string& node) { return workload_->stats_summary(node); });
    api_->serve_pod_logs([this](std::string_view uid, std::string_view container) {
        return workload_->log_of(uid, container);
    });
    api_->serve_resource_metrics(
        [this](const stored_object& pod) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
            const auto u = workload_->usage_of(pod);
            if (!u) return std::nullopt;
            return std::make_pair(u->cpu_milli, u->memory_bytes);
        });
    http_options_.address = options.address;
    http_options_.port = options.port;
    if (tls_) http_options_.tls = std::make_pair(tls_->cert_pem, tls_->key_pem);
    http_ = std::make_unique<net::http_server>(
        io.get_executor(), http_options_,
        [this](net::http_request& r, net::http_responder& out) { return api_->handle(r, out); });
    http_options_.port = http_->port(); // a restart comes back on the same port
    restart_timer_ = std::make_unique<boost::asio::steady_timer>(io);
    load_timer_ = std::make_unique<boost::asio::steady_timer>(io);
    api_->on_restart_request([this](std::chrono::milliseconds down) { restart(down); });
}

void cluster::restart(std::chrono::milliseconds down) {
    // Let the current response go out first, then drop everything.
    restart_timer_->expires_after(std::chrono::milliseconds(50));
    restart_timer_->async_wait([this, down](const boost::system::error_code& ec) {
        if (ec || stopped_) return;
        api_->faults().drop_watches();
        retired_ = std::move(http_);
        retired_->stop();
        restart_timer_->expires_after(down);
        restart_timer_->async_wait([this](const boost::system::error_code& ec2) {
            if (ec2 || stopped_) return;
            retired_.reset();
            http_ = std::make_unique<net::http_server>(
                io_.get_executor(), http_options_,
                [this](net::http_request& r, net::http_responder& out) {
                    return api_->handle(r, out);
                });
            http_->start();
        });
    });
}

cluster::~cluster() = default;

std::optional<std::string> cluster::play(const scenario& s) {
    for (std::size_t i = 0; i < s.objects.size(); ++i) {
        json_doc doc;
        doc.Parse(s.objects[i].c_str());
        const std::string api_version = string_at(doc, "apiVersion");
        const std::string kind = string_at(doc, "kind");
        collection* target = nullptr;
        for (collection* c : store_.collections())
            if (c->type.group_version() == api_version && c->type.kind == kind) target = c;
        const std::string where = "objects[" + std::to_string(i) + "]";
        if (!target)
            return where + ": the simulated cluster does not serve " + api_version + " " + kind;
        std::string ns = string_at(doc, "metadata.namespace");
        if (ns.empty()) ns = "default";
        if (target->type.schema) {
            bool blocked = false;
            auto errors =
                apply_schema(*target->type.schema, doc, doc.GetAllocator(), nullptr, &blocked);
            if (errors.empty() && target->type.rules)
                errors = check_rules(*target->type.rules, *target->type.schema, doc, nullptr);
            if (!errors.empty())
                return where + ": " + errors.front().first + ": " + errors.front().second;
        }
        auto created = store_.create(*target, ns, std::move(doc));
        if (!created) return where + ": " + created.error().message;
    }
    // Each load step sets the Deployment's load at its time (relative to now).
    load_ = s.load;
    load_repeat_ = s.repeat;
    load_next_ = 0;
    load_start_ = std::chrono::steady_clock::now();
    schedule_load();
    return std::nullopt;
}

void cluster::schedule_load() {
    if (!load_.empty() && load_next_ >= load_.size() && load_repeat_.count() > 0) {
        load_start_ += load_repeat_; // a rhythm: the schedule again, a cycle later
        load_next_ = 0;
    }
    if (stopped_ || load_next_ >= load_.size()) return;
    load_timer_->expires_at(load_start_ + load_[load_next_].at);
    load_timer_->async_wait([this](const boost::system::error_code& ec) {
        if (ec || stopped_) return;
        const load_step& step = load_[load_next_++];
        collection* deployments = store_.find("apps", "v1", "deployments");
        if (object_ptr d = deployments ? store_.get(*deployments, step.namespace_, step.deployment)
                                       : nullptr) {
            json_doc doc = clone(d->doc);
            auto& a = doc.GetAllocator();
            json* annotations = const_cast<json*>(find_path(doc, "metadata.annotations"));
            if (!annotations || !annotations->IsObject()) {
                set_path(doc, "metadata.annotations", json(rapidjson::kObjectType), a);
                annotations = const_cast<json*>(find_path(doc, "metadata.annotations"));
            }
            auto it = annotations->FindMember("sim.hpaplus.io/cpu-load");
            if (it != annotations->MemberEnd())
                it->value.SetString(step.cpu.c_str(), a);
            else
                annotations->AddMember("sim.hpaplus.io/cpu-load", json(step.cpu.c_str(), a), a);
            (void)store_.update(*deployments, step.namespace_, step.deployment, std::move(doc),
                                write_mode::internal);
        }
        schedule_load();
    });
}

void cluster::start() {
    http_->start();
    workload_->start();
}

void cluster::stop() {
    stopped_ = true;
    restart_timer_->cancel();
    load_timer_->cancel();
    workload_->stop();
    api_->stop();
    if (http_) http_->stop();
    if (retired_) retired_->stop();
}

std::string cluster::url() const {
    const std::string host = http_options_.address.find(':') != std::string::npos
                                 ? "[" + http_options_.address + "]"
                                 : http_options_.address;
    return std::string(tls_ ? "https://" : "http://") + host + ":" +
           std::to_string(http_options_.port);
}

std::string cluster::kubeconfig() const {
    std::string cluster_entry = "    server: " + url() + "\n";
    if (tls_)
        cluster_entry +=
            "    certificate-authority-data: " + net::base64_encode(tls_->ca_cert_pem) + "\n";
    return "apiVersion: v1\nkind: Config\n"
           "clusters:\n- name: hpaplus-sim\n  cluster:\n" +
           cluster_entry +
           "users:\n- name: hpaplus-sim\n  user:\n    token: hpaplus-sim\n"
           "contexts:\n- name: hpaplus-sim\n  context:\n    cluster: hpaplus-sim\n    user: "
           "hpaplus-sim\n    namespace: default\n"
           "current-context: hpaplus-sim\n";
}

} // namespace hpaplus::sim
