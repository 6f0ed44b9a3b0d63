// demo/demo.cpp — `hpaplus demo` (DESIGN §4.4): the simulated cluster and the real
// controller in one process, talking HTTP over loopback; a traffic scenario that rises and falls;
// live progress; a report with load and replicas over time, and a JSON summary.
#include "demo/demo.hpp"

#include "controller/hpaplus/worker.hpp"
#include "controller/runtime/lifecycle.hpp"
#include "controller/runtime/logging.hpp"
#include "controller/runtime/manager.hpp"
#include "controller/runtime/options.hpp"
#include "controller/runtime/process.hpp"
#include "core/quantity.hpp"
#include "demo/embedded_crds.hpp"
#include "demo/report.hpp"
#include "kube/yaml_json.hpp"
#include "sim/cluster.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <utility>

namespace hpaplus::demo {
namespace {

namespace asio = boost::asio;
using controller::controller_options;
using controller::controller_process;
using controller::manager;

constexpr int target_utilization = 60;
constexpr int prewarm_size = 6; ///< the CronHPA's floor before the load rises
// When the CronHPA raises and releases its floor, in percent of the run (at least 2 s in): well
// before the load rises at 20 %, so that even a slow start scales up for the floor first.
constexpr int prewarm_at_percent = 6;
constexpr int release_at_percent = 30;
constexpr double cores_per_pod = 0.5; // the pods' CPU request

// --vertical: pods that use 600m CPU and 300Mi each against 100m and 128Mi requested.
std::string vertical_deployment_json() {
    return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","namespace":"default",)"
           R"("annotations":{"sim.hpaplus.io/cpu-load":"1200m","sim.hpaplus.io/memory-per-pod":"300Mi"}},)"
           R"("spec":{"replicas":2,"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":)"
           R"({"labels":{"app":"api"}},"spec":{"containers":[{"name":"app","image":"nginx",)"
           R"("resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}]}}}})";
}

std::string vpaplus_json() {
    return R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1","kind":"VPAPlus","metadata":)"
           R"({"name":"api","namespace":"default"},"spec":{"targetRef":{"apiVersion":"apps/v1",)"
           R"("kind":"Deployment","name":"api"},"updatePolicy":{"updateMode":"InPlaceOrRecreate"}}})";
}

// --predictive: Deployment shop's rhythm — 2.4 cores from second 14 to 20 of every 20, else
// 0.4 — and an HPAPlus that records its own history and forecasts 4 s ahead.
constexpr int rhythm_period = 20;
constexpr int rhythm_rise = 14;
constexpr double rhythm_low = 0.4, rhythm_high = 2.4;

std::string shop_deployment_json() {
    return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"shop","namespace":"default",)"
           R"("annotations":{"sim.hpaplus.io/cpu-load":"400m"}},)"
           R"("spec":{"replicas":2,"selector":{"matchLabels":{"app":"shop"}},"template":{"metadata":)"
           R"({"labels":{"app":"shop"}},"spec":{"containers":[{"name":"app","image":"nginx",)"
           R"("resources":{"requests":{"cpu":"500m"}}}]}}}})";
}

std::string shop_hpaplus_json() {
    return R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1","kind":"HPAPlus","metadata":)"
           R"({"name":"shop","namespace":"default"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1",)"
           R"("kind":"Deployment","name":"shop"},"minReplicas":2,"maxReplicas":12,)"
           R"("syncPeriodSeconds":1,"behavior":{"scaleDown":{"stabilizationWindowSeconds":0}},)"
           R"("metrics":[{"type":"Resource","name":"cpu","resource":{"name":"cpu","target":)"
           R"({"type":"Utilization","averageUtilization":50}}}],"prediction":{"metric":"cpu",)"
           R"("history":{"source":"Recorded","step":"1s"},"periods":[")" +
           std::to_string(rhythm_period) + R"(s"],"lookAhead":"4s","margin":0.1}}})";
}

// The load over the scenario, as fractions of its length: steady, a rise, a peak, a fall.
std::vector<std::pair<double, double>> load_profile() {
    return {{0.0, 0.6}, {0.20, 2.4}, {0.35, 4.0}, {0.55, 0.9}, {0.75, 0.5}};
}

