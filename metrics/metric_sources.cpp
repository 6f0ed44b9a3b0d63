// metrics/metric_sources.cpp — the backends, and one object's metrics gathered concurrently.
#include "metrics/metric_sources.hpp"

#include "metrics/backend_reading.hpp"
#include "metrics/backends/types.hpp"
#include "metrics/metrics_api.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <limits>

namespace hpaplus::metrics {
namespace asio = boost::asio;

namespace {

constexpr std::size_t pod_metrics_task = std::numeric_limits<std::size_t>::max();

// One object's readings while its fetches run; the last fetch to finish wakes the reader.
struct gather {
    gather(const asio::any_io_executor& ex, std::size_t metrics)
        : readings(metrics), done(ex, std::chrono::steady_clock::time_point::max()) {}
    std::vector<policy::metric_reading> readings;
    pod_metrics_answer pod_metrics;
    std::size_t pending = 0;
    asio::steady_timer done;
};

bool uses_pod_metrics(const policy::metric_spec& spec) {
    return spec.type == policy::metric_source_type::resource ||
           spec.type == policy::metric_source_type::container_resource;
}

} // namespace

struct metric_sources::impl {
    impl(asio::any_io_executor ex, kube::api_client& c, std::chrono::milliseconds window,
         std::shared_ptr<pod_metrics_exchange> exchange)
        : executor(ex), cluster(c), pod_metrics(ex, c, window, std::move(exchange)) {}
    asio::any_io_executor executor;
    kube::api_client& cluster;
    shared_pod_metrics pod_metrics;
    http_backends backends;
    std::vector<std::string> metrics_api_names; ///< backends of type metricsAPI
    backend_stats metrics_api;                  ///< reads from the metrics APIs

    /// Counts one read from the metrics APIs that started at `started`.
    void count_metrics_api(std::chrono::steady_clock::time_point started, bool failed) {
        ++metrics_api.sent;
        metrics_api.latency.observe(std::chrono::steady_clock::now() - started);
        if (failed) {
            ++metrics_api.failed;
            ++metrics_api.unavailable;
        }
    }

