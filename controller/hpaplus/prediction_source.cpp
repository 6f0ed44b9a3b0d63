// controller/hpaplus/prediction_source.cpp — spec.prediction's history and forecast.
#include "controller/hpaplus/prediction_source.hpp"

#include "core/duration.hpp"
#include "kinds/api_group.hpp"
#include "kinds/owned_object.hpp"
#include "kinds/prediction_checkpoint.hpp"
#include "kube/encode.hpp"
#include "kube/resources.hpp"
#include "metrics/backend_reading.hpp"
#include "policy/prediction.hpp"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace hpaplus::controller {
namespace {

using std::chrono::nanoseconds;

// Prometheus refuses a range query of more than 11,000 points per series.
constexpr std::int64_t points_per_read = 10'000;
// The forecast resamples at most this many buckets; a history holds no more samples.
constexpr std::size_t max_samples = std::size_t{1} << 21;
// A checkpoint's newest sample may be this far ahead of our clock (another replica's clock, or
// ours before a small correction); beyond it the checkpoint is not believed.
constexpr std::chrono::seconds checkpoint_skew{120};

// Whether `a` and `b` have the same past: the same source, backend, query, step and periods
// (compared each pass, so without building anything).
bool same_history(const policy::prediction_spec& a, const policy::prediction_spec& b) {
    return a.history == b.history && a.backend == b.backend && a.query == b.query &&
           a.step == b.step && a.periods == b.periods;
}

// How far back the forecast looks: four cycles of the longest period.
nanoseconds span_of(const policy::prediction_spec& p) {
    nanoseconds longest{0};
    for (const nanoseconds period : p.periods)
        longest = std::max(longest, period);
    return longest * 4;
}

// A spec whose history differs from the one in memory starts the history over.
void follow(prediction_memory& memory, const policy::prediction_spec& p) {
    if (memory.history_of && same_history(*memory.history_of, p)) return;
    memory = prediction_memory{};
    memory.history_of = p;
}

void forget_before(std::vector<forecast::sample>& samples, core::time_point oldest) {
    const auto first = std::find_if(samples.begin(), samples.end(),
                                    [&](const forecast::sample& s) { return s.time >= oldest; });
    samples.erase(samples.begin(), first);
    if (samples.size() > max_samples)
        samples.erase(samples.begin(), samples.end() - static_cast<std::ptrdiff_t>(max_samples));
}

// Reads what is new of a Backend history into memory.samples; an error says why it could not.
boost::asio::awaitable<std::optional<std::string>>
read_backend(metrics::metric_sources& metrics, const policy::autoscaler& hpa,
             const std::string& target_name, const std::string& pod_selector,
             prediction_memory& memory, core::time_point now) {
    const policy::prediction_spec& p = *hpa.spec.prediction;
    const std::string who = "backend \"" + p.backend + "\"";
    metrics::http_backend* backend = metrics.backend(p.backend);
    if (!backend) co_return who + " is not configured (see --metric-backends)";
    if (!backend->has_history())
        co_return who + " has no history (a prometheus backend): a history is read with range "
                        "queries";
    const policy::metric_spec* m = policy::named_metric(hpa.spec, p.metric);
    if (!m) co_return "spec.prediction.metric: no metric is named \"" + p.metric + "\"";
    const metrics::query_context ctx{hpa.namespace_, hpa.name, target_name,
                                     pod_selector,   {},       backend->config().window};
    auto values = metrics::query_values(*m, ctx);
    if (!values) co_return who + ": history.query: " + values.error().text;
    auto query = metrics::expand_query(p.query, *values, backend->config().query_language);
    if (!query) co_return who + ": history.query: " + query.error().text;

    // Whole seconds (Prometheus's step); the last few steps are read again, as samples that
    // arrived late may have changed them.
    const auto step =
        std::max(std::chrono::ceil<std::chrono::seconds>(p.step), std::chrono::seconds(1));
    core::time_point start = now - span_of(p);
    if (memory.read_until != core::time_point{})
        start = std::max(start, memory.read_until - 5 * step);
    forget_before(memory.samples, now - span_of(p));
    memory.samples.erase(std::find_if(memory.samples.begin(), memory.samples.end(),
                                      [&](const forecast::sample& s) { return s.time >= start; }),
                         memory.samples.end());
    while (start <= now) {
        const core::time_point end = std::min(now, start + points_per_read * step);
        const metrics::range_answer answer =
            co_await backend->query_range(*query, start, end, step);
        if (!answer.error.empty()) co_return answer.error;
        // Several series are summed at each time (the query gives the history in parts).
        std::map<core::time_point, double> summed;
        for (const auto& series : answer.series)
            for (const auto& [time, value] : series.points)
                if (std::isfinite(value)) summed[time] += value;
        for (const auto& [time, value] : summed)
            if (time >= start && time <= end) memory.samples.push_back({time, value});
        start = end + step;
    }
    forget_before(memory.samples, now - span_of(p));
    memory.read_until = now;
    co_return std::nullopt;
}

// Adds this pass's value of the named metric to the step it falls in.
void add_sample(const policy::autoscaler& hpa, const policy::decision& d, std::int32_t ready_pods,
                prediction_memory& memory, core::time_point now) {
    const policy::prediction_spec& p = *hpa.spec.prediction;
    follow(memory, p);
    const policy::metric_spec* m = policy::named_metric(hpa.spec, p.metric);
    if (!m) return;
    const auto index = static_cast<std::size_t>(m - hpa.spec.metrics.data());
    const auto record =
        std::find_if(d.metrics.begin(), d.metrics.end(),
                     [&](const policy::metric_record& r) { return r.index == index; });
    if (record == d.metrics.end() || !record->status) return;
    const auto value = policy::forecast_quantity(*m, *record->status, ready_pods);
    if (!value || !std::isfinite(*value)) return;
    auto& samples = memory.samples;
    // The wall clock went back (a step corrected it): what was recorded after now was stamped by
    // a clock that ran ahead. It goes, and recording goes on from now (it used to stop until the
    // clock caught up with the newest sample).
    while (!samples.empty() && samples.back().time > now)
        samples.pop_back();
    const auto bucket = [&](core::time_point t) { return t.time_since_epoch() / p.step; };
    if (!samples.empty() && samples.back().time <= now &&
        bucket(samples.back().time) == bucket(now)) {
        // One sample per step: the mean of the passes in it.
        samples.back().value += (*value - samples.back().value) / ++memory.last_count;
        return;
    }
    samples.push_back({now, *value});
    memory.last_count = 1;
    forget_before(samples, now - span_of(p));
}

// Reads a Recorded history back from its checkpoint, once.
boost::asio::awaitable<void> read_checkpoint(prediction_checkpoint_env& checkpoint,
                                             const policy::autoscaler& hpa,
                                             prediction_memory& memory, core::time_point now) {
    memory.checkpoint_read = true;
    const policy::prediction_spec& p = *hpa.spec.prediction;
    const std::string who = hpa.namespace_ + "/" + hpa.name;
    const auto response = co_await kube::get(
        checkpoint.client, kinds::resources::hpapluscheckpoints, hpa.namespace_, hpa.name);
    if (response.ec == kube::errc::not_found) co_return; // none yet
    if (!response) {
        spdlog::warn("{}: prediction history not read from its checkpoint: {}", who,
                     response.message());
        co_return;
    }
    memory.checkpoint.created = true;
    auto kept = kinds::decode_prediction_checkpoint(response.body);
    if (!kept) {
        spdlog::warn("{}: the checkpoint of its prediction history is unreadable ({}); starting "
                     "afresh",
                     who, kept.error().text);
        co_return;
    }
    // Believed only when this HPAPlus made it: anyone who may create objects in the namespace
    // could otherwise hand it a history (docs/prediction.md, "Trust"). A foreign or future-dated
    // one is reported, never merged, and replaced by the next write.
    const bool owned = std::find(kept->owner_uids.begin(), kept->owner_uids.end(),
                                 checkpoint.uid) != kept->owner_uids.end();
    const bool ahead = !kept->samples.empty() && kept->samples.back().time > now + checkpoint_skew;
    if (!owned || ahead) {
        memory.checkpoint.foreign = true;
        ++memory.untrusted_checkpoints;
        spdlog::warn("{}: the HPAPlusCheckpoint {} is not read as its prediction history: {}; it "
                     "is replaced by the next write",
                     who, who,
                     !owned
                         ? "its ownerReferences do not name this HPAPlus (uid " +
                               std::string(checkpoint.uid) + ")"
                         : "it holds samples up to " +
                               core::format_rfc3339(kept->samples.back().time) + ", ahead of now");
        co_return;
    }
    if (kept->metric != p.metric || kept->step != p.step) {
        spdlog::info("{}: the checkpoint holds a history of {} every {}, not of {} every {}; "
                     "starting afresh",
                     who, kept->metric, core::format_go_duration(kept->step), p.metric,
                     core::format_go_duration(p.step));
        co_return;
    }
    memory.samples = std::move(kept->samples);
    memory.last_count = 1;
    forget_before(memory.samples, now - span_of(p));
    spdlog::info("{}: prediction history restored from its checkpoint ({} samples)", who,
                 memory.samples.size());
}

boost::asio::awaitable<void> write_checkpoint(prediction_checkpoint_env& checkpoint,
                                              const policy::autoscaler& hpa,
                                              prediction_memory& memory, core::time_point now) {
    memory.checkpoint_written = now;
    const std::string who = hpa.namespace_ + "/" + hpa.name;
    const checkpoint_write w{checkpoint.client,
                             kinds::resources::hpapluscheckpoints,
                             hpa.namespace_,
                             "HPAPlusCheckpoint",
                             hpa.name,
                             checkpoint.fence_key,
                             who,
                             [&] {
                                 return kinds::owned_object("HPAPlusCheckpoint", hpa.name,
                                                            {"HPAPlus", hpa.name, checkpoint.uid},
                                                            {{"hpaPlusName", hpa.name}});
                             }};
    const kinds::prediction_history h{hpa.spec.prediction->metric, hpa.spec.prediction->step,
                                      memory.samples};
    co_await write_checkpoint_status(w, memory.checkpoint,
                                     kinds::encode_prediction_checkpoint_status(h, now));
}

} // namespace