std::string deployment_json() {
    return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default",)"
           R"("labels":{"app":"web"},"annotations":{"sim.hpaplus.io/cpu-load":"600m"}},)"
           R"("spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":)"
           R"({"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"nginx",)"
           R"("resources":{"requests":{"cpu":"500m","memory":"128Mi"}}}]}}}})";
}

std::string hpaplus_json(int scale_down_window) {
    return R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1","kind":"HPAPlus","metadata":)"
           R"({"name":"web","namespace":"default"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1",)"
           R"("kind":"Deployment","name":"web"},"minReplicas":2,"maxReplicas":12,)"
           R"("syncPeriodSeconds":2,"metrics":[{"type":"Resource","resource":{"name":"cpu",)"
           R"("target":{"type":"Utilization","averageUtilization":)" +
           std::to_string(target_utilization) +
           R"(}}}],"behavior":{"scaleDown":{"stabilizationWindowSeconds":)" +
           std::to_string(scale_down_window) + "}}}}";
}

int prewarm_at(int duration) {
    return std::max(2, duration * prewarm_at_percent / 100);
}
int release_at(int duration) {
    return duration * release_at_percent / 100;
}

// A 6-field schedule firing once a day, `seconds` from now on the UTC wall clock.
std::string schedule_in(int seconds) {
    const auto t = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) +
                   std::chrono::seconds(seconds);
    const std::chrono::hh_mm_ss tod(t - std::chrono::floor<std::chrono::days>(t));
    return std::to_string(tod.seconds().count()) + " " + std::to_string(tod.minutes().count()) +
           " " + std::to_string(tod.hours().count()) + " * * *";
}

// The CronHPA: a floor of 6 on the HPAPlus shortly before the load rises (pre-warming for a known
// peak), released once the load itself holds the replicas up.
std::string cronhpa_json(int duration) {
    return R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1","kind":"CronHPA","metadata":)"
           R"({"name":"web-prewarm","namespace":"default"},"spec":{"scaleTargetRef":)"
           R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1","kind":"HPAPlus","name":"web"},)"
           R"("timeZone":"UTC","jobs":[{"name":"prewarm","schedule":")" +
           schedule_in(prewarm_at(duration)) + R"(","targetSize":)" + std::to_string(prewarm_size) +
           R"(},{"name":"release","schedule":")" + schedule_in(release_at(duration)) +
           R"(","targetSize":2}]}})";
}

// What exists before the controller starts: the CRDs and the workloads, so that their pods are
// warm (their CPU counts) by the time it reads them.
std::optional<std::string> build_workloads(const demo_options& flags, sim::scenario& out) {
    for (const char* yaml : {hpaplus_crd_yaml, cronhpa_crd_yaml, vpaplus_crd_yaml}) {
        auto crds = kube::yaml_documents_to_json(yaml);
        if (!crds) return "a compiled-in CRD is not valid YAML: " + crds.error().text;
        out.objects.insert(out.objects.end(), crds->begin(), crds->end());
    }
    out.objects.push_back(deployment_json());
    if (flags.vertical) out.objects.push_back(vertical_deployment_json());
    if (flags.predictive) out.objects.push_back(shop_deployment_json());
    return std::nullopt;
}

sim::load_step load_at(double seconds, const char* deployment, double cores) {
    sim::load_step step;
    step.at = std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
    step.deployment = deployment;
    step.cpu = std::to_string(static_cast<int>(std::lround(cores * 1000))) + "m";
    return step;
}

// The scenario proper, from the moment the controller starts: the autoscalers and the load.
void build_scenario(const demo_options& flags, sim::scenario& out) {
    const int duration = flags.duration;
    // The window is a sixth of the run, so the scale-down visibly waits for it.
    out.objects.push_back(hpaplus_json(std::max(10, duration / 6)));
    out.objects.push_back(cronhpa_json(duration));
    if (flags.vertical) out.objects.push_back(vpaplus_json());
    for (const auto& [at, cores] : load_profile())
        out.load.push_back(load_at(at * duration, "web", cores));
    if (flags.predictive) {
        out.objects.push_back(shop_hpaplus_json());
        for (int cycle = 0; cycle < duration; cycle += rhythm_period) {
            out.load.push_back(load_at(cycle, "shop", rhythm_low));
            out.load.push_back(load_at(cycle + rhythm_rise, "shop", rhythm_high));
        }
        std::stable_sort(out.load.begin(), out.load.end(),
                         [](const auto& a, const auto& b) { return a.at < b.at; });
    }
}

