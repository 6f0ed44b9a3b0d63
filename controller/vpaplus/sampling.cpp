// controller/vpaplus/sampling.cpp — PodMetrics and OOM kills into the histories; the Prometheus
// seed.
#include "controller/vpaplus/sampling.hpp"

#include "controller/vpaplus/history.hpp"
#include "core/duration.hpp"
#include "core/kubernetes.hpp"

#include <spdlog/spdlog.h>

#include <map>
#include <set>

namespace hpaplus::controller {
namespace {

using core::condition_status;

const vertical::container_resources*
find_container(const std::vector<vertical::container_resources>& list, const std::string& name) {
    for (const auto& c : list)
        if (c.name == name) return &c;
    return nullptr;
}

// The requests in force: what the runtime reports (status) when it does, else the spec.
vertical::container_resources in_force(const vertical::pod_view& p, const std::string& container) {
    if (const auto* c = find_container(p.applied, container)) return *c;
    if (const auto* c = find_container(p.desired, container)) return *c;
    return {container, {}, {}, {}, {}};
}

} // namespace

void add_samples(vertical_memory& m, const std::vector<vertical::pod_view>& pods,
                 const metrics::pod_metrics_answer& answer, sample_recorder* record,
                 const std::string& vpa) {
    std::map<std::string, const vertical::pod_view*, std::less<>> by_name;
    for (const auto& p : pods)
        by_name.emplace(p.name, &p);
    for (const auto* listed : answer.items) {
        const core::pod_metrics& item = *listed;
        const auto it = by_name.find(item.name);
        if (it == by_name.end()) continue;
        const vertical::pod_view& pod = *it->second;
        for (const auto& c : item.containers) {
            auto& history = m.history.try_emplace(c.name, m.config).first->second;
            auto& window = m.windows[pod.uid + "/" + c.name];
            // As upstream's metrics client: MilliValue() and Value(), both rounded up.
            std::optional<std::int64_t> cpu, memory;
            if (const auto* q = core::find_resource(c.usage, "cpu")) cpu = q->milli_value();
            if (const auto* q = core::find_resource(c.usage, "memory")) memory = q->value();
            if (cpu) window.add_cpu(history, *cpu, item.timestamp);
            if (memory) window.add_memory(history, *memory, item.timestamp, m.config);
            if (record) record->sample(vpa, item.timestamp, pod.name, c.name, cpu, memory);
        }
    }
    for (const auto& pod : pods) {
        for (const auto& oom : pod.oom_kills) {
            const std::string key = pod.uid + "/" + oom.container + "/" +
                                    std::to_string(oom.finished.time_since_epoch().count());
            if (!m.ooms_seen.insert(key).second) continue;
            auto& history = m.history.try_emplace(oom.container, m.config).first->second;
            const auto request = in_force(pod, oom.container).memory_request_bytes.value_or(0);
            m.windows[pod.uid + "/" + oom.container].record_oom(history, request, oom.finished,
                                                                m.config);
            if (record) record->oom(vpa, oom.finished, pod.name, oom.container, request);
        }
    }
}

void forget_gone(vertical_memory& m, const std::vector<vertical::pod_view>& pods) {
    std::set<std::string> alive;
    for (const auto& p : pods)
        alive.insert(p.uid);
    const auto uid_of = [](const std::string& key) { return key.substr(0, key.find('/')); };
    std::erase_if(m.windows, [&](const auto& kv) { return !alive.count(uid_of(kv.first)); });
    std::erase_if(m.ooms_seen, [&](const auto& k) { return !alive.count(uid_of(k)); });
    std::erase_if(m.attempts, [&](const auto& kv) { return !alive.count(kv.first); });
    std::erase_if(m.evicted, [&](const auto& uid) { return !alive.count(uid); });
}

asio::awaitable<void> seed_history(vertical_env& env, const vpaplus& v, vertical_memory& m,
                                   vpaplus_status& status, core::time_point now) {
    m.history_loaded = true;
    const auto& o = env.options;
    if (!m.history.empty()) {
        core::set_condition(status.conditions, "HistoryLoaded", condition_status::false_,
                            "FromCheckpoints",
                            "history restored from checkpoints; Prometheus not read", now);
        co_return;
    }
    const auto loaded = co_await load_history(*env.history, v.ns, v.target.name, o, m, now);
    const std::string from = "backend " + o.history_backend + " (the last " +
                             core::format_go_duration(o.history_length) + ", one point per " +
                             core::format_go_duration(o.history_resolution) + ")";
    if (!loaded.error.empty()) {
        spdlog::warn("{}/{}: no history from Prometheus: {}", v.ns, v.name, loaded.error);
        core::set_condition(status.conditions, "HistoryLoaded", condition_status::false_,
                            "PrometheusUnavailable",
                            loaded.error + "; recommending from the metrics API only", now);
        co_return;
    }
    const std::string what = std::to_string(loaded.cpu_samples) + " cpu and " +
                             std::to_string(loaded.memory_samples) + " memory samples of " +
                             std::to_string(loaded.containers) + " containers from " + from;
    spdlog::info("{}/{}: history: {}", v.ns, v.name, what);
    core::set_condition(status.conditions, "HistoryLoaded", condition_status::true_,
                        "PrometheusHistory", what, now);
}

} // namespace hpaplus::controller
