// policy/validation.cpp — pkg/apis/autoscaling/validation for v2 specs, plus HPAPlus fields.
#include "policy/validation.hpp"

#include "core/duration.hpp"
#include "core/label_selector.hpp"
#include "core/names.hpp"
#include "policy/formula.hpp"
#include "policy/formula_metrics.hpp"
#include "policy/prediction.hpp"

#include <algorithm>
#include <set>

namespace hpaplus::policy {
namespace {

constexpr std::int32_t max_stabilization_window = 3600;
constexpr std::int32_t max_period_seconds = 1800;
// Formulas read each other recursively; this bounds the depth (and the work) of that.
constexpr std::size_t max_formulas = 16;

const char* source_key(metric_source_type type) {
    switch (type) {
    case metric_source_type::resource:
        return "resource";
    case metric_source_type::container_resource:
        return "containerResource";
    case metric_source_type::pods:
        return "pods";
    case metric_source_type::object:
        return "object";
    case metric_source_type::external:
        return "external";
    case metric_source_type::formula:
        return "formula";
    }
    return "";
}

struct validator {
    std::vector<field_error> errors;
    bool skip_target = false; ///< an input of a Formula without a target of its own

    void add(std::string field, std::string message) {
        errors.push_back({std::move(field), std::move(message)});
    }

    void positive_quantity(const std::string& field, const std::optional<core::quantity>& q) {
        if (!q) return add(field, "must be set");
        if (q->sign() <= 0) return add(field, "must be positive");
        if (!q->milli_fits()) add(field, "must be less than 9223372036854775807m");
    }

    void selector(const std::string& field, const std::optional<core::label_selector_spec>& s) {
        if (!s) return;
        auto parsed = core::to_label_selector(*s);
        if (!parsed) add(field, parsed.error().text);
    }

    void target(const std::string& field, const metric_target& t, bool allow_utilization,
                bool allow_value, bool allow_average) {
        if (skip_target) return;
        switch (t.type) {
        case metric_target_type::utilization:
            if (!allow_utilization)
                return add(field + ".type", "must be either Value or AverageValue");
            if (!t.average_utilization) return add(field + ".averageUtilization", "must be set");
            if (*t.average_utilization <= 0)
                add(field + ".averageUtilization", "must be greater than 0");
            return;
        case metric_target_type::value:
            if (!allow_value)
                return add(field + ".type", "must be either Utilization or AverageValue");
            return positive_quantity(field + ".value", t.value);
        case metric_target_type::average_value:
            if (!allow_average) return add(field + ".type", "must be Value");
            return positive_quantity(field + ".averageValue", t.average_value);
        }
    }

    void metric(const std::string& field, const metric_spec& m) {
        switch (m.type) {
        case metric_source_type::resource:
            if (m.resource_name.empty())
                add(field + ".resource.name", "must specify a resource name");
            target(field + ".resource.target", m.target, true, false, true);
            break;
        case metric_source_type::container_resource:
            if (m.resource_name.empty())
                add(field + ".containerResource.name", "must specify a resource name");
            if (m.container.empty())
                add(field + ".containerResource.container", "must specify a container");
            target(field + ".containerResource.target", m.target, true, false, true);
            break;
        case metric_source_type::pods:
            if (m.metric.name.empty())
                add(field + ".pods.metric.name", "must specify a metric name");
            selector(field + ".pods.metric.selector", m.metric.selector);
            if (skip_target) break;
            if (m.target.type != metric_target_type::average_value)
                add(field + ".pods.target.type", "must be AverageValue");
            else
                positive_quantity(field + ".pods.target.averageValue", m.target.average_value);
            break;
        case metric_source_type::object:
            if (m.metric.name.empty())
                add(field + ".object.metric.name", "must specify a metric name");
            if (m.described_object.kind.empty())
                add(field + ".object.describedObject.kind", "must specify a kind");
            if (m.described_object.name.empty())
                add(field + ".object.describedObject.name", "must specify a name");
            selector(field + ".object.metric.selector", m.metric.selector);
            target(field + ".object.target", m.target, false, true, true);
            break;
        case metric_source_type::external:
            if (m.metric.name.empty())
                add(field + ".external.metric.name", "must specify a metric name");
            selector(field + ".external.metric.selector", m.metric.selector);
            target(field + ".external.target", m.target, false, true, true);
            break;
        case metric_source_type::formula:
            if (m.formula.empty())
                add(field + ".formula.expression", "must specify an expression");
            else if (auto e = formula_expression::parse(m.formula); !e)
                add(field + ".formula.expression", e.error().text);
            target(field + ".formula.target", m.target, false, true, true);
            if (!m.backend.empty()) add(field + ".backend", "a Formula reads no backend");
            break;
        }
        if (m.basis == usage_basis::limits && m.type != metric_source_type::resource &&
            m.type != metric_source_type::container_resource)
            add(field + ".basis", "Limits applies only to Resource and ContainerResource metrics");
        if (m.basis == usage_basis::limits && m.target.type != metric_target_type::utilization)
            add(field + ".basis", "Limits applies only to Utilization targets");
        if (m.fallback) {
            if (m.fallback->stale_after.count() < 0)
                add(field + ".fallback.staleAfterSeconds", "must be greater than or equal to 0");
            if (m.fallback->action == on_failure::replicas && m.fallback->replicas < 0)
                add(field + ".fallback.replicas", "must be greater than or equal to 0");
        }
        if (m.tolerance) {
            for (const auto& [side, q] : {std::pair{".scaleUp", &m.tolerance->scale_up},
                                          std::pair{".scaleDown", &m.tolerance->scale_down}})
                if (*q && (*q)->sign() < 0)
                    add(field + ".tolerance" + side, "must be greater than or equal to 0");
        }
        if (m.max_sample_age && m.type == metric_source_type::formula)
            add(field + ".maxSampleAgeSeconds",
                "a Formula has no sample of its own; set it on the metrics the Formula reads");
        if (m.max_sample_age &&
            (m.max_sample_age->count() < 1 || m.max_sample_age->count() > 86400))
            add(field + ".maxSampleAgeSeconds", "must be between 1 and 86400");
    }