const rapidjson::Value* member(const rapidjson::Value* v, const char* name) {
    if (!v || !v->IsObject()) return nullptr;
    const auto it = v->FindMember(name);
    return it == v->MemberEnd() ? nullptr : &it->value;
}

int int_member(const rapidjson::Value* v, const char* name) {
    const auto* m = member(v, name);
    return m && m->IsInt() ? m->GetInt() : 0;
}

// The load the scenario has put on a Deployment (its sim.hpaplus.io/cpu-load), in cores.
double load_cores(const rapidjson::Value& deployment) {
    const auto* load =
        member(member(member(&deployment, "metadata"), "annotations"), "sim.hpaplus.io/cpu-load");
    if (!load || !load->IsString()) return 0;
    const auto q = core::quantity::parse(load->GetString());
    return q ? q->as_double() : 0;
}

// Samples the cluster's state (read in process: the store is on this thread).
// Upstream's CPU rule leaves a pod's usage out until its sample starts a window after the pod
// became Ready, so a controller started with its pods reads no CPU for the first ~15 s. The demo
// waits that out before starting it: every pod of `web` Ready, then one metrics window more.
// Gives up after a minute (the demo then starts anyway).
void warm_up(asio::io_context& io, sim::cluster& cluster) {
    constexpr auto window = std::chrono::seconds(16);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    constexpr auto never = std::chrono::steady_clock::time_point::max();
    auto all_ready = never; // since when every pod is Ready
    while (std::chrono::steady_clock::now() < give_up) {
        io.run_for(std::chrono::milliseconds(250));
        auto& store = cluster.store();
        const auto* deployments = store.find("apps", "v1", "deployments");
        const auto d = deployments ? store.get(*deployments, "default", "web") : nullptr;
        const int wanted = d ? int_member(member(&d->doc, "spec"), "replicas") : -1;
        const int ready = d ? int_member(member(&d->doc, "status"), "readyReplicas") : 0;
        const auto now = std::chrono::steady_clock::now();
        if (ready != wanted)
            all_ready = never;
        else if (all_ready == never)
            all_ready = now;
        else if (now - all_ready >= window)
            return;
    }
}

class recorder {
  public:
    recorder(sim::cluster& cluster, manager& objects, bool predictive)
        : cluster_(cluster), objects_(objects), predictive_(predictive),
          start_(std::chrono::steady_clock::now()) {}

    double elapsed() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

    void sample(bool print) {
        demo_sample s;
        s.seconds = elapsed();
        auto& store = cluster_.store();
        if (auto* deployments = store.find("apps", "v1", "deployments")) {
            if (auto d = store.get(*deployments, "default", "web")) {
                s.replicas = int_member(member(&d->doc, "spec"), "replicas");
                s.ready = int_member(member(&d->doc, "status"), "readyReplicas");
                s.load_cores = load_cores(d->doc);
            }
        }
        if (auto* hpas = store.find("autoscaling.hpaplus.io", "v1alpha1", "hpapluses")) {
            if (auto h = store.get(*hpas, "default", "web")) {
                const auto* status = member(&h->doc, "status");
                if (const auto* d = member(status, "desiredReplicas"); d && d->IsInt())
                    s.desired = d->GetInt();
                if (const auto* f = member(status, "cronFloor"))
                    s.cron_floor = int_member(f, "replicas");
                const auto* metrics = member(status, "currentMetrics");
                if (metrics && metrics->IsArray() && !metrics->Empty()) {
                    const auto* u = member(member(member(&(*metrics)[0], "resource"), "current"),
                                           "averageUtilization");
                    if (u && u->IsInt()) s.utilization = u->GetInt();
                }
            }
        }
        s.vertical = vertical_pods(store);
        if (predictive_) s.shop = sample_shop(store, s.seconds);
        note_cron_floor(store, s.seconds);
        note_vertical_resizes(store, s.seconds);
        if (!samples_.empty() && s.replicas != samples_.back().replicas) {
            const int from = samples_.back().replicas;
            (s.replicas > from ? scale_ups_ : scale_downs_)++;
            flush_rescale();
            events_.push_back({s.seconds, "scaled " +
                                              std::string(s.replicas > from ? "up" : "down") +
                                              " from " + std::to_string(from) + " to " +
                                              std::to_string(s.replicas) + " replicas"});
            unexplained_ = rescale_note{events_.size() - 1, s.replicas, s.seconds};
        }
        explain_rescale(store, s.seconds);
        samples_.push_back(s);
        if (print) {
            const std::string cpu =
                s.utilization ? std::to_string(*s.utilization) + "%" : std::string("  ?");
            std::printf("[%4.0fs] load %4.2f cores | replicas %2d (ready %2d) | cpu %4s/%d%% | "
                        "reconciles %llu\n",
                        s.seconds, s.load_cores, s.replicas, s.ready, cpu.c_str(),
                        target_utilization,
                        static_cast<unsigned long long>(objects_.stats().reconciles));
        }
        std::fflush(stdout);
    }