boost::asio::awaitable<policy::prediction_input>
prediction_for(metrics::metric_sources& metrics, forecast_runner& forecasts,
               prediction_checkpoint_env& checkpoint, const policy::autoscaler& hpa,
               const std::string& target_name, const std::string& pod_selector,
               prediction_memory& memory, core::time_point now) {
    const policy::prediction_spec& p = *hpa.spec.prediction;
    follow(memory, p);
    if (p.history == policy::prediction_spec::source::recorded && !memory.checkpoint_read)
        co_await read_checkpoint(checkpoint, hpa, memory, now);
    if (memory.computed && now >= memory.computed_at && now - memory.computed_at < p.step)
        co_return memory.forecast;
    memory.computed = true;
    memory.computed_at = now;
    if (p.history == policy::prediction_spec::source::backend) {
        if (auto error =
                co_await read_backend(metrics, hpa, target_name, pod_selector, memory, now)) {
            memory.forecast = {};
            memory.forecast.why = "HistoryUnavailable";
            memory.forecast.message =
                "the history of " + p.metric + " could not be read: " + *error;
            co_return memory.forecast;
        }
    } else {
        forget_before(memory.samples, now - span_of(p));
    }
    forecast::forecast_input in;
    in.history = memory.samples;
    in.now = now;
    in.step = p.step;
    in.periods = p.periods;
    in.look_ahead = p.look_ahead;
    in.margin = p.margin;
    in.known_period = memory.forecast.period; // the last forecast's, kept while confirmed
    memory.forecast = policy::prediction_of(co_await forecasts.run(std::move(in)));
    co_return memory.forecast;
}

boost::asio::awaitable<void>
record_prediction_sample(prediction_checkpoint_env& checkpoint, const policy::autoscaler& hpa,
                         const policy::decision& d, std::int32_t ready_pods,
                         prediction_memory& memory, core::time_point now) {
    const policy::prediction_spec& p = *hpa.spec.prediction;
    if (p.history != policy::prediction_spec::source::recorded || !(p.step.count() > 0)) co_return;
    add_sample(hpa, d, ready_pods, memory, now);
    if (memory.checkpoint_read && !memory.samples.empty() &&
        (memory.checkpoint_written == core::time_point{} ||
         now - memory.checkpoint_written >= checkpoint.interval || now < memory.checkpoint_written))
        co_await write_checkpoint(checkpoint, hpa, memory, now);
}
} // namespace hpaplus::controller