    // Metric names are DNS-1123 labels, unique; every name a Formula reads exists, and no
    // Formula reads itself through others.
    void names_and_formulas(const autoscaler_spec& spec) {
        const auto& metrics = spec.metrics;
        std::vector<std::vector<std::size_t>> reads(metrics.size());
        std::set<std::string_view> names;
        std::size_t formulas = 0;
        for (std::size_t i = 0; i < metrics.size(); ++i) {
            const std::string field = "spec.metrics[" + std::to_string(i) + "]";
            const std::string& name = metrics[i].name;
            if (!name.empty()) {
                if (!core::is_dns1123_label(name))
                    add(field + ".name",
                        "must be a lowercase DNS-1123 label (at most 63 of a-z, "
                        "0-9 and '-', starting and ending with a letter or digit)");
                if (!names.insert(name).second)
                    add(field + ".name", "Duplicate value: \"" + name + "\"");
            }
            if (metrics[i].type != metric_source_type::formula) continue;
            if (++formulas > max_formulas) {
                add(field,
                    "at most " + std::to_string(max_formulas) + " Formula metrics per object");
                return;
            }
            auto expression = formula_expression::parse(metrics[i].formula);
            if (!expression) continue;
            for (const std::string& input : expression->inputs()) {
                const auto it = std::find_if(metrics.begin(), metrics.end(),
                                             [&](const metric_spec& m) { return m.name == input; });
                if (it == metrics.end()) {
                    std::string message =
                        "unknown metric \"" + input + "\" (no entry of spec.metrics has this name)";
                    if (input.find('-') != std::string::npos)
                        message += "; a name may contain '-', so write \"a - b\" to subtract";
                    add(field + ".formula.expression", message);
                    continue;
                }
                reads[i].push_back(static_cast<std::size_t>(it - metrics.begin()));
            }
        }
        // Depth-first search for a cycle through Formulas.
        std::vector<int> mark(metrics.size(), 0); // 0 unvisited, 1 on the path, 2 done
        std::vector<std::size_t> path;
        auto visit = [&](auto& self, std::size_t i) -> bool {
            if (mark[i] == 2) return false;
            if (mark[i] == 1) {
                std::string chain;
                const auto from = std::find(path.begin(), path.end(), i);
                for (auto it = from; it != path.end(); ++it)
                    chain += metrics[*it].name + " -> ";
                add("spec.metrics[" + std::to_string(i) + "].formula.expression",
                    "formulas refer to each other in a cycle (" + chain + metrics[i].name + ")");
                return true;
            }
            mark[i] = 1;
            path.push_back(i);
            for (std::size_t next : reads[i])
                if (self(self, next)) return true;
            path.pop_back();
            mark[i] = 2;
            return false;
        };
        for (std::size_t i = 0; i < metrics.size(); ++i)
            if (visit(visit, i)) break;
    }