    // The controller writes the Deployment's scale before it records the Event that gives the
    // reason, so a sample can fall between the two: the rescale waits (a few seconds at most) for
    // its reason before it is printed.
    void explain_rescale(sim::object_store& store, double seconds) {
        if (!unexplained_) return;
        auto& e = events_[unexplained_->event];
        const auto [reason, version] =
            rescale_reason(store, unexplained_->replicas, reason_version_);
        if (reason.empty() && seconds - unexplained_->seen < 5) return;
        e.text += reason;
        reason_version_ = std::max(reason_version_, version);
        flush_rescale();
    }

    // Prints the rescale still waiting for its reason, as it stands.
    void flush_rescale() {
        if (!unexplained_) return;
        const auto& e = events_[unexplained_->event];
        std::printf("[%4.0fs] %s\n", e.seconds, e.text.c_str());
        unexplained_.reset();
    }

    // The reason of the HPAPlus's SuccessfulRescale Event to `replicas` (its message is upstream's
    // "New size: N; reason: ..."), as ": reason", or "" when there is none (yet), with the Event's
    // resourceVersion. Only an Event written after `after` counts: a rescale back to a size reached
    // before (6 -> 3 -> 6) must not take the earlier rescale's reason while its own is on its way.
    static std::pair<std::string, std::uint64_t> rescale_reason(sim::object_store& store,
                                                                int replicas, std::uint64_t after) {
        auto* events = store.find("", "v1", "events");
        if (!events) return {};
        const std::string prefix = "New size: " + std::to_string(replicas) + "; reason: ";
        std::string reason;
        std::uint64_t version = 0;
        for (const auto& [key, e] : events->objects) {
            if (e->rv <= after || e->rv < version) continue;
            const auto* reason_field = member(&e->doc, "reason");
            const auto* message = member(&e->doc, "message");
            const auto* object = member(&e->doc, "involvedObject");
            const auto* name = member(object, "name");
            if (!reason_field || !reason_field->IsString() || !message || !message->IsString() ||
                !name || !name->IsString())
                continue;
            if (std::string_view(reason_field->GetString()) != "SuccessfulRescale" ||
                std::string_view(name->GetString()) != "web")
                continue;
            const std::string_view text = message->GetString();
            if (text.substr(0, prefix.size()) != prefix) continue;
            reason = text.substr(prefix.size());
            version = e->rv;
        }
        if (reason.empty()) return {};
        return {": " + reason, version};
    }

    // Notes when the CronHPA's floor on the HPAPlus changes.
    void note_cron_floor(sim::object_store& store, double seconds) {
        std::string floor = "none";
        if (auto* hpas = store.find("autoscaling.hpaplus.io", "v1alpha1", "hpapluses"))
            if (auto h = store.get(*hpas, "default", "web"))
                if (const auto* f = member(member(&h->doc, "status"), "cronFloor")) {
                    const auto* job = member(f, "job");
                    floor = std::to_string(int_member(f, "replicas")) + " (CronHPA job " +
                            (job && job->IsString() ? job->GetString() : "?") + ")";
                }
        if (floor == cron_floor_) return;
        cron_floor_ = floor;
        if (floor == "none" && samples_.empty()) return;
        events_.push_back({seconds, "cron floor " + floor});
        std::printf("[%4.0fs] %s\n", seconds, events_.back().text.c_str());
    }

