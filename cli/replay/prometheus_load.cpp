// cli/replay/prometheus_load.cpp — range queries for replay: the metric's backend query when it
// has one, otherwise the cAdvisor series of the workload's pods or the metric by its name.
#include "cli/replay/prometheus_load.hpp"

#include "metrics/backend_reading.hpp"
#include "metrics/backends/backend_type.hpp"
#include "metrics/http_backend.hpp"
#include "metrics/query_template.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <cmath>

namespace hpaplus::cli {
namespace {

namespace asio = boost::asio;
using metrics::escape_string;

// Prometheus answers at most 11,000 points per series; ask in pieces below that.
constexpr std::int64_t max_points_per_query = 10000;

std::string pods_regex(const policy::autoscaler& hpa) {
    const std::string_view target = hpa.spec.scale_target_ref.name;
    return metrics::regex_alternation({target}) + "-.*";
}

// `{__name__="NAME",...}`: valid whatever characters the metric name has.
core::outcome<std::string> by_name(const std::string& name,
                                   const std::optional<core::label_selector_spec>& selector,
                                   const std::string& more) {
    std::string matchers = "__name__=\"" + escape_string(name) + "\"" + more;
    if (selector) {
        auto parsed = core::to_label_selector(*selector);
        if (!parsed) return core::error_message(parsed.error().text);
        auto promql = metrics::promql_matchers(*parsed);
        if (!promql) return core::error_message(promql.error().text);
        if (!promql->empty()) matchers += "," + *promql;
    }
    return core::success("sum({" + matchers + "})");
}

// A free function, not a lambda: GCC 12 miscompiles coroutine lambdas.
asio::awaitable<void> read_range(metrics::http_backend& backend, std::string query,
                                 core::time_point from, core::time_point to,
                                 std::chrono::seconds step, metrics::range_answer& out) {
    out = co_await backend.query_range(std::move(query), from, to, step);
}

} // namespace

core::outcome<std::string> replay_query(const policy::autoscaler& hpa, std::size_t index,
                                        std::chrono::seconds rate_window) {
    const std::string window = std::to_string(rate_window.count()) + "s";
    const policy::metric_spec& m = hpa.spec.metrics[index];
    const std::string ns = escape_string(hpa.namespace_);
    const std::string pods = escape_string(pods_regex(hpa));
    const std::string pod_matchers = "namespace=\"" + ns + "\",pod=~\"" + pods + "\"";
    if (!m.backend.empty()) {
        if (m.backend_query.empty())
            return core::error_message("its backend has no query to read it with");
        const metrics::query_context ctx{
            hpa.namespace_, hpa.name, hpa.spec.scale_target_ref.name, "", {}, window};
        auto values = metrics::query_values(m, ctx);
        if (!values) return core::error_message(values.error().text);
        for (auto& [name, value] : *values)
            if (name == "pods") value = pods_regex(hpa);
        auto query =
            metrics::expand_query(m.backend_query, *values, metrics::value_encoding::promql);
        if (!query) return core::error_message(query.error().text);
        return core::success("sum(" + *query + ")");
    }
    const std::string container = m.type == policy::metric_source_type::container_resource
                                      ? ",container=\"" + escape_string(m.container) + "\""
                                      : ",container!=\"\",container!=\"POD\"";
    switch (m.type) {
    case policy::metric_source_type::resource:
    case policy::metric_source_type::container_resource:
        if (m.resource_name == "cpu")
            return core::success("sum(rate(container_cpu_usage_seconds_total{" + pod_matchers +
                                 container + "}[" + window + "]))");
        if (m.resource_name == "memory")
            return core::success("sum(container_memory_working_set_bytes{" + pod_matchers +
                                 container + "})");
        return core::error_message("Prometheus has no usage series for resource \"" +
                                   m.resource_name + "\"");
    case policy::metric_source_type::pods:
        return by_name(m.metric.name, m.metric.selector, "," + pod_matchers);
    case policy::metric_source_type::object:
        return by_name(m.metric.name, m.metric.selector, ",namespace=\"" + ns + "\"");
    case policy::metric_source_type::external:
        return by_name(m.metric.name, m.metric.selector, "");
    case policy::metric_source_type::formula:
        break;
    }
    return core::error_message("a Formula is computed, not read");
}

core::outcome<void> load_from_prometheus(const policy::autoscaler& hpa,
                                         const prometheus_range& range,
                                         policy::recorded_load& load) {
    load.start = range.from;
    load.step = range.step;
    const std::int64_t steps = (range.to - range.from) / range.step + 1;
    const auto rate_window = range.rate_window.count() > 0
                                 ? range.rate_window
                                 : std::max(4 * range.step, std::chrono::seconds(60));

    metrics::backend_config config;
    config.name = "prometheus";
    config.type = metrics::find_backend_type("prometheus");
    config.url = range.url;
    config.timeout = std::chrono::seconds(60);
    config.max_response_bytes = 64u << 20;
    asio::io_context io;
    std::unique_ptr<metrics::http_backend> backend;
    try {
        backend = std::make_unique<metrics::http_backend>(io.get_executor(), config);
    } catch (const std::exception& e) {
        return core::error_message(std::string("--prometheus: ") + e.what());
    }

    std::optional<std::string> failure;
    for (std::size_t i = 0; i < hpa.spec.metrics.size() && !failure; ++i) {
        if (hpa.spec.metrics[i].type == policy::metric_source_type::formula) continue;
        const std::string where = "spec.metrics[" + std::to_string(i) + "]";
        auto query = replay_query(hpa, i, rate_window);
        if (!query) return core::error_message(where + ": " + query.error().text);
        auto& values = load.series[i];
        values.assign(static_cast<std::size_t>(steps), std::nullopt);
        for (std::int64_t first = 0; first < steps && !failure; first += max_points_per_query) {
            const std::int64_t last = std::min(steps, first + max_points_per_query) - 1;
            const auto from = range.from + first * range.step;
            const auto to = range.from + last * range.step;
            metrics::range_answer answer;
            asio::co_spawn(io, read_range(*backend, *query, from, to, range.step, answer),
                           asio::detached);
            io.restart();
            io.run();
            if (!answer.error.empty()) {
                failure = where + ": " + answer.error + " (query: " + *query + ")";
                break;
            }
            for (const auto& series : answer.series) {
                for (const auto& [at, value] : series.points) {
                    const double k =
                        std::round(std::chrono::duration<double>(at - range.from).count() /
                                   static_cast<double>(range.step.count()));
                    if (k < 0 || k >= static_cast<double>(steps) || !std::isfinite(value)) continue;
                    auto& slot = values[static_cast<std::size_t>(k)];
                    slot = slot.value_or(0) + value;
                }
            }
        }
    }
    if (failure) return core::error_message(*failure);
    return {};
}

} // namespace hpaplus::cli