    bool is_metrics_api(const std::string& name) const {
        return name.empty() || std::find(metrics_api_names.begin(), metrics_api_names.end(),
                                         name) != metrics_api_names.end();
    }
};

namespace {

constexpr const char* internal_error = "internal error while reading the metric";

asio::awaitable<void>
fetch_pod_metrics(std::shared_ptr<metric_sources::impl> self, std::shared_ptr<gather> state,
                  std::string ns, std::string selector, std::vector<std::string_view> pod_names,
                  std::uint64_t after_read, std::shared_ptr<const core::label_selector> parsed) {
    const auto started = std::chrono::steady_clock::now();
    state->pod_metrics = co_await self->pod_metrics.read(
        std::move(ns), std::move(selector), std::move(pod_names), after_read, std::move(parsed));
    self->count_metrics_api(started, !state->pod_metrics.error.empty());
}

asio::awaitable<void> fetch_from_api(std::shared_ptr<metric_sources::impl> self,
                                     std::shared_ptr<gather> state, std::size_t index,
                                     std::string ns, std::string selector,
                                     policy::metric_spec spec) {
    const auto started = std::chrono::steady_clock::now();
    state->readings[index] = co_await read_custom_or_external(self->cluster, std::move(ns),
                                                              std::move(selector), std::move(spec));
    self->count_metrics_api(started, state->readings[index].error.has_value());
}

// `keep` holds the backend alive while the request is out.
asio::awaitable<void>
fetch_from_backend([[maybe_unused]] std::shared_ptr<metric_sources::impl> keep,
                   std::shared_ptr<gather> state, std::size_t index, http_backend* backend,
                   std::string query, template_values values, policy::metric_spec spec) {
    const backend_config& config = backend->config();
    std::string time_query =
        spec.max_sample_age ? config.type->sample_time_query(query) : std::string();
    backend_answer answer = co_await backend->fetch(std::move(query), values);
    if (!time_query.empty() && answer.kind == answer_kind::values)
        date_samples(answer, co_await backend->fetch(std::move(time_query), std::move(values)));
    set_backend_reading(answer, spec, config.name, config.pod_label, core::wall_now(),
                        state->readings[index]);
}

} // namespace

metric_sources::metric_sources(asio::any_io_executor executor, kube::api_client& cluster,
                               const backends_file& file,
                               std::chrono::milliseconds pod_metrics_window,
                               std::shared_ptr<pod_metrics_exchange> exchange)
    : impl_(std::make_shared<impl>(executor, cluster, pod_metrics_window, std::move(exchange))) {
    impl_->backends = make_http_backends(executor, file);
    for (const auto& b : file.backends)
        if (!b.type->over_http()) impl_->metrics_api_names.push_back(b.name);
}

metric_sources::~metric_sources() = default;

std::uint64_t metric_sources::pod_metrics_lists() const {
    return impl_->pod_metrics.lists_sent();
}

asio::awaitable<std::vector<policy::metric_reading>> metric_sources::read(
    const policy::autoscaler& hpa, const std::string& target_name, const std::string& pod_selector,
    const std::vector<const policy::pod_info*>& pods, std::uint64_t& pod_metrics_read,
    std::shared_ptr<const core::label_selector> parsed_selector) {
    const auto& metrics = hpa.spec.metrics;
    auto state = std::make_shared<gather>(impl_->executor, metrics.size());
    auto spawn = [&](asio::awaitable<void> task, std::size_t index) {
        ++state->pending;
        asio::co_spawn(impl_->executor, std::move(task), [state, index](std::exception_ptr e) {
            if (e) {
                if (index == pod_metrics_task)
                    state->pod_metrics.error = internal_error;
                else
                    state->readings[index].error = internal_error;
            }
            if (--state->pending == 0) state->done.cancel();
        });
    };

    std::vector<std::string_view> pod_names;
    pod_names.reserve(pods.size());
    for (const auto* p : pods)
        pod_names.push_back(p->name);
    bool need_pod_metrics = false;
    for (std::size_t i = 0; i < metrics.size(); ++i) {
        const policy::metric_spec& spec = metrics[i];
        if (spec.type == policy::metric_source_type::formula) continue; // computed, not read
        if (impl_->is_metrics_api(spec.backend)) {
            if (uses_pod_metrics(spec))
                need_pod_metrics = true;
            else
                spawn(fetch_from_api(impl_, state, i, hpa.namespace_, pod_selector, spec), i);
            continue;
        }
        http_backend* backend = find_backend(impl_->backends, spec.backend);
        policy::metric_reading& r = state->readings[i];
        const std::string who = "backend \"" + spec.backend + "\"";
        if (!backend) {
            r.error = who + " is not configured (see --metric-backends)";
            continue;
        }
        if (spec.backend_query.empty()) {
            r.error = who + ": the metric has no backend.query";
            continue;
        }
        const query_context ctx{hpa.namespace_, hpa.name,  target_name,
                                pod_selector,   pod_names, backend->config().window};
        auto values = query_values(spec, ctx);
        auto query =
            values ? expand_query(spec.backend_query, *values, backend->config().query_language)
                   : core::outcome<std::string>(values.error());
        if (!query) {
            r.error = who + ": backend.query: " + query.error().text;
            continue;
        }
        spawn(fetch_from_backend(impl_, state, i, backend, std::move(*query), std::move(*values),
                                 spec),
              i);
    }
    if (need_pod_metrics && state->pending == 0) {
        // The usual autoscaler reads only the pods' metrics: nothing to wait for alongside, so
        // the read needs no task (and no copies) of its own. A throw is reported as a spawned
        // read's would be.
        const auto started = std::chrono::steady_clock::now();
        try {
            state->pod_metrics =
                co_await impl_->pod_metrics.read(hpa.namespace_, pod_selector, std::move(pod_names),
                                                 pod_metrics_read, std::move(parsed_selector));
        } catch (const std::exception&) {
            state->pod_metrics = pod_metrics_answer{};
            state->pod_metrics.error = internal_error;
        }
        impl_->count_metrics_api(started, !state->pod_metrics.error.empty());
    } else if (need_pod_metrics) {
        spawn(fetch_pod_metrics(impl_, state, hpa.namespace_, pod_selector, pod_names,
                                pod_metrics_read, std::move(parsed_selector)),
              pod_metrics_task);
    }
    if (state->pending > 0) {
        boost::system::error_code ec;
        co_await state->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    if (need_pod_metrics) pod_metrics_read = state->pod_metrics.shared_read;
    for (std::size_t i = 0; need_pod_metrics && i < metrics.size(); ++i)
        if (impl_->is_metrics_api(metrics[i].backend) && uses_pod_metrics(metrics[i]))
            set_resource_reading(state->pod_metrics, metrics[i], state->readings[i]);
    co_return std::move(state->readings);
}

pod_metrics_pool& metric_sources::list_pool() {
    return impl_->pod_metrics.pool();
}

http_backend* metric_sources::backend(const std::string& name) const {
    return find_backend(impl_->backends, name);
}

std::vector<backend_summary> metric_sources::backend_summaries() const {
    std::vector<backend_summary> out;
    out.reserve(impl_->backends.size() + 1);
    out.push_back({"metricsAPI", std::string(metrics_api_type().name()), impl_->metrics_api});
    for (const auto& b : impl_->backends)
        out.push_back({b->config().name, std::string(b->config().type->name()), b->stats()});
    return out;
}

} // namespace hpaplus::metrics