    // --predictive: shop's load, replicas and forecast; a scale-up while its load is still low
    // is the forecast's (nothing else raises shop: its own load is low then).
    predictive_sample sample_shop(sim::object_store& store, double seconds) {
        predictive_sample p;
        if (auto* deployments = store.find("apps", "v1", "deployments"))
            if (auto d = store.get(*deployments, "default", "shop")) {
                p.replicas = int_member(member(&d->doc, "spec"), "replicas");
                p.load_cores = load_cores(d->doc);
            }
        if (auto* hpas = store.find("autoscaling.hpaplus.io", "v1alpha1", "hpapluses"))
            if (auto h = store.get(*hpas, "default", "shop"))
                if (const auto* f = member(member(&h->doc, "status"), "prediction"))
                    p.forecast_replicas = int_member(f, "replicas");
        if (!samples_.empty() && samples_.back().shop &&
            p.replicas > samples_.back().shop->replicas) {
            const int from = samples_.back().shop->replicas;
            ++shop_scale_ups_;
            p.ahead = p.load_cores < rhythm_high;
            shop_scale_ups_ahead_ += p.ahead ? 1 : 0;
            char text[160];
            std::snprintf(text, sizeof text,
                          "shop (predictive) scaled up from %d to %d replicas %s", from, p.replicas,
                          p.ahead ? "while its load was still low: ahead of the rise (the forecast)"
                                  : "under its load");
            events_.push_back({seconds, text});
            std::printf("[%4.0fs] %s\n", seconds, text);
        }
        return p;
    }

    // The requests and usage of the `api` pods (the --vertical scenario; none otherwise).
    std::vector<pod_resources> vertical_pods(sim::object_store& store) const {
        std::vector<pod_resources> out;
        auto* pods = store.find("", "v1", "pods");
        if (!pods) return out;
        for (const auto& [key, p] : pods->objects) {
            const auto label = p->labels.find("app");
            if (p->namespace_ != "default" || label == p->labels.end() || label->second != "api")
                continue;
            pod_resources r;
            r.name = p->name;
            const auto* containers = member(member(&p->doc, "spec"), "containers");
            for (std::size_t i = 0; containers && containers->IsArray() && i < containers->Size();
                 ++i) {
                const auto* requests =
                    member(member(&(*containers)[static_cast<rapidjson::SizeType>(i)], "resources"),
                           "requests");
                const auto milli = [&](const char* name) -> std::int64_t {
                    const auto* v = member(requests, name);
                    const auto q = v && v->IsString() ? core::quantity::parse(v->GetString())
                                                      : core::quantity::parse("0");
                    return q ? q->milli_value() : 0;
                };
                r.cpu_request_milli += milli("cpu");
                r.memory_request_bytes += milli("memory") / 1000;
            }
            if (const auto usage = cluster_.workload().usage_of(*p)) {
                r.cpu_usage_milli = usage->cpu_milli;
                r.memory_usage_bytes = usage->memory_bytes;
            }
            out.push_back(std::move(r));
        }
        return out;
    }

    // Notes each change of the requests of the `api` pods (the --vertical scenario).
    void note_vertical_resizes(sim::object_store& store, double seconds) {
        auto* pods = store.find("", "v1", "pods");
        if (!pods) return;
        for (const auto& [key, p] : pods->objects) {
            const auto label = p->labels.find("app");
            if (p->namespace_ != "default" || label == p->labels.end() || label->second != "api")
                continue;
            const auto* spec = member(&p->doc, "spec");
            const auto* containers = member(spec, "containers");
            if (!containers || !containers->IsArray() || containers->Empty()) continue;
            const auto* requests = member(member(&(*containers)[0], "resources"), "requests");
            const auto text = [&](const char* name) {
                const auto* v = member(requests, name);
                return v && v->IsString() ? std::string(v->GetString()) : std::string("none");
            };
            const std::string now = "cpu " + text("cpu") + ", memory " + text("memory");
            auto [it, fresh] = pod_requests_.try_emplace(p->name, now);
            if (fresh || it->second == now) continue;
            const std::string before = it->second;
            it->second = now;
            ++vertical_resizes_;
            const auto* statuses = member(member(&p->doc, "status"), "containerStatuses");
            const int restarts = statuses && statuses->IsArray() && !statuses->Empty()
                                     ? int_member(&(*statuses)[0], "restartCount")
                                     : 0;
            events_.push_back({seconds, "VPAPlus resized pod " + p->name + " in place: " + before +
                                            " → " + now + " (restarts " + std::to_string(restarts) +
                                            ")"});
            std::printf("[%4.0fs] %s\n", seconds, events_.back().text.c_str());
        }
    }

