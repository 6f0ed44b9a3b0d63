// policy/formula_metrics.cpp — Formula metrics: inputs read, expressions evaluated in dependency
// order, results scaled on like External metrics.
#include "policy/formula_metrics.hpp"

#include "policy/formula.hpp"
#include "policy/metric_samples.hpp"

#include <cmath>
#include <limits>

namespace hpaplus::policy {
namespace {

std::string metric_field(std::size_t index) {
    return "spec.metrics[" + std::to_string(index) + "]";
}

std::optional<std::size_t> index_of(const autoscaler_spec& spec, std::string_view name) {
    for (std::size_t i = 0; i < spec.metrics.size(); ++i)
        if (!spec.metrics[i].name.empty() && spec.metrics[i].name == name) return i;
    return std::nullopt;
}

// The value of a double as a milli-unit integer, when it has one.
std::optional<std::int64_t> to_milli(double value) {
    const double milli = std::round(value * 1000.0);
    if (!(std::fabs(milli) < 9.2e18)) return std::nullopt;
    return static_cast<std::int64_t>(milli);
}

class evaluator {
  public:
    evaluator(const autoscaler_spec& spec, const std::vector<const metric_reading*>& readings,
              const metric_context& ctx)
        : spec_(spec), readings_(readings), ctx_(ctx),
          values_(spec.metrics.size(), core::outcome<double>(0.0)),
          state_(spec.metrics.size(), state::pending) {}

    formula_results run() {
        formula_results out;
        out.input_only = formula_inputs(spec_);
        out.outcomes.resize(spec_.metrics.size());
        for (std::size_t i = 0; i < spec_.metrics.size(); ++i) {
            const metric_spec& m = spec_.metrics[i];
            if (m.type == metric_source_type::formula) {
                out.outcomes[i] = scale_on(i, value(i));
            } else if (out.input_only[i]) {
                out.outcomes[i] = input_outcome(i, value(i));
            }
        }
        return out;
    }

  private:
    enum class state { pending, evaluating, done };
    const autoscaler_spec& spec_;
    const std::vector<const metric_reading*>& readings_;
    const metric_context& ctx_;
    std::vector<core::outcome<double>> values_;
    std::vector<state> state_;

    // The value of metric `i`, computed once; Formulas recurse into their inputs.
    const core::outcome<double>& value(std::size_t i) {
        if (state_[i] == state::done) return values_[i];
        if (state_[i] == state::evaluating) {
            // validate() rejects cycles; this guards evaluate() on an unvalidated spec.
            values_[i] = core::error_message("formulas refer to each other in a cycle");
            return values_[i];
        }
        state_[i] = state::evaluating;
        const metric_spec& m = spec_.metrics[i];
        if (m.type == metric_source_type::formula)
            values_[i] = formula_value(m);
        else if (auto stale = stale_sample(m, *readings_[i], ctx_.now))
            values_[i] = core::error_message(std::move(*stale));
        else
            values_[i] = input_value(m, *readings_[i]);
        state_[i] = state::done;
        return values_[i];
    }

    core::outcome<double> formula_value(const metric_spec& m) {
        auto expression = formula_expression::parse(m.formula);
        if (!expression)
            return core::error_message("invalid expression: " + expression.error().text);
        std::vector<double> inputs;
        inputs.reserve(expression->inputs().size());
        for (const std::string& name : expression->inputs()) {
            const auto index = index_of(spec_, name);
            if (!index) return core::error_message("no metric is named \"" + name + "\"");
            const auto& v = value(*index);
            if (!v)
                return core::error_message("input \"" + name + "\" (" + metric_field(*index) +
                                           ") failed: " + v.error().text);
            inputs.push_back(*v);
        }
        return expression->evaluate(inputs);
    }

