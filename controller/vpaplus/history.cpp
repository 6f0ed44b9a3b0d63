// controller/vpaplus/history.cpp — two range queries and feeding their points.
#include "controller/vpaplus/history.hpp"

#include <algorithm>

namespace hpaplus::controller {

namespace asio = boost::asio;

std::string history_selector(const std::string& ns, const std::string& workload) {
    std::string prefix;
    for (char c : workload) { // names are DNS labels; only '.' means something in a regex
        if (c == '.') prefix += "\\\\";
        prefix += c;
    }
    return "{namespace=\"" + ns + "\",pod=~\"" + prefix +
           "-.+\",container!=\"\",container!=\"POD\"}";
}

namespace {

// Where a series belongs: its container's history and the pod container's window.
struct series_key {
    std::string pod;
    std::string container;
};

std::optional<series_key> key_of(const metrics::range_series& s) {
    const auto pod = s.labels.find("pod");
    const auto container = s.labels.find("container");
    if (pod == s.labels.end() || container == s.labels.end() || container->second.empty())
        return std::nullopt;
    return series_key{pod->second, container->second};
}

} // namespace

asio::awaitable<history_load> load_history(metrics::http_backend& backend, const std::string& ns,
                                           const std::string& workload,
                                           const vertical_options& options, vertical_memory& m,
                                           core::time_point now) {
    history_load out;
    const auto step =
        std::max(std::chrono::seconds(1),
                 std::chrono::duration_cast<std::chrono::seconds>(options.history_resolution));
    const core::time_point start = now - options.history_length;
    const std::string selector = history_selector(ns, workload);
    // As upstream: the CPU rate over one resolution step, the working set as it was.
    const std::string cpu_query = "rate(container_cpu_usage_seconds_total" + selector + "[" +
                                  std::to_string(step.count()) + "s])";
    const std::string memory_query = "container_memory_working_set_bytes" + selector;
    const auto cpu = co_await backend.query_range(cpu_query, start, now, step);
    if (!cpu.error.empty()) {
        out.error = cpu.error;
        co_return out;
    }
    const auto memory = co_await backend.query_range(memory_query, start, now, step);
    if (!memory.error.empty()) {
        out.error = memory.error;
        co_return out;
    }
    std::set<std::string> containers;
    // Windows of pods that may be gone are keyed by name (no uid in Prometheus); the next pass
    // forgets them, the histograms keep what they added.
    for (const auto& s : cpu.series) {
        const auto key = key_of(s);
        if (!key) continue;
        auto& history = m.history.try_emplace(key->container, m.config).first->second;
        auto& window = m.windows["history:" + key->pod + "/" + key->container];
        containers.insert(key->container);
        // As upstream's history provider: CPUAmountFromCores and MemoryAmountFromBytes (truncated).
        for (const auto& [at, cores] : s.points)
            if (window.add_cpu(history, vertical::resource_amount(cores * 1000.0), at))
                ++out.cpu_samples;
    }
    for (const auto& s : memory.series) {
        const auto key = key_of(s);
        if (!key) continue;
        auto& history = m.history.try_emplace(key->container, m.config).first->second;
        auto& window = m.windows["history:" + key->pod + "/" + key->container];
        containers.insert(key->container);
        for (const auto& [at, bytes] : s.points) {
            if (window.add_memory(history, vertical::resource_amount(bytes), at, m.config))
                ++out.memory_samples;
        }
    }
    out.containers = containers.size();
    co_return out;
}

} // namespace hpaplus::controller