    demo_summary summary() const {
        demo_summary out;
        out.scale_ups = scale_ups_;
        out.scale_downs = scale_downs_;
        for (const auto& s : samples_)
            out.max_replicas = std::max(out.max_replicas, s.replicas);
        out.final_replicas = samples_.empty() ? 0 : samples_.back().replicas;
        out.reconciles = objects_.stats().reconciles;
        out.errors = objects_.stats().errors;
        out.duration_seconds = elapsed();
        out.target_utilization = target_utilization;
        out.vertical_resizes = vertical_resizes_;
        out.predictive = predictive_;
        out.shop_scale_ups = shop_scale_ups_;
        out.shop_scale_ups_ahead = shop_scale_ups_ahead_;
        return out;
    }
    const std::vector<demo_sample>& samples() const { return samples_; }
    const std::vector<demo_event>& events() const { return events_; }

  private:
    sim::cluster& cluster_;
    manager& objects_;
    bool predictive_ = false;
    std::chrono::steady_clock::time_point start_;
    std::vector<demo_sample> samples_;
    std::vector<demo_event> events_;
    int scale_ups_ = 0;
    int scale_downs_ = 0;
    struct rescale_note {
        std::size_t event; ///< index in events_
        int replicas;      ///< the size it rescaled to
        double seen;       ///< when the sample saw it
    };
    std::optional<rescale_note> unexplained_; ///< a rescale whose Event is not recorded yet
    std::uint64_t reason_version_ = 0; ///< the resourceVersion of the last Event that gave a reason
    std::string cron_floor_ = "none";
    std::map<std::string, std::string> pod_requests_; ///< api pod → its requests, as last seen
    int vertical_resizes_ = 0;
    int shop_scale_ups_ = 0;
    int shop_scale_ups_ahead_ = 0;
};

bool write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    return static_cast<bool>(out);
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

