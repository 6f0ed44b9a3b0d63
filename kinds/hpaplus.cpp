// kinds/hpaplus.cpp — HorizontalPodAutoscaler (autoscaling/v2) and HPAPlus objects from JSON.
// The spec is decoded strictly: unknown fields and unknown enum values are errors naming the field.
#include "kinds/api_group.hpp"
#include "kinds/decode.hpp"

#include <limits>

namespace hpaplus::kinds {
namespace {

using namespace policy;

constexpr std::string_view hpaplus_api_version = group_version;
// metrics[].maxSampleAgeSeconds: up to a day (a sample older than that decides nothing).
constexpr std::int64_t max_sample_age_seconds = 86400;

metric_identifier decode_identifier(kube::json_decoder& d, const kube::json_node& n) {
    metric_identifier id;
    if (!d.object(n)) {
        d.fail(n, "required field is missing");
        return id;
    }
    d.known_fields(n, {"name", "selector"});
    id.name = d.string(n["name"]);
    id.selector = d.selector(n["selector"]);
    return id;
}

metric_target decode_target(kube::json_decoder& d, const kube::json_node& n) {
    metric_target t;
    if (!d.object(n)) {
        d.fail(n, "required field is missing");
        return t;
    }
    d.known_fields(n, {"type", "averageUtilization", "value", "averageValue"});
    const std::string type = d.string(n["type"]);
    if (type == "Utilization")
        t.type = metric_target_type::utilization;
    else if (type == "Value")
        t.type = metric_target_type::value;
    else if (type == "AverageValue")
        t.type = metric_target_type::average_value;
    else if (d.ok())
        d.fail(n["type"], "must be one of Utilization, Value, AverageValue; got \"" + type + "\"");
    t.average_utilization = d.opt_int32(n["averageUtilization"]);
    t.value = d.opt_quantity(n["value"]);
    t.average_value = d.opt_quantity(n["averageValue"]);
    return t;
}

usage_basis decode_basis(kube::json_decoder& d, const kube::json_node& n) {
    const std::string basis = d.opt_string(n).value_or("Requests");
    if (basis == "Limits") return usage_basis::limits;
    if (basis != "Requests") d.fail(n, "must be Requests or Limits; got \"" + basis + "\"");
    return usage_basis::requests;
}

std::optional<fallback_spec> decode_fallback(kube::json_decoder& d, const kube::json_node& n) {
    if (!d.object(n)) return std::nullopt;
    d.known_fields(n, {"staleAfterSeconds", "onFailure", "replicas"});
    fallback_spec f;
    f.stale_after =
        std::chrono::seconds(d.opt_int(n["staleAfterSeconds"], 0, 86400 * 7).value_or(0));
    const std::string action = d.opt_string(n["onFailure"]).value_or("Fail");
    if (action == "Fail")
        f.action = on_failure::fail;
    else if (action == "Hold")
        f.action = on_failure::hold;
    else if (action == "Replicas")
        f.action = on_failure::replicas;
    else if (action == "Ignore")
        f.action = on_failure::ignore;
    else
        d.fail(n["onFailure"],
               "must be one of Fail, Hold, Replicas, Ignore; got \"" + action + "\"");
    f.replicas = d.opt_int32(n["replicas"], 0).value_or(0);
    if (f.action == on_failure::replicas && !n["replicas"].present())
        d.fail(n["replicas"], "required when onFailure is Replicas");
    return f;
}

metric_spec decode_metric(kube::json_decoder& d, const kube::json_node& n) {
    metric_spec m;
    if (!d.object(n)) {
        d.fail(n, "expected an object");
        return m;
    }
    d.known_fields(n, {"type", "name", "resource", "containerResource", "pods", "object",
                       "external", "formula", "fallback", "backend", "tolerance",
                       "maxSampleAgeSeconds"});
    const std::string type = d.string(n["type"]);
    m.name = d.opt_string(n["name"]).value_or("");
    if (!d.ok()) return m;
    // Only an input of a Formula may leave out its target; validate() checks which ones are.
    auto target = [&](const kube::json_node& src) {
        if (src["target"].present())
            m.target = decode_target(d, src["target"]);
        else
            m.target_set = false;
    };
    if (type == "Resource" || type == "ContainerResource") {
        const bool container = type == "ContainerResource";
        m.type = container ? metric_source_type::container_resource : metric_source_type::resource;
        const kube::json_node src = n[container ? "containerResource" : "resource"];
        if (!d.object(src)) {
            d.fail(src, "required when type is " + type);
            return m;
        }
        if (container)
            d.known_fields(src, {"name", "container", "target", "basis"});
        else
            d.known_fields(src, {"name", "target", "basis"});
        m.resource_name = d.string(src["name"]);
        if (container) m.container = d.string(src["container"]);
        target(src);
        m.basis = decode_basis(d, src["basis"]);
    } else if (type == "Pods") {
        m.type = metric_source_type::pods;
        const kube::json_node src = n["pods"];
        if (!d.object(src)) {
            d.fail(src, "required when type is Pods");
            return m;
        }
        d.known_fields(src, {"metric", "target"});
        m.metric = decode_identifier(d, src["metric"]);
        target(src);
    } else if (type == "Object") {
        m.type = metric_source_type::object;
        const kube::json_node src = n["object"];
        if (!d.object(src)) {
            d.fail(src, "required when type is Object");
            return m;
        }
        d.known_fields(src, {"describedObject", "metric", "target"});
        m.described_object = decode_reference(d, src["describedObject"]);
        m.metric = decode_identifier(d, src["metric"]);
        target(src);
    } else if (type == "External") {
        m.type = metric_source_type::external;
        const kube::json_node src = n["external"];
        if (!d.object(src)) {
            d.fail(src, "required when type is External");
            return m;
        }
        d.known_fields(src, {"metric", "target"});
        m.metric = decode_identifier(d, src["metric"]);
        target(src);
    } else if (type == "Formula") {
        m.type = metric_source_type::formula;
        const kube::json_node src = n["formula"];
        if (!d.object(src)) {
            d.fail(src, "required when type is Formula");
            return m;
        }
        d.known_fields(src, {"expression", "target"});
        m.formula = d.string(src["expression"]);
        m.target = decode_target(d, src["target"]);
    } else {
        d.fail(n["type"], "unknown metric source type \"" + type +
                              "\" (expected Resource, ContainerResource, Pods, Object, External "
                              "or Formula)");
    }
    m.fallback = decode_fallback(d, n["fallback"]);
    if (const kube::json_node band = n["tolerance"]; d.object(band)) {
        d.known_fields(band, {"scaleUp", "scaleDown"});
        m.tolerance = policy::metric_tolerance{d.opt_quantity(band["scaleUp"]),
                                               d.opt_quantity(band["scaleDown"])};
    }
    if (const auto age = d.opt_int(n["maxSampleAgeSeconds"], 1, max_sample_age_seconds))
        m.max_sample_age = std::chrono::seconds(*age);
    if (const kube::json_node backend = n["backend"]; d.object(backend)) {
        d.known_fields(backend, {"name", "query"});
        m.backend = d.string(backend["name"]);
        m.backend_query = d.opt_string(backend["query"]).value_or("");
    }
    return m;
}

std::optional<scaling_rules> decode_rules(kube::json_decoder& d, const kube::json_node& n) {
    if (!d.object(n)) return std::nullopt;
    d.known_fields(n, {"stabilizationWindowSeconds", "selectPolicy", "policies", "tolerance"});
    scaling_rules r;
    r.stabilization_window_seconds = d.opt_int32(n["stabilizationWindowSeconds"]);
    if (auto s = d.opt_string(n["selectPolicy"])) {
        if (*s == "Max")
            r.select = select_policy::max;
        else if (*s == "Min")
            r.select = select_policy::min;
        else if (*s == "Disabled")
            r.select = select_policy::disabled;
        else
            d.fail(n["selectPolicy"], "must be one of Max, Min, Disabled; got \"" + *s + "\"");
    }
    const kube::json_node policies = n["policies"];
    if (policies.present()) {
        r.policies.emplace();
        for (std::size_t i = 0, size = d.array(policies); i < size; ++i) {
            const kube::json_node p = policies.at(i);
            if (!d.object(p)) {
                d.fail(p, "expected an object");
                break;
            }
            d.known_fields(p, {"type", "value", "periodSeconds"});
            scaling_policy policy;
            const std::string type = d.string(p["type"]);
            if (type == "Pods")
                policy.type = scaling_policy_type::pods;
            else if (type == "Percent")
                policy.type = scaling_policy_type::percent;
            else if (d.ok())
                d.fail(p["type"], "must be Pods or Percent; got \"" + type + "\"");
            if (!p["value"].present()) d.fail(p["value"], "required field is missing");
            if (!p["periodSeconds"].present())
                d.fail(p["periodSeconds"], "required field is missing");
            policy.value = d.opt_int32(p["value"]).value_or(0);
            policy.period_seconds = d.opt_int32(p["periodSeconds"]).value_or(0);
            r.policies->push_back(policy);
        }
    }
    r.tolerance = d.opt_quantity(n["tolerance"]);
    return r;
}

// Candidate periods a prediction may test (each costs a pass over the history).
constexpr std::size_t max_prediction_periods = 16;

// spec.prediction (what the forecast needs; policy/validation judges the values).
prediction_spec decode_prediction(kube::json_decoder& d, const kube::json_node& n) {
    prediction_spec p;
    if (!d.object(n)) return p;
    d.known_fields(n, {"metric", "history", "periods", "lookAhead", "margin", "mode"});
    p.metric = d.string(n["metric"]);
    if (const kube::json_node h = n["history"]; h.present() && d.object(h)) {
        d.known_fields(h, {"source", "backend", "query", "step"});
        const std::string source = d.opt_string(h["source"]).value_or("Recorded");
        if (source == "Backend") {
            p.history = prediction_spec::source::backend;
            p.backend = d.string(h["backend"]);
            p.query = d.string(h["query"]);
        } else if (source == "Recorded") {
            for (const char* key : {"backend", "query"})
                if (h[key].present()) d.fail(h[key], "only with source Backend");
        } else {
            d.fail(h["source"], "must be Backend or Recorded; got \"" + source + "\"");
        }
        p.step = d.opt_duration(h["step"]).value_or(p.step);
    }
    if (const kube::json_node periods = n["periods"]; periods.present()) {
        p.periods.clear();
        const std::size_t size = d.array(periods);
        if (size > max_prediction_periods)
            d.fail(periods, "at most " + std::to_string(max_prediction_periods) + " periods");
        for (std::size_t i = 0; i < size && d.ok(); ++i)
            if (auto period = d.opt_duration(periods.at(i))) p.periods.push_back(*period);
    }
    p.look_ahead = d.opt_duration(n["lookAhead"]).value_or(p.look_ahead);
    p.margin = d.opt_number(n["margin"]).value_or(p.margin);
    const std::string mode = d.opt_string(n["mode"]).value_or("Auto");
    if (mode == "Preview")
        p.preview = true;
    else if (mode != "Auto")
        d.fail(n["mode"], "must be Auto or Preview; got \"" + mode + "\"");
    return p;
}

autoscaler_spec decode_spec(kube::json_decoder& d, const kube::json_node& n) {
    autoscaler_spec spec;
    if (!d.object(n)) {
        d.fail(n, "required field is missing");
        return spec;
    }
    d.known_fields(n, {"scaleTargetRef", "minReplicas", "maxReplicas", "metrics", "behavior",
                       "syncPeriodSeconds", "rolloutPolicy", "mode", "podSelection",
                       "podSelectionStrategy", "prediction", "unreadyPods"});
    spec.scale_target_ref = decode_reference(d, n["scaleTargetRef"]);
    spec.min_replicas = d.opt_int32(n["minReplicas"]);
    if (!n["maxReplicas"].present()) d.fail(n["maxReplicas"], "required field is missing");
    spec.max_replicas = d.opt_int32(n["maxReplicas"]).value_or(0);
    const kube::json_node metrics = n["metrics"];
    for (std::size_t i = 0, size = d.array(metrics); i < size && d.ok(); ++i)
        spec.metrics.push_back(decode_metric(d, metrics.at(i)));
    const kube::json_node behavior = n["behavior"];
    if (d.object(behavior)) {
        d.known_fields(behavior, {"scaleUp", "scaleDown"});
        spec.behavior.emplace();
        spec.behavior->scale_up = decode_rules(d, behavior["scaleUp"]);
        spec.behavior->scale_down = decode_rules(d, behavior["scaleDown"]);
    }
    spec.sync_period_seconds = d.opt_int32(n["syncPeriodSeconds"]);
    if (auto r = d.opt_string(n["rolloutPolicy"])) {
        if (auto p = policy::parse_rollout_policy(*r))
            spec.rollout = *p;
        else
            d.fail(n["rolloutPolicy"], std::string("must be ") + policy::rollout_policy_spellings +
                                           "; got \"" + *r + "\"");
    }
    // podSelection, or KEP-5325's name for it (an HPA from a server with that alpha field).
    for (const char* key : {"podSelection", "podSelectionStrategy"}) {
        const auto p = d.opt_string(n[key]);
        if (!p) continue;
        if (auto selection = policy::parse_pod_selection(*p))
            spec.pods = *selection;
        else
            d.fail(n[key], std::string("must be ") + policy::pod_selection_spellings + "; got \"" +
                               *p + "\"");
    }
    if (auto u = d.opt_string(n["unreadyPods"])) {
        if (auto mode = policy::parse_unready_pods(*u))
            spec.unready = *mode;
        else
            d.fail(n["unreadyPods"], std::string("must be ") + policy::unready_pods_spellings +
                                         "; got \"" + *u + "\"");
    }
    if (const kube::json_node p = n["prediction"]; p.present())
        spec.prediction = decode_prediction(d, p);
    if (auto m = d.opt_string(n["mode"])) {
        if (auto mode = policy::parse_run_mode(*m))
            spec.mode = *mode;
        else
            d.fail(n["mode"],
                   std::string("must be ") + policy::run_mode_spellings + "; got \"" + *m + "\"");
    }
    return spec;
}

autoscaler_status decode_status_fields(kube::json_decoder& d, const kube::json_node& n) {
    autoscaler_status status;
    if (!d.object(n)) return status;
    status.observed_generation =
        d.opt_int(n["observedGeneration"], 0, std::numeric_limits<std::int64_t>::max());
    status.last_scale_time = d.opt_time(n["lastScaleTime"]);
    status.current_replicas = d.opt_int32(n["currentReplicas"], 0).value_or(0);
    status.desired_replicas = d.opt_int32(n["desiredReplicas"], 0).value_or(0);
    status.conditions = decode_conditions(d, n["conditions"]);
    return status;
}

} // namespace

core::object_reference decode_reference(kube::json_decoder& d, const kube::json_node& n) {
    core::object_reference r;
    if (!d.object(n)) {
        d.fail(n, "required field is missing");
        return r;
    }
    d.known_fields(n, {"kind", "name", "apiVersion"});
    r.kind = d.string(n["kind"]);
    r.name = d.string(n["name"]);
    r.api_version = d.opt_string(n["apiVersion"]).value_or("");
    return r;
}

std::vector<core::condition> decode_conditions(kube::json_decoder& d, const kube::json_node& n) {
    std::vector<core::condition> out;
    for (std::size_t i = 0, size = d.array(n); i < size; ++i) {
        const kube::json_node c = n.at(i);
        core::condition cond;
        cond.type = d.string(c["type"]);
        const std::string s = d.opt_string(c["status"]).value_or("Unknown");
        cond.status = s == "True"    ? core::condition_status::true_
                      : s == "False" ? core::condition_status::false_
                                     : core::condition_status::unknown;
        cond.reason = d.opt_string(c["reason"]).value_or("");
        cond.message = d.opt_string(c["message"]).value_or("");
        cond.last_transition_time = d.opt_time(c["lastTransitionTime"]);
        out.push_back(std::move(cond));
    }
    return out;
}

bool is_hpaplus(const kube::json_node& n) {
    kube::json_decoder d;
    const std::string api_version = d.opt_string(n["apiVersion"]).value_or("autoscaling/v2");
    return d.opt_string(n["kind"]).value_or(api_version == hpaplus_api_version
                                                ? "HPAPlus"
                                                : "HorizontalPodAutoscaler") == "HPAPlus";
}

policy::autoscaler decode_autoscaler(kube::json_decoder& d, const kube::json_node& n) {
    autoscaler a;
    if (!d.object(n)) {
        d.fail(n, "expected an HPAPlus or HorizontalPodAutoscaler object");
        return a;
    }
    const std::string api_version = d.opt_string(n["apiVersion"]).value_or("autoscaling/v2");
    const std::string kind = d.opt_string(n["kind"]).value_or(
        api_version == hpaplus_api_version ? "HPAPlus" : "HorizontalPodAutoscaler");
    if (api_version == "autoscaling/v1") {
        d.fail(n["apiVersion"],
               "autoscaling/v1 is not supported; give the object as autoscaling/v2 "
               "(kubectl get hpa NAME -o json returns v2)");
    } else if (api_version != "autoscaling/v2" && api_version != "autoscaling/v2beta2" &&
               api_version != hpaplus_api_version) {
        d.fail(n["apiVersion"], "must be autoscaling/v2 or " + std::string(hpaplus_api_version) +
                                    "; got \"" + api_version + "\"");
    } else if (kind != "HorizontalPodAutoscaler" && kind != "HPAPlus") {
        d.fail(n["kind"], "must be HorizontalPodAutoscaler or HPAPlus; got \"" + kind + "\"");
    }
    kube::object_meta meta = d.meta(n);
    a.name = std::move(meta.name);
    // An object read from a file without a namespace is in "default", as kubectl takes it.
    a.namespace_ = meta.ns.empty() ? "default" : std::move(meta.ns);
    a.generation = meta.generation;
    a.spec = decode_spec(d, n["spec"]);
    a.status = decode_status_fields(d, n["status"]);
    return a;
}

policy::autoscaler_status decode_autoscaler_status(kube::json_decoder& d,
                                                   const kube::json_node& n) {
    return decode_status_fields(d, n);
}

} // namespace hpaplus::kinds