    void rules(const std::string& field, const scaling_rules& r) {
        if (r.stabilization_window_seconds &&
            (*r.stabilization_window_seconds < 0 ||
             *r.stabilization_window_seconds > max_stabilization_window))
            add(field + ".stabilizationWindowSeconds", "must be between 0 and 3600 seconds");
        if (r.policies) {
            if (r.policies->empty()) add(field + ".policies", "must specify at least one Policy");
            for (std::size_t i = 0; i < r.policies->size(); ++i) {
                const auto& p = (*r.policies)[i];
                const std::string pf = field + ".policies[" + std::to_string(i) + "]";
                if (p.period_seconds <= 0 || p.period_seconds > max_period_seconds)
                    add(pf + ".periodSeconds",
                        "must be greater than zero and less than or equal to 1800");
                if (p.value <= 0) add(pf + ".value", "must be greater than zero");
            }
        }
        if (r.tolerance && r.tolerance->sign() < 0)
            add(field + ".tolerance", "must be greater than or equal to 0");
    }
};

// spec.prediction: a named metric with a target, periods of at least two history steps (and at
// most 400 days, what the forecast takes), a margin and lookAhead that make sense.
void validate_prediction(validator& v, const autoscaler_spec& spec) {
    const prediction_spec& p = *spec.prediction;
    const std::string field = "spec.prediction";
    const auto* m = named_metric(spec, p.metric);
    if (p.metric.empty())
        v.add(field + ".metric", "Required value");
    else if (!m)
        v.add(field + ".metric", "no metric of spec.metrics is named \"" + p.metric + "\"");
    else if (!m->target_set)
        v.add(field + ".metric", "\"" + p.metric + "\" has no target to forecast against");
    if (p.step.count() <= 0) v.add(field + ".history.step", "must be above 0");
    const auto max = forecast::max_period;
    if (p.periods.empty()) v.add(field + ".periods", "Required value (at least one period)");
    for (std::size_t i = 0; i < p.periods.size(); ++i) {
        const std::string at = field + ".periods[" + std::to_string(i) + "]";
        if (p.step.count() > 0 && p.periods[i] < 2 * p.step)
            v.add(at, "is shorter than two samples of the history (step " +
                          core::format_go_duration(p.step) + ")");
        else if (p.periods[i] > max)
            v.add(at, "must not be longer than 400 days");
        else if (p.step.count() > 0 && p.periods[i] / p.step > forecast::max_steps_per_period)
            v.add(at, "has more than " + std::to_string(forecast::max_steps_per_period) +
                          " steps of the history");
    }
    if (p.look_ahead.count() < 0 || p.look_ahead > max)
        v.add(field + ".lookAhead", "must be between 0 and 400 days");
    if (!(p.margin >= 0) || p.margin > 10) v.add(field + ".margin", "must be between 0 and 10");
    if (p.history == prediction_spec::source::backend && (p.backend.empty() || p.query.empty()))
        v.add(field + ".history", "source Backend needs a backend and a query");
}

} // namespace

std::vector<field_error> validate(const autoscaler_spec& spec) {
    validator v;
    if (spec.scale_target_ref.kind.empty()) v.add("spec.scaleTargetRef.kind", "Required value");
    if (spec.scale_target_ref.name.empty()) v.add("spec.scaleTargetRef.name", "Required value");
    bool object_or_external = false;
    for (const auto& m : spec.metrics)
        object_or_external |= m.type == metric_source_type::object ||
                              m.type == metric_source_type::external ||
                              m.type == metric_source_type::formula;
    const std::int32_t min = spec.min_replicas.value_or(1);
    if (min < 0) {
        v.add("spec.minReplicas", "must be greater than or equal to 0");
    } else if (min == 0 && !object_or_external) {
        v.add(
            "spec.minReplicas",
            "must be greater than or equal to 1 (0 needs at least one Object or External metric)");
    }
    if (spec.max_replicas < 1)
        v.add("spec.maxReplicas", "must be greater than or equal to 1");
    else if (spec.max_replicas < min)
        v.add("spec.maxReplicas", "must be greater than or equal to `minReplicas`");
    v.names_and_formulas(spec); // first: a wrong name explains a missing target below
    const std::vector<bool> inputs = formula_inputs(spec);
    // While a Formula does not parse, which metrics are its inputs is unknown: report the parse.
    const bool formulas_parse =
        std::all_of(spec.metrics.begin(), spec.metrics.end(), [](const metric_spec& m) {
            return m.type != metric_source_type::formula ||
                   formula_expression::parse(m.formula).has_value();
        });
    for (std::size_t i = 0; i < spec.metrics.size(); ++i) {
        const metric_spec& m = spec.metrics[i];
        const std::string field = "spec.metrics[" + std::to_string(i) + "]";
        if (!m.target_set && !inputs[i] && formulas_parse)
            v.add(field + "." + source_key(m.type) + ".target",
                  "Required value (only an input of a Formula may leave out its target)");
        v.skip_target = !m.target_set;
        v.metric(field, m);
        v.skip_target = false;
        if (inputs[i] && m.fallback)
            v.add(field + ".fallback", "an input of a Formula does not vote, so it takes no "
                                       "fallback; give the Formula one");
        if (inputs[i] && m.tolerance)
            v.add(field + ".tolerance", "an input of a Formula does not vote, so it takes no "
                                        "tolerance; give the Formula one");
    }
    if (spec.behavior) {
        if (spec.behavior->scale_up) v.rules("spec.behavior.scaleUp", *spec.behavior->scale_up);
        if (spec.behavior->scale_down)
            v.rules("spec.behavior.scaleDown", *spec.behavior->scale_down);
    }
    if (spec.sync_period_seconds &&
        (*spec.sync_period_seconds < 1 || *spec.sync_period_seconds > 86400))
        v.add("spec.syncPeriodSeconds", "must be between 1 and 86400");
    if (spec.prediction) validate_prediction(v, spec);
    return std::move(v.errors);
}

} // namespace hpaplus::policy