int run_demo(const demo_options& flags) {
    sim::scenario workloads;
    if (auto error = build_workloads(flags, workloads)) {
        std::fprintf(stderr, "hpaplus demo: %s\n", error->c_str());
        return 1;
    }
    // Quieter than the controller: the demo's own progress lines are what it shows.
    controller::log_options logs;
    logs.level = spdlog::level::warn;
    if (auto wrong = controller::resolve_log_options("", "", controller::environment(), logs)) {
        std::fprintf(stderr, "hpaplus demo: %s\n", wrong->c_str());
        return 2;
    }
    controller::configure_logging(logs);
    try {
        asio::io_context io(1);
        sim::cluster_options cluster_options;
        cluster_options.address = flags.address;
        cluster_options.port = flags.port;
        sim::cluster cluster(io, cluster_options);
        cluster.start();
        if (auto error = cluster.play(workloads)) {
            std::fprintf(stderr, "hpaplus demo: setting up the workloads: %s\n", error->c_str());
            return 1;
        }
        std::printf("HPAPlus demo: warming up the workload on the simulated cluster at %s (a "
                    "pod's CPU counts from 15 s after it is Ready, as upstream's HPA rule has "
                    "it)...\n",
                    cluster.url().c_str());
        std::fflush(stdout);
        warm_up(io, cluster);
        sim::scenario scenario; // built now: the CronHPA's times count from here
        build_scenario(flags, scenario);
        if (auto error = cluster.play(scenario)) {
            std::fprintf(stderr, "hpaplus demo: setting up the scenario: %s\n", error->c_str());
            return 1;
        }
        auto config = kube::parse_kubeconfig(cluster.kubeconfig(), "/");
        if (!config) throw std::runtime_error(config.error().text);
        controller_options options;
        options.leader.enabled = false;
        options.ops_listen = "127.0.0.1:0";
        if (flags.vertical) {
            options.enable_vertical = true;
            options.vertical.interval = std::chrono::seconds(2);
            // Seconds of history keep every bound wide; like pods past the 12 h mark, they are
            // updated for a change of 10 % or more.
            options.vertical.lifetime_threshold = std::chrono::seconds(0);
        }
        controller_process process(io, std::move(*config), options);
        recorder rec(cluster, process.objects(), flags.predictive);

        std::printf("HPAPlus demo: %d s on the simulated cluster at %s\n", flags.duration,
                    cluster.url().c_str());
        std::printf("  watch it:  kubectl --server %s get hpap,chpa,deploy\n",
                    cluster.url().c_str());
        std::printf("  load:      %s cores at 0 s, rising, then falling (CPU request 500m per pod, "
                    "target %d %%)\n",
                    "0.6", target_utilization);
        std::printf("  cron:      CronHPA web-prewarm holds a floor of %d from %d s to %d s\n",
                    prewarm_size, prewarm_at(flags.duration), release_at(flags.duration));
        if (flags.vertical)
            std::printf(
                "  vertical:  VPAPlus api resizes pods of Deployment api in place (they use "
                "600m/300Mi against 100m/128Mi requested)\n");
        if (flags.predictive)
            std::printf("  predict:   HPAPlus shop records its CPU each second and, after two "
                        "cycles, scales ahead of the rise (load %.1f cores from %d s to %d s of "
                        "every %d s, else %.1f)\n",
                        rhythm_high, rhythm_rise, rhythm_period, rhythm_period, rhythm_low);
        std::printf("\n");
        std::fflush(stdout);

        int exit_code = 0;
        bool finished = false;
        auto finish = [&](int code) {
            if (finished) return;
            finished = true;
            exit_code = code;
            process.shutdown();
        };
        process.start([&](int code) {
            if (code != 0) exit_code = code;
            cluster.stop();
            io.stop();
        });
        if (!process.ops_url().empty())
            std::printf("  metrics:   %s/metrics\n\n", process.ops_url().c_str());

        controller::stop_signal signals(io, [&] { finish(130); });
        asio::steady_timer tick(io);
        int ticks = 0;
        std::function<void()> schedule = [&] {
            tick.expires_after(std::chrono::milliseconds(500));
            tick.async_wait([&](const boost::system::error_code& ec) {
                if (ec || finished) return;
                rec.sample(++ticks % 6 == 0);
                if (rec.elapsed() >= flags.duration) {
                    signals.cancel();
                    finish(0);
                    return;
                }
                schedule();
            });
        };
        rec.sample(true);
        schedule();
        io.run();
        rec.flush_rescale();

        const demo_summary summary = rec.summary();
        std::printf("\nDone: %d scale-ups, %d scale-downs, at most %d replicas, %d at the end; "
                    "%llu reconciles, %llu errors.\n",
                    summary.scale_ups, summary.scale_downs, summary.max_replicas,
                    summary.final_replicas, static_cast<unsigned long long>(summary.reconciles),
                    static_cast<unsigned long long>(summary.errors));
        if (flags.vertical)
            std::printf("Vertical: %d in-place pod resizes.\n", summary.vertical_resizes);
        if (flags.predictive)
            std::printf("Predictive: shop scaled up %d times, %d of them ahead of its load.\n",
                        summary.shop_scale_ups, summary.shop_scale_ups_ahead);
        const std::string title = "HPAPlus demo: load and replicas over time";
        const std::string report =
            ends_with(flags.report, ".svg")
                ? render_svg(rec.samples(), rec.events(), title, target_utilization)
                : render_html(rec.samples(), rec.events(), summary, title);
        if (!write_file(flags.report, report)) {
            std::fprintf(stderr, "hpaplus demo: cannot write the report %s\n",
                         flags.report.c_str());
            return 1;
        }
        std::printf("Report: %s (open it in a browser)\n", flags.report.c_str());
        if (!flags.summary_json.empty() && !write_file(flags.summary_json, summary_json(summary))) {
            std::fprintf(stderr, "hpaplus demo: cannot write %s\n", flags.summary_json.c_str());
            return 1;
        }
        return exit_code;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hpaplus demo: %s\n", e.what());
        return 1;
    }
}

} // namespace hpaplus::demo