    metric_outcome input_outcome(std::size_t i, const core::outcome<double>& v) const {
        metric_outcome o;
        const metric_spec& m = spec_.metrics[i];
        if (!v) {
            o.error = v.error().text;
            return o;
        }
        const auto milli = to_milli(*v);
        if (!milli) {
            o.error = "the value is out of range";
            return o;
        }
        o.ok = true;
        o.name = metric_name(m);
        metric_status status;
        status.type = m.type;
        status.resource_name = m.resource_name;
        status.container = m.container;
        status.metric = m.metric;
        if (m.type == metric_source_type::object) status.described_object = m.described_object;
        if (m.type == metric_source_type::object || m.type == metric_source_type::external)
            status.current.value = core::quantity::from_milli(*milli);
        else
            status.current.average_value = core::quantity::from_milli(*milli);
        o.status = std::move(status);
        return o;
    }

    // A Formula's value scaled on as an External metric with the Formula's target.
    metric_outcome scale_on(std::size_t i, const core::outcome<double>& v) const {
        const metric_spec& m = spec_.metrics[i];
        metric_outcome o;
        o.name = metric_name(m);
        auto fail = [&](const std::string& why) {
            o.failure_reason = "FailedGetFormulaMetric";
            o.failure_detail = "unable to compute " + o.name + ": " + why;
            o.error = "failed to get formula metric value: " + o.failure_detail;
            return o;
        };
        if (!v) return fail(v.error().text);
        const auto usage = to_milli(*v);
        if (!usage) return fail("the result is out of range");
        metric_status status;
        status.type = metric_source_type::formula;
        status.metric.name = m.name;
        calculator_context calc = calculator_of(ctx_);
        calc.tol = tolerances_for(m, ctx_.tol);
        if (m.target.type == metric_target_type::average_value && m.target.average_value) {
            const usage_result r = per_pod_replicas(
                ctx_.status_replicas, *usage, m.target.average_value->milli_value(), calc.tol);
            o.proposal = r.replicas;
            status.current.average_value = core::quantity::from_milli(r.usage);
        } else if (m.target.type == metric_target_type::value && m.target.value) {
            const double ratio =
                static_cast<double>(*usage) / static_cast<double>(m.target.value->milli_value());
            auto r = usage_ratio_replicas(calc, ratio);
            if (!r) return fail(r.error().text);
            o.proposal = r->replicas;
            o.counted_unready = std::move(r->counted_unready);
            o.replicas_stood_in = r->replicas_stood_in;
            status.current.value = core::quantity::from_milli(*usage);
        } else {
            return fail("the target must be Value or AverageValue");
        }
        o.ok = true;
        o.status = std::move(status);
        return o;
    }
};

} // namespace

std::vector<bool> formula_inputs(const autoscaler_spec& spec) {
    std::vector<bool> inputs(spec.metrics.size(), false);
    for (const metric_spec& m : spec.metrics) {
        if (m.type != metric_source_type::formula) continue;
        auto expression = formula_expression::parse(m.formula);
        if (!expression) continue;
        for (const std::string& name : expression->inputs())
            if (const auto index = index_of(spec, name)) inputs[*index] = true;
    }
    return inputs;
}

core::outcome<double> input_value(const metric_spec& spec, const metric_reading& reading) {
    if (reading.error) return core::error_message(*reading.error);
    switch (spec.type) {
    case metric_source_type::resource:
    case metric_source_type::container_resource:
    case metric_source_type::pods: {
        if (reading.samples.empty()) return core::error_message("no pod reported a value");
        double total = 0;
        for (const pod_sample& s : reading.samples)
            total += static_cast<double>(s.milli);
        return total / static_cast<double>(reading.samples.size()) / 1000.0;
    }
    case metric_source_type::object:
        return static_cast<double>(reading.object_value) / 1000.0;
    case metric_source_type::external:
        if (const auto sum = checked_sum(reading.external_values))
            return static_cast<double>(*sum) / 1000.0;
        return core::error_message(sum_out_of_range(reading.external_values.size()));
    case metric_source_type::formula:
        break;
    }
    return core::error_message("a Formula has no reading of its own");
}

formula_results evaluate_formulas(const autoscaler_spec& spec,
                                  const std::vector<const metric_reading*>& readings,
                                  const metric_context& ctx) {
    return evaluator(spec, readings, ctx).run();
}

} // namespace hpaplus::policy
