// metrics/backend_reading.cpp — backend answers as metric readings.
#include "metrics/backend_reading.hpp"

#include "policy/pod_grouping.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

namespace hpaplus::metrics {
namespace {

bool per_pod(policy::metric_source_type type) {
    return type == policy::metric_source_type::resource ||
           type == policy::metric_source_type::container_resource ||
           type == policy::metric_source_type::pods;
}

// The value in milli-units, or nothing when it does not fit in int64 (|value| >= 9.2e15): such a
// value is an error for its metric, never a saturated number reported as valid.
std::optional<std::int64_t> to_milli(double value) {
    const double milli = value * 1000;
    constexpr double limit = 9.2e18; // inside int64 after rounding
    if (!(milli < limit && milli > -limit)) return std::nullopt;
    return std::llround(milli);
}

std::string out_of_range(const std::string& who, double value, const std::string& pod) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    return who + " answered a value out of range: " + text +
           (pod.empty() ? "" : " for pod " + pod) +
           " (a metric value must fit in 64-bit milli-units, below 9.2e15 in magnitude)";
}

} // namespace

core::outcome<template_values> query_values(const policy::metric_spec& spec,
                                            const query_context& ctx) {
    const bool pods = per_pod(spec.type);
    core::label_selector selector;
    if (pods) {
        auto parsed = core::parse_label_selector(ctx.pod_selector);
        if (!parsed) return parsed.error();
        selector = std::move(*parsed);
    } else if (spec.metric.selector) {
        auto parsed = core::to_label_selector(*spec.metric.selector);
        if (!parsed) return parsed.error();
        selector = std::move(*parsed);
    }
    auto matchers = promql_matchers(selector);
    if (!matchers) return matchers.error();
    const bool resource = spec.type == policy::metric_source_type::resource ||
                          spec.type == policy::metric_source_type::container_resource;
    return template_values{
        {"namespace", ctx.namespace_},
        {"name", ctx.name},
        {"target", ctx.target},
        {"metric", resource ? spec.resource_name : spec.metric.name},
        {"container", spec.container},
        {"selector", std::move(*matchers)},
        {"labelSelector", core::to_string(selector)},
        {"pods", pods ? regex_alternation(ctx.pods) : std::string()},
        {"window", ctx.window},
    };
}

void date_samples(backend_answer& answer, const backend_answer& times) {
    std::optional<core::time_point> oldest;
    for (const auto& t : times.values) {
        if (!std::isfinite(t.value) || t.value < 0 || t.value > 1e11) continue; // not a time
        const core::time_point at{std::chrono::duration_cast<core::time_point::duration>(
            std::chrono::duration<double>(t.value))};
        if (!oldest || at < *oldest) oldest = at;
    }
    if (!oldest) {
        const std::string why = times.kind == answer_kind::values ? "no value is a time" : times.error;
        answer = backend_answer{times.kind == answer_kind::values ? answer_kind::bad_answer : times.kind,
                                "the sample-time query failed: " + why, {}};
        return;
    }
    for (auto& v : answer.values)
        v.timestamp = oldest;
}

void set_backend_reading(const backend_answer& answer, const policy::metric_spec& spec,
                         const std::string& backend, const std::string& pod_label,
                         core::time_point now, policy::metric_reading& r) {
    const std::string who = "backend \"" + backend + "\"";
    switch (answer.kind) {
    case answer_kind::unavailable:
        r.error = who + " is unavailable: " + answer.error;
        return;
    case answer_kind::no_data:
        r.error = who + " has no data: " + answer.error;
        return;
    case answer_kind::bad_answer:
        r.error = who + " answered badly: " + answer.error;
        return;
    case answer_kind::values:
        break;
    }
    if (per_pod(spec.type)) {
        auto names = std::make_shared<policy::sample_names>();
        policy::sample_set samples;
        for (const auto& v : answer.values) {
            if (v.pod.empty()) {
                r.error = who + " answered badly: a value does not name its pod (label \"" +
                          pod_label + "\"); a " + policy::to_string(spec.type) +
                          " metric needs one value per pod";
                return;
            }
            const auto milli = to_milli(v.value);
            if (!milli) {
                r.error = out_of_range(who, v.value, v.pod);
                return;
            }
            samples.push_back({names->keep(v.pod), *milli, v.timestamp.value_or(now), {}});
        }
        // Several values of one pod (one per container, say) are summed.
        policy::sort_samples(samples);
        std::size_t out = 0;
        for (std::size_t i = 0; i < samples.size(); ++i) {
            if (out > 0 && samples[out - 1].pod == samples[i].pod) {
                auto& sum = samples[out - 1].milli;
                if (__builtin_add_overflow(sum, samples[i].milli, &sum)) {
                    r.error = who + " answered values whose sum for pod " +
                              std::string(samples[i].pod) +
                              " is out of range (it does not fit in 64-bit milli-units)";
                    return;
                }
            } else if (out++ != i)
                samples[out - 1] = std::move(samples[i]);
        }
        samples.resize(out);
        r.samples = std::move(samples);
        r.names = std::move(names);
        return;
    }
    if (spec.type == policy::metric_source_type::object) {
        if (answer.values.size() != 1) {
            r.error = who + " answered badly: " + std::to_string(answer.values.size()) +
                      " values when an Object metric needs exactly one";
            return;
        }
        const auto milli = to_milli(answer.values.front().value);
        if (milli) {
            r.object_value = *milli;
            policy::note_sample_time(r, answer.values.front().timestamp.value_or(now));
        } else
            r.error = out_of_range(who, answer.values.front().value, "");
        return;
    }
    for (const auto& v : answer.values) {
        const auto milli = to_milli(v.value);
        if (!milli) {
            r.external_values.clear();
            r.error = out_of_range(who, v.value, "");
            return;
        }
        r.external_values.push_back(*milli);
        policy::note_sample_time(r, v.timestamp.value_or(now));
    }
}

} // namespace hpaplus::metrics
