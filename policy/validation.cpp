// policy/validation.cpp — pkg/apis/autoscaling/validation for v2 specs, plus HPAPlus fields.
#include "policy/validation.hpp"

#include "core/label_selector.hpp"

namespace hpaplus::policy {
namespace {

constexpr std::int32_t max_stabilization_window = 3600;
constexpr std::int32_t max_period_seconds = 1800;

struct validator {
    std::vector<field_error> errors;

    void add(std::string field, std::string message) {
        errors.push_back({std::move(field), std::move(message)});
    }

    void positive_quantity(const std::string& field, const std::optional<quantity>& q) {
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

} // namespace

std::vector<field_error> validate(const autoscaler_spec& spec) {
    validator v;
    if (spec.scale_target_ref.kind.empty()) v.add("spec.scaleTargetRef.kind", "Required value");
    if (spec.scale_target_ref.name.empty()) v.add("spec.scaleTargetRef.name", "Required value");
    bool object_or_external = false;
    for (const auto& m : spec.metrics)
        object_or_external |=
            m.type == metric_source_type::object || m.type == metric_source_type::external;
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
    for (std::size_t i = 0; i < spec.metrics.size(); ++i)
        v.metric("spec.metrics[" + std::to_string(i) + "]", spec.metrics[i]);
    if (spec.behavior) {
        if (spec.behavior->scale_up) v.rules("spec.behavior.scaleUp", *spec.behavior->scale_up);
        if (spec.behavior->scale_down)
            v.rules("spec.behavior.scaleDown", *spec.behavior->scale_down);
    }
    if (spec.sync_period_seconds &&
        (*spec.sync_period_seconds < 1 || *spec.sync_period_seconds > 86400))
        v.add("spec.syncPeriodSeconds", "must be between 1 and 86400");
    return std::move(v.errors);
}

} // namespace hpaplus::policy
