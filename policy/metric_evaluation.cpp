// policy/metric_evaluation.cpp — per-metric evaluation with upstream's names and error texts
// (horizontal.go computeReplicasForMetric / computeStatusFor*Metric, replica_calculator.go
// wrappers).
#include "policy/metric_evaluation.hpp"

#include "core/duration.hpp"
#include "policy/metric_samples.hpp"

namespace hpaplus::policy {
namespace {

std::string quote_free_join(const std::vector<std::string>& values) {
    std::string out = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        out += (i ? " " : "") + values[i];
    return out + "]";
}

// Status quantities: memory in BinarySI like metrics-server reports it, the rest DecimalSI.
core::quantity status_quantity(std::string_view resource, std::int64_t milli) {
    return core::quantity::from_milli(milli, resource == "memory"
                                                 ? core::quantity_format::binary_si
                                                 : core::quantity_format::decimal_si);
}

metric_outcome failed(std::string reason, std::string detail, std::string error) {
    metric_outcome o;
    o.failure_reason = std::move(reason);
    o.failure_detail = std::move(detail);
    o.error = std::move(error);
    return o;
}

metric_outcome evaluate_resource(const metric_spec& spec, const metric_reading& reading,
                                 const metric_context& ctx) {
    const bool container = spec.type == metric_source_type::container_resource;
    const std::string& resource = spec.resource_name;
    // The messages are built only when they are needed: most passes succeed.
    const auto fail = [&](const std::string& detail) {
        const std::string outer =
            container ? "failed to get " + spec.container + " container metric value: "
                      : "failed to get " + resource + " resource metric value: ";
        return failed(container ? "FailedGetContainerResourceMetric" : "FailedGetResourceMetric",
                      detail, outer + detail);
    };
    const auto fetch_error = [&] {
        return "unable to get metrics for resource " + resource + ": " + *reading.error;
    };
    const calculator_context calc = calculator_of(ctx);

    metric_outcome o;
    metric_status status;
    status.type = spec.type;
    status.resource_name = resource;
    status.container = spec.container;
    if (spec.target.average_value) {
        std::string inner;
        if (reading.error) {
            inner = fetch_error();
        } else {
            auto r = plain_metric_replicas(calc, reading.samples,
                                           spec.target.average_value->milli_value(), resource);
            if (r) {
                o.ok = true;
                o.proposal = r->replicas;
                o.counted_unready = std::move(r->counted_unready);
                status.current.average_value = status_quantity(resource, r->usage);
            } else {
                inner = r.error().text;
            }
        }
        if (!o.ok) {
            const std::string detail = "failed to get " + resource + " usage: " + inner;
            return fail(detail);
        }
        o.name = metric_name(spec);
        o.status = std::move(status);
        return o;
    }
    if (!spec.target.average_utilization) {
        const std::string detail = "invalid resource metric source: neither an average utilization "
                                   "target nor an average value (usage) target was set";
        return fail(detail);
    }
    std::string inner;
    if (reading.error) {
        inner = fetch_error();
    } else {
        auto r =
            resource_utilization_replicas(calc, reading.samples, *spec.target.average_utilization,
                                          resource, spec.container, spec.basis);
        if (r) {
            o.ok = true;
            o.proposal = r->replicas;
            o.counted_unready = std::move(r->counted_unready);
            status.current.average_utilization = r->utilization;
            status.current.average_value = status_quantity(resource, r->raw_average);
        } else {
            inner = r.error().text;
        }
    }
    if (!o.ok) {
        const std::string detail = "failed to get " + resource + " utilization: " + inner;
        return fail(detail);
    }
    o.name = metric_name(spec);
    o.status = std::move(status);
    return o;
}

metric_outcome evaluate_pods(const metric_spec& spec, const metric_reading& reading,
                             const metric_context& ctx) {
    const std::string reason = "FailedGetPodsMetric";
    const std::string outer = "failed to get pods metric value: ";
    std::string detail;
    metric_outcome o;
    if (reading.error) {
        detail = "unable to get metric " + spec.metric.name + ": " + *reading.error;
    } else {
        const calculator_context calc = calculator_of(ctx);
        auto r = plain_metric_replicas(calc, reading.samples,
                                       spec.target.average_value->milli_value(), "");
        if (!r) {
            detail = r.error().text;
        } else {
            o.ok = true;
            o.proposal = r->replicas;
            o.counted_unready = std::move(r->counted_unready);
            metric_status status;
            status.type = metric_source_type::pods;
            status.metric = spec.metric;
            status.current.average_value = core::quantity::from_milli(r->usage);
            o.status = std::move(status);
            o.name = metric_name(spec);
            return o;
        }
    }
    return failed(reason, detail, outer + detail);
}

metric_outcome evaluate_object(const metric_spec& spec, const metric_reading& reading,
                               const metric_context& ctx) {
    const std::string reason = "FailedGetObjectMetric";
    const std::string outer = "failed to get object metric value: ";
    const auto& obj = spec.described_object;
    const std::string fetch_prefix = "unable to get metric " + spec.metric.name + " on " +
                                     obj.kind + " " + std::string(ctx.namespace_) + "/" + obj.name +
                                     ": ";
    metric_status status;
    status.type = metric_source_type::object;
    status.described_object = obj;
    status.metric = spec.metric;
    metric_outcome o;

    if (spec.target.type == metric_target_type::value && spec.target.value) {
        if (reading.error) {
            const std::string detail = fetch_prefix + *reading.error;
            return failed(reason, detail, outer + detail);
        }
        const double ratio = static_cast<double>(reading.object_value) /
                             static_cast<double>(spec.target.value->milli_value());
        const calculator_context calc = calculator_of(ctx);
        auto r = usage_ratio_replicas(calc, ratio);
        if (!r) return failed(reason, r.error().text, outer + r.error().text);
        o.ok = true;
        o.proposal = r->replicas;
        o.counted_unready = std::move(r->counted_unready);
        o.replicas_stood_in = r->replicas_stood_in;
        status.current.value = core::quantity::from_milli(reading.object_value);
        o.status = std::move(status);
        o.name = metric_name(spec);
        return o;
    }
    if (spec.target.type == metric_target_type::average_value && spec.target.average_value) {
        if (reading.error) {
            const std::string detail = fetch_prefix + *reading.error;
            const std::string wrapped =
                "failed to get " + spec.metric.name + " object metric: " + detail;
            return failed(reason, detail, outer + wrapped);
        }
        const usage_result r = per_pod_replicas(ctx.status_replicas, reading.object_value,
                                                spec.target.average_value->milli_value(), ctx.tol);
        o.ok = true;
        o.proposal = r.replicas;
        status.current.average_value = core::quantity::from_milli(r.usage);
        o.status = std::move(status);
        o.name = metric_name(spec);
        return o;
    }
    const std::string detail =
        "invalid object metric source: neither a value target nor an average value target was set";
    return failed(reason, detail, outer + detail);
}

metric_outcome evaluate_external(const metric_spec& spec, const metric_reading& reading,
                                 const metric_context& ctx) {
    const std::string reason = "FailedGetExternalMetric";
    const std::string& name = spec.metric.name;
    const std::string selector = go_selector_string(spec.metric.selector);
    const std::string outer = "failed to get " + name + " external metric value: ";
    const std::string fetch_detail = reading.error ? "unable to get external metric " +
                                                         std::string(ctx.namespace_) + "/" + name +
                                                         "/" + selector + ": " + *reading.error
                                                   : std::string();
    metric_status status;
    status.type = metric_source_type::external;
    status.metric = spec.metric;
    metric_outcome o;
    o.name = metric_name(spec);

    // A sum beyond int64 saturates, as upstream's (metric_samples.hpp, saturating_sum).
    const std::int64_t usage = reading.error ? 0 : saturating_sum(reading.external_values);
    if (spec.target.average_value) {
        const std::string wrap = "failed to get " + name + " external metric: ";
        if (reading.error) return failed(reason, fetch_detail, outer + wrap + fetch_detail);
        const usage_result r = per_pod_replicas(ctx.status_replicas, usage,
                                                spec.target.average_value->milli_value(), ctx.tol);
        o.ok = true;
        o.proposal = r.replicas;
        status.current.average_value = core::quantity::from_milli(r.usage);
        o.status = std::move(status);
        return o;
    }
    if (spec.target.value) {
        const std::string wrap = "failed to get external metric " + name + ": ";
        if (reading.error) return failed(reason, fetch_detail, outer + wrap + fetch_detail);
        const double ratio =
            static_cast<double>(usage) / static_cast<double>(spec.target.value->milli_value());
        const calculator_context calc = calculator_of(ctx);
        auto r = usage_ratio_replicas(calc, ratio);
        if (!r) return failed(reason, r.error().text, outer + wrap + r.error().text);
        o.ok = true;
        o.proposal = r->replicas;
        o.counted_unready = std::move(r->counted_unready);
        o.replicas_stood_in = r->replicas_stood_in;
        status.current.value = core::quantity::from_milli(usage);
        o.status = std::move(status);
        return o;
    }
    const std::string detail = "invalid external metric source: neither a value target nor an "
                               "average value target was set";
    return failed(reason, detail, outer + detail);
}

} // namespace

std::string metric_name(const metric_spec& spec) {
    switch (spec.type) {
    case metric_source_type::resource:
    case metric_source_type::container_resource: {
        if (spec.target.average_value) return spec.resource_name + " resource";
        const std::string_view of = spec.basis == usage_basis::limits ? "limit" : "request";
        const std::string_view kind =
            spec.type == metric_source_type::container_resource ? " container" : "";
        constexpr std::string_view middle = " resource utilization (percentage of ";
        std::string name; // built in one allocation: a pass names its metric each time
        name.reserve(spec.resource_name.size() + kind.size() + middle.size() + of.size() + 1);
        name.append(spec.resource_name).append(kind).append(middle).append(of).append(")");
        return name;
    }
    case metric_source_type::pods:
        return "pods metric " + spec.metric.name;
    case metric_source_type::object:
        if (spec.target.type == metric_target_type::value)
            return spec.described_object.kind + " metric " + spec.metric.name;
        break; // upstream names Object AverageValue metrics "external metric ..." too
    case metric_source_type::external:
        break;
    case metric_source_type::formula:
        return spec.name.empty() ? "formula metric \"" + spec.formula + "\""
                                 : "formula metric " + spec.name;
    }
    return "external metric " + spec.metric.name + "(" + go_selector_string(spec.metric.selector) +
           ")";
}

const char* to_string(metric_source_type type) {
    switch (type) {
    case metric_source_type::object:
        return "Object";
    case metric_source_type::pods:
        return "Pods";
    case metric_source_type::resource:
        return "Resource";
    case metric_source_type::container_resource:
        return "ContainerResource";
    case metric_source_type::external:
        return "External";
    case metric_source_type::formula:
        return "Formula";
    }
    return "";
}

std::string go_selector_string(const std::optional<core::label_selector_spec>& selector) {
    if (!selector) return "nil";
    std::string out = "&LabelSelector{MatchLabels:map[string]string{";
    for (const auto& [k, v] : selector->match_labels)
        out.append(k).append(": ").append(v).append(",");
    out += "},MatchExpressions:[]LabelSelectorRequirement{";
    for (const auto& e : selector->match_expressions) {
        out += "LabelSelectorRequirement{Key:" + e.key + ",Operator:" + e.op +
               ",Values:" + quote_free_join(e.values) + ",},";
    }
    return out + "},}";
}

tolerances tolerances_for(const autoscaler_spec& spec, const controller_config& config) {
    tolerances t{config.tolerance, config.tolerance};
    if (!spec.behavior) return t;
    if (spec.behavior->scale_down && spec.behavior->scale_down->tolerance)
        t.scale_down = spec.behavior->scale_down->tolerance->as_double();
    if (spec.behavior->scale_up && spec.behavior->scale_up->tolerance)
        t.scale_up = spec.behavior->scale_up->tolerance->as_double();
    return t;
}

tolerances tolerances_for(const metric_spec& spec, const tolerances& band) {
    tolerances t = band;
    if (!spec.tolerance) return t;
    if (spec.tolerance->scale_up) t.scale_up = spec.tolerance->scale_up->as_double();
    if (spec.tolerance->scale_down) t.scale_down = spec.tolerance->scale_down->as_double();
    return t;
}

std::optional<core::time_point> oldest_sample(const metric_reading& reading) {
    if (reading.error) return std::nullopt;
    std::optional<core::time_point> oldest = reading.sample_time;
    for (const pod_sample& s : reading.samples) {
        if (s.timestamp == core::time_point{}) continue; // an answer without a time
        if (!oldest || s.timestamp < *oldest) oldest = s.timestamp;
    }
    return oldest;
}

std::optional<std::string> stale_sample(const metric_spec& spec, const metric_reading& reading,
                                        core::time_point now) {
    if (!spec.max_sample_age) return std::nullopt;
    const auto oldest = oldest_sample(reading);
    if (!oldest || now - *oldest <= *spec.max_sample_age) return std::nullopt;
    const auto age = std::chrono::duration_cast<std::chrono::seconds>(now - *oldest);
    return "sample from " + core::format_go_duration(age) + " ago, older than " +
           "maxSampleAgeSeconds " + std::to_string(spec.max_sample_age->count());
}

namespace {

metric_outcome evaluate_fresh(const metric_spec& spec, const metric_reading& reading,
                              const metric_context& ctx) {
    switch (spec.type) {
    case metric_source_type::resource:
    case metric_source_type::container_resource:
        return evaluate_resource(spec, reading, ctx);
    case metric_source_type::pods:
        return evaluate_pods(spec, reading, ctx);
    case metric_source_type::object:
        return evaluate_object(spec, reading, ctx);
    case metric_source_type::external:
        return evaluate_external(spec, reading, ctx);
    case metric_source_type::formula:
        break; // policy/formula_metrics.cpp: a Formula needs the other metrics' values
    }
    return failed("InvalidMetricSourceType", "unknown metric source type",
                  "unknown metric source type");
}

} // namespace

metric_outcome evaluate_metric(const metric_spec& spec, const metric_reading& reading,
                               const metric_context& ctx) {
    metric_context own; // the metric's own band, when it has one
    if (spec.tolerance) {
        own = ctx;
        own.tol = tolerances_for(spec, ctx.tol);
    }
    const metric_context& c = spec.tolerance ? own : ctx;
    if (auto stale = stale_sample(spec, reading, ctx.now)) {
        // Too old to decide on: the metric fails as a failed read does (and its fallback engages).
        metric_reading failed_read;
        failed_read.error = std::move(*stale);
        return evaluate_fresh(spec, failed_read, c);
    }
    return evaluate_fresh(spec, reading, c);
}

void note_sample_time(metric_reading& r, core::time_point t) {
    if (t != core::time_point{} && (!r.sample_time || t < *r.sample_time)) r.sample_time = t;
}

void set_samples(metric_reading& r, core::outcome<sample_set> samples) {
    if (samples)
        r.samples = std::move(*samples);
    else
        r.error = samples.error().text;
}

} // namespace hpaplus::policy
