// kinds/evaluate_input.cpp — reconcile inputs written back as the Kubernetes objects and metric
// lists `hpaplus evaluate` reads.
#include "kinds/evaluate_input.hpp"

#include "core/duration.hpp"
#include "kinds/vpaplus.hpp"
#include "net/json_parse.hpp"
#include "policy/replay.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <unordered_map>

namespace hpaplus::kinds {
namespace {

using rapidjson::Value;

Value time_value(core::time_point t, kube::json_allocator& a) {
    return kube::json_string(core::format_rfc3339_nano(t), a);
}

Value quantity_value(std::int64_t milli, kube::json_allocator& a) {
    return kube::json_string(core::quantity::from_milli(milli).to_string(), a);
}

Value labels_value(const core::label_map& labels, kube::json_allocator& a) {
    Value v(rapidjson::kObjectType);
    for (const auto& [key, value] : labels)
        v.AddMember(kube::json_string(key, a), kube::json_string(value, a), a);
    return v;
}

Value resources_value(const core::resource_list& list, kube::json_allocator& a) {
    Value v(rapidjson::kObjectType);
    for (const auto& [name, q] : list)
        v.AddMember(kube::json_string(name, a), kube::json_string(q.to_string(), a), a);
    return v;
}

Value metadata(const std::string& name, const std::string& ns, const core::label_map& labels,
               kube::json_allocator& a) {
    Value m(rapidjson::kObjectType);
    m.AddMember("name", kube::json_string(name, a), a);
    m.AddMember("namespace", kube::json_string(ns, a), a);
    m.AddMember("labels", labels_value(labels, a), a);
    return m;
}

const char* phase_text(policy::pod_phase phase) {
    switch (phase) {
    case policy::pod_phase::pending:
        return "Pending";
    case policy::pod_phase::running:
        return "Running";
    case policy::pod_phase::succeeded:
        return "Succeeded";
    case policy::pod_phase::failed:
        return "Failed";
    case policy::pod_phase::unknown:
        break;
    }
    return "Unknown";
}

const char* status_text(core::condition_status s) {
    switch (s) {
    case core::condition_status::true_:
        return "True";
    case core::condition_status::false_:
        return "False";
    case core::condition_status::unknown:
        break;
    }
    return "Unknown";
}

Value containers_value(const std::vector<policy::container_spec>& list, kube::json_allocator& a) {
    Value containers(rapidjson::kArrayType);
    for (const auto& c : list) {
        Value container(rapidjson::kObjectType);
        container.AddMember("name", kube::json_string(c.name, a), a);
        if (c.restart_always) container.AddMember("restartPolicy", "Always", a);
        Value resources(rapidjson::kObjectType);
        resources.AddMember("requests", resources_value(c.requests, a), a);
        resources.AddMember("limits", resources_value(c.limits, a), a);
        container.AddMember("resources", resources, a);
        containers.PushBack(container, a);
    }
    return containers;
}

// The start-up boost record that decodes to `p.boosted`: each boosted container's CPU request
// is the boosted one it has now.
std::string boost_record_of(const policy::pod_info& p) {
    vertical::boost_record record;
    for (const auto& b : p.boosted) {
        record.vpaplus = b.by;
        vertical::boosted_cpu cpu;
        cpu.container = b.name;
        for (const auto& c : p.containers())
            if (c.name == b.name) cpu.boosted_milli = cpu_milli(c.requests).value_or(0);
        if (b.request) cpu.request_milli = b.request->milli_value();
        if (b.limit) cpu.limit_milli = b.limit->milli_value();
        record.containers.push_back(std::move(cpu));
    }
    return encode_boost_record(record);
}

// A v1 Pod that decodes (kinds/decode_objects.cpp) to `p`: what it requests is what its
// containers have now (an applied resize included).
Value pod_value(const policy::pod_info& p, core::time_point now, kube::json_allocator& a) {
    Value pod(rapidjson::kObjectType);
    Value meta = metadata(p.name, p.namespace_(), p.labels, a);
    if (p.deleting) meta.AddMember("deletionTimestamp", time_value(now, a), a);
    if (const auto& owner = p.controller(); !owner.kind.empty()) {
        Value ref(rapidjson::kObjectType);
        ref.AddMember("apiVersion", kube::json_string(owner.api_version, a), a);
        ref.AddMember("kind", kube::json_string(owner.kind, a), a);
        ref.AddMember("name", kube::json_string(owner.name, a), a);
        ref.AddMember("controller", true, a);
        Value refs(rapidjson::kArrayType);
        refs.PushBack(ref, a);
        meta.AddMember("ownerReferences", refs, a);
    }
    if (!p.boosted.empty()) {
        Value annotations(rapidjson::kObjectType);
        annotations.AddMember(rapidjson::StringRef(vertical::boost_annotation),
                              kube::json_string(boost_record_of(p), a), a);
        meta.AddMember("annotations", annotations, a);
    }
    pod.AddMember("metadata", meta, a);
    Value spec(rapidjson::kObjectType);
    spec.AddMember("containers", containers_value(p.containers(), a), a);
    if (!p.init_containers().empty())
        spec.AddMember("initContainers", containers_value(p.init_containers(), a), a);
    if (!p.pod_requests().empty() || !p.pod_limits().empty()) {
        Value resources(rapidjson::kObjectType);
        resources.AddMember("requests", resources_value(p.pod_requests(), a), a);
        resources.AddMember("limits", resources_value(p.pod_limits(), a), a);
        spec.AddMember("resources", resources, a);
    }
    pod.AddMember("spec", spec, a);
    Value status(rapidjson::kObjectType);
    status.AddMember("phase", rapidjson::StringRef(phase_text(p.phase)), a);
    if (p.start_time) status.AddMember("startTime", time_value(*p.start_time, a), a);
    if (p.ready) {
        Value ready(rapidjson::kObjectType);
        ready.AddMember("type", "Ready", a);
        ready.AddMember("status", rapidjson::StringRef(status_text(*p.ready)), a);
        if (p.ready_transition_time)
            ready.AddMember("lastTransitionTime", time_value(*p.ready_transition_time, a), a);
        Value conditions(rapidjson::kArrayType);
        conditions.PushBack(ready, a);
        status.AddMember("conditions", conditions, a);
    }
    pod.AddMember("status", status, a);
    return pod;
}

// Labels that `selector` selects: a PodMetrics of a pod the input does not list must still pass
// the scale's selector, as the metrics server picked it.
core::label_map labels_selected_by(const core::label_selector& selector) {
    std::vector<core::label_map::value_type> entries;
    std::vector<std::string> numbers; // what entries view for Gt and Lt
    numbers.reserve(selector.requirements.size());
    for (const auto& r : selector.requirements) {
        const std::string_view first = r.values.empty() ? "" : std::string_view(r.values.front());
        switch (r.op) {
        case core::selector_op::equals:
        case core::selector_op::in:
            entries.emplace_back(r.key, first);
            break;
        case core::selector_op::exists:
            entries.emplace_back(r.key, "x");
            break;
        case core::selector_op::greater_than:
        case core::selector_op::less_than: {
            const long long bound = std::strtoll(std::string(first).c_str(), nullptr, 10);
            const long long v = r.op == core::selector_op::greater_than ? bound + 1 : bound - 1;
            entries.emplace_back(r.key, numbers.emplace_back(std::to_string(v)));
            break;
        }
        default:
            break;
        }
    }
    return core::label_map::from_views(entries);
}

std::string window_text(std::chrono::nanoseconds window) {
    return core::format_go_duration(window);
}

// The metric list that gives reading `r` of metric `m` to evaluate.
Value metric_items(const policy::metric_spec& m, const policy::metric_reading& r,
                   const policy::reconcile_input& in, kube::json_allocator& a) {
    Value items(rapidjson::kArrayType);
    auto item = [&](std::int64_t milli) {
        Value v(rapidjson::kObjectType);
        v.AddMember("metricName", kube::json_string(m.metric.name, a), a);
        v.AddMember("timestamp", time_value(r.sample_time.value_or(in.now), a), a);
        v.AddMember("value", quantity_value(milli, a), a);
        return v;
    };
    if (m.type == policy::metric_source_type::external) {
        for (std::int64_t milli : r.external_values) {
            Value v = item(milli);
            // The item must pass the metric's own selector, as the metrics server picked it.
            core::label_map labels;
            if (const auto& selector = m.metric.selector) {
                // Of equal keys from_views keeps the first: the last expression wins, then the
                // expressions over matchLabels.
                std::vector<core::label_map::value_type> entries;
                const auto& expressions = selector->match_expressions;
                for (auto e = expressions.rbegin(); e != expressions.rend(); ++e)
                    if ((e->op == "In" && !e->values.empty()) || e->op == "Exists")
                        entries.emplace_back(e->key, e->values.empty() ? std::string_view("x")
                                                                       : e->values.front());
                entries.insert(entries.end(), selector->match_labels.begin(),
                               selector->match_labels.end());
                labels = core::label_map::from_views(entries);
            }
            v.AddMember("metricLabels", labels_value(labels, a), a);
            items.PushBack(v, a);
        }
    } else if (m.type == policy::metric_source_type::object) {
        Value v = item(r.object_value);
        Value described(rapidjson::kObjectType);
        described.AddMember("kind", kube::json_string(m.described_object.kind, a), a);
        described.AddMember("name", kube::json_string(m.described_object.name, a), a);
        described.AddMember("namespace", kube::json_string(in.hpa.namespace_, a), a);
        v.AddMember("describedObject", described, a);
        items.PushBack(v, a);
    } else {
        for (const auto& s : r.samples) {
            Value v = item(s.milli);
            Value described(rapidjson::kObjectType);
            described.AddMember("kind", "Pod", a);
            described.AddMember("name", kube::json_string(s.pod, a), a);
            described.AddMember("namespace", kube::json_string(in.hpa.namespace_, a), a);
            v.AddMember("describedObject", described, a);
            v.AddMember("windowSeconds",
                        std::chrono::duration_cast<std::chrono::seconds>(s.window).count(), a);
            v["timestamp"] = time_value(s.timestamp, a);
            items.PushBack(v, a);
        }
    }
    return items;
}

// One PodMetrics per pod. A ContainerResource metric's value is its container's usage; a Resource
// metric's value is the sum over every container, so the rest of it goes to one more container
// (named `app` in a replay, whose pods have one).
using usage_list = std::vector<std::pair<std::string, std::int64_t>>;
struct container_usage {
    std::string name;
    usage_list usage;
};
struct pod_usage {
    std::string pod;
    core::time_point timestamp{};
    std::chrono::nanoseconds window{0};
    std::vector<container_usage> containers; ///< ContainerResource metrics' containers
    usage_list totals;                       ///< Resource metrics' sums
};

// Sets `resource` in `list` unless it is there already (the first metric of a resource wins).
void put_usage(usage_list& list, const std::string& resource, std::int64_t milli) {
    const bool known =
        std::any_of(list.begin(), list.end(), [&](const auto& u) { return u.first == resource; });
    if (!known) list.emplace_back(resource, milli);
}

// `index`: where each pod is in `pods` (linear in samples, however many pods).
void add_resource_samples(const policy::metric_spec& m, const policy::metric_reading& r,
                          std::vector<pod_usage>& pods,
                          std::unordered_map<std::string, std::size_t>& index) {
    for (const auto& s : r.samples) {
        const auto [at, added] = index.try_emplace(std::string(s.pod), pods.size());
        if (added) pods.push_back({std::string(s.pod), s.timestamp, s.window, {}, {}});
        const auto it = pods.begin() + static_cast<std::ptrdiff_t>(at->second);
        if (m.type == policy::metric_source_type::resource) {
            put_usage(it->totals, m.resource_name, s.milli);
            continue;
        }
        auto c = std::find_if(it->containers.begin(), it->containers.end(),
                              [&](auto& c) { return c.name == m.container; });
        if (c == it->containers.end())
            c = it->containers.insert(it->containers.end(), {m.container, {}});
        put_usage(c->usage, m.resource_name, s.milli);
    }
}

// What a pod's containers show: the named ones, and the rest of each Resource metric's sum in
// one more (every container then has each summed resource, or the sum would be missing).
std::vector<container_usage> containers_of(const pod_usage& p, bool resource_metrics) {
    std::vector<container_usage> out = p.containers;
    if (!resource_metrics) return out;
    const bool app_taken =
        std::any_of(out.begin(), out.end(), [](const auto& c) { return c.name == "app"; });
    container_usage rest{app_taken ? "hpaplus-rest" : "app", {}};
    for (const auto& entry : p.totals) {
        const std::string& resource = entry.first;
        const std::int64_t total = entry.second;
        std::int64_t named = 0;
        for (auto& c : out) {
            auto u = std::find_if(c.usage.begin(), c.usage.end(),
                                  [&](const auto& u) { return u.first == resource; });
            if (u == c.usage.end()) u = c.usage.insert(c.usage.end(), {resource, 0});
            named += u->second;
        }
        rest.usage.emplace_back(resource, total - named);
    }
    out.push_back(std::move(rest));
    return out;
}

Value pod_metrics_list(const std::vector<pod_usage>& pods, const policy::reconcile_input& in,
                       kube::json_allocator& a) {
    Value list(rapidjson::kArrayType);
    const bool resource_metrics =
        std::any_of(in.hpa.spec.metrics.begin(), in.hpa.spec.metrics.end(),
                    [](const auto& m) { return m.type == policy::metric_source_type::resource; });
    core::label_map selected;
    if (in.scale)
        if (auto selector = core::parse_label_selector(in.scale->selector))
            selected = labels_selected_by(*selector);
    std::unordered_map<std::string_view, const policy::pod_info*> known;
    for (const auto* p : in.pods)
        known.emplace(p->name, p);
    for (const pod_usage& p : pods) {
        const auto pod = known.find(p.pod);
        const core::label_map& labels = pod != known.end() ? pod->second->labels : selected;
        Value item(rapidjson::kObjectType);
        item.AddMember("metadata", metadata(p.pod, in.hpa.namespace_, labels, a), a);
        item.AddMember("timestamp", time_value(p.timestamp, a), a);
        item.AddMember("window", kube::json_string(window_text(p.window), a), a);
        Value containers(rapidjson::kArrayType);
        for (const auto& c : containers_of(p, resource_metrics)) {
            Value usage(rapidjson::kObjectType);
            for (const auto& [resource, milli] : c.usage)
                usage.AddMember(kube::json_string(resource, a), quantity_value(milli, a), a);
            Value container(rapidjson::kObjectType);
            container.AddMember("name", kube::json_string(c.name, a), a);
            container.AddMember("usage", usage, a);
            containers.PushBack(container, a);
        }
        item.AddMember("containers", containers, a);
        list.PushBack(item, a);
    }
    return list;
}

Value config_value(const policy::controller_config& c, kube::json_allocator& a) {
    Value v(rapidjson::kObjectType);
    v.AddMember("tolerance", c.tolerance, a);
    v.AddMember("downscaleStabilizationWindowSeconds",
                static_cast<std::int64_t>(c.downscale_stabilization_window.count()), a);
    v.AddMember("cpuInitializationPeriodSeconds",
                static_cast<std::int64_t>(c.cpu_initialization_period.count()), a);
    v.AddMember("initialReadinessDelaySeconds",
                static_cast<std::int64_t>(c.initial_readiness_delay.count()), a);
    v.AddMember("scaleUpLimitFactor", c.scale_up_limit_factor, a);
    v.AddMember("scaleUpLimitMinimum", c.scale_up_limit_minimum, a);
    Value gates(rapidjson::kObjectType);
    gates.AddMember("HPAScaleToZero", c.scale_to_zero, a);
    v.AddMember("featureGates", gates, a);
    return v;
}

Value status_value(const policy::autoscaler_status& s, kube::json_allocator& a) {
    Value v(rapidjson::kObjectType);
    if (s.last_scale_time) v.AddMember("lastScaleTime", time_value(*s.last_scale_time, a), a);
    v.AddMember("currentReplicas", s.current_replicas, a);
    v.AddMember("desiredReplicas", s.desired_replicas, a);
    v.AddMember("conditions", kube::encode_conditions(s.conditions, a), a);
    return v;
}

// What a backend answered for metric `m` (evaluate's `backendValues`): pod → value for a
// per-pod metric, the value of an Object metric, the values of an External one.
Value backend_values(const policy::metric_spec& m, const policy::metric_reading& r,
                     kube::json_allocator& a) {
    const auto number = [](std::int64_t milli) { return Value(static_cast<double>(milli) / 1000); };
    switch (m.type) {
    case policy::metric_source_type::object:
        return number(r.object_value);
    case policy::metric_source_type::external: {
        Value values(rapidjson::kArrayType);
        for (std::int64_t milli : r.external_values)
            values.PushBack(number(milli), a);
        return values;
    }
    default: {
        Value values(rapidjson::kObjectType);
        for (const auto& s : r.samples)
            values.AddMember(kube::json_string(s.pod, a), number(s.milli), a);
        return values;
    }
    }
}

Value replica_sets_value(const std::vector<policy::controller_link>& links,
                         kube::json_allocator& a) {
    Value list(rapidjson::kArrayType);
    for (const auto& link : links) {
        Value owner(rapidjson::kObjectType);
        owner.AddMember("apiVersion", kube::json_string(link.controller.api_version, a), a);
        owner.AddMember("kind", kube::json_string(link.controller.kind, a), a);
        owner.AddMember("name", kube::json_string(link.controller.name, a), a);
        owner.AddMember("controller", true, a);
        Value owners(rapidjson::kArrayType);
        owners.PushBack(owner, a);
        Value meta(rapidjson::kObjectType);
        meta.AddMember("name", kube::json_string(link.object.name, a), a);
        meta.AddMember("ownerReferences", owners, a);
        Value rs(rapidjson::kObjectType);
        rs.AddMember("metadata", meta, a);
        list.PushBack(rs, a);
    }
    return list;
}

Value boost_authority_value(const policy::boost_authority& b, kube::json_allocator& a) {
    Value v(rapidjson::kObjectType);
    v.AddMember("vpaplus", kube::json_string(b.vpaplus, a), a);
    Value containers(rapidjson::kArrayType);
    for (const auto& c : b.containers) {
        Value container(rapidjson::kObjectType);
        container.AddMember("name", kube::json_string(c.name, a), a);
        if (c.request_milli) container.AddMember("cpu", quantity_value(*c.request_milli, a), a);
        if (c.limit_milli) container.AddMember("cpuLimit", quantity_value(*c.limit_milli, a), a);
        containers.PushBack(container, a);
    }
    v.AddMember("containers", containers, a);
    return v;
}

Value forecast_value(const policy::prediction_input& p, kube::json_allocator& a) {
    Value forecast(rapidjson::kObjectType);
    if (p.value) forecast.AddMember("value", *p.value, a);
    if (!p.why.empty()) forecast.AddMember("reason", kube::json_string(p.why, a), a);
    if (!p.message.empty()) forecast.AddMember("message", kube::json_string(p.message, a), a);
    if (p.period)
        forecast.AddMember("period", kube::json_string(core::format_go_duration(*p.period), a), a);
    if (p.next_peak)
        forecast.AddMember("nextPeak", kube::json_string(core::format_rfc3339(*p.next_peak), a), a);
    return forecast;
}

Value decided_value(const decided_outcome& d, kube::json_allocator& a) {
    Value v(rapidjson::kObjectType);
    v.AddMember("currentReplicas", d.current_replicas, a);
    v.AddMember("desiredReplicas", d.desired_replicas, a);
    v.AddMember("scaleUpdated", d.scale_updated, a);
    v.AddMember("error", d.error ? kube::json_string(*d.error, a) : Value(rapidjson::kNullType), a);
    return v;
}

// The metric answers of `in`: PodMetrics, custom and external lists, backend values, and the
// metrics whose read failed.
void add_readings(rapidjson::Document& doc, const policy::reconcile_input& in) {
    auto& a = doc.GetAllocator();
    std::vector<pod_usage> pod_usages;
    std::unordered_map<std::string, std::size_t> pod_index;
    Value custom(rapidjson::kObjectType);
    Value external(rapidjson::kObjectType);
    Value backends(rapidjson::kObjectType);
    Value failures(rapidjson::kArrayType);
    const auto& metrics = in.hpa.spec.metrics;
    for (std::size_t i = 0; i < metrics.size() && i < in.readings.size(); ++i) {
        const auto& m = metrics[i];
        const auto& r = in.readings[i];
        if (m.type == policy::metric_source_type::formula) continue;
        if (r.error) {
            failures.PushBack(kube::json_string(std::to_string(i), a), a);
            continue;
        }
        if (!m.backend.empty()) {
            backends.AddMember(kube::json_string(std::to_string(i), a), backend_values(m, r, a), a);
            continue;
        }
        const std::string key = "#" + std::to_string(i);
        switch (m.type) {
        case policy::metric_source_type::resource:
        case policy::metric_source_type::container_resource:
            add_resource_samples(m, r, pod_usages, pod_index);
            break;
        case policy::metric_source_type::pods:
        case policy::metric_source_type::object:
            custom.AddMember(kube::json_string(key, a), metric_items(m, r, in, a), a);
            break;
        case policy::metric_source_type::external:
            external.AddMember(kube::json_string(key, a), metric_items(m, r, in, a), a);
            break;
        case policy::metric_source_type::formula:
            break;
        }
    }
    doc.AddMember("podMetrics", pod_metrics_list(pod_usages, in, a), a);
    doc.AddMember("customMetrics", custom, a);
    doc.AddMember("externalMetrics", external, a);
    if (!backends.ObjectEmpty()) doc.AddMember("backendValues", backends, a);
    if (!failures.Empty()) doc.AddMember("failures", failures, a);
}

} // namespace

Value encode_history(const policy::history& h, kube::json_allocator& a) {
    Value out(rapidjson::kObjectType);
    Value recs(rapidjson::kArrayType);
    for (const auto& r : h.recommendations) {
        Value v(rapidjson::kObjectType);
        v.AddMember("time", time_value(r.time, a), a);
        v.AddMember("replicas", r.replicas, a);
        recs.PushBack(v, a);
    }
    out.AddMember("recommendations", recs, a);
    for (auto [key, list] : {std::pair{"scaleUpEvents", &h.scale_up_events},
                             std::pair{"scaleDownEvents", &h.scale_down_events}}) {
        Value events(rapidjson::kArrayType);
        for (const auto& e : *list) {
            Value v(rapidjson::kObjectType);
            v.AddMember("time", time_value(e.time, a), a);
            v.AddMember("replicaChange", e.change, a);
            events.PushBack(v, a);
        }
        out.AddMember(rapidjson::StringRef(key), events, a);
    }
    if (!h.last_known_good.empty()) {
        Value good(rapidjson::kArrayType);
        for (const auto& g : h.last_known_good) {
            Value v(rapidjson::kObjectType);
            v.AddMember("index", static_cast<std::uint64_t>(g.index), a);
            v.AddMember("time", time_value(g.time, a), a);
            v.AddMember("proposedReplicas", g.replicas, a);
            good.PushBack(v, a);
        }
        out.AddMember("lastKnownGood", good, a);
    }
    if (h.prediction_voting) out.AddMember("predictionVoting", true, a);
    // The sets of pods the last Events named (podSelection's excluded pods, boost records not
    // believed, unready pods counted), one name per line.
    for (const auto& [key, lines] : {std::pair{"excludedPods", &h.excluded_pods},
                                     std::pair{"ignoredBoosts", &h.ignored_boosts},
                                     std::pair{"countedUnreadyPods", &h.counted_unready}}) {
        if (lines->empty()) continue;
        Value names(rapidjson::kArrayType);
        std::string_view rest = *lines;
        for (auto end = rest.find('\n'); end != std::string_view::npos; end = rest.find('\n')) {
            names.PushBack(kube::json_string(rest.substr(0, end), a), a);
            rest.remove_prefix(end + 1);
        }
        out.AddMember(rapidjson::StringRef(key), names, a);
    }
    return out;
}

std::string pretty_json(const rapidjson::Value& v) {
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
    writer.SetIndent(' ', 2);
    v.Accept(writer);
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

std::string encode_evaluate_input(const policy::reconcile_input& in, const std::string& hpa_json,
                                  const std::optional<decided_outcome>& decided,
                                  bool scale_write_failed) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("now", time_value(in.now, a), a);
    doc.AddMember("config", config_value(in.config, a), a);

    rapidjson::Document hpa;
    net::parse_json(hpa, hpa_json);
    Value hpa_value(hpa, a);
    if (hpa_value.IsObject()) {
        hpa_value.RemoveMember("status");
        hpa_value.AddMember("status", status_value(in.hpa.status, a), a);
    }
    doc.AddMember("hpa", hpa_value, a);

    if (in.scale) {
        Value scale(rapidjson::kObjectType);
        Value spec(rapidjson::kObjectType);
        spec.AddMember("replicas", in.scale->spec_replicas, a);
        Value status(rapidjson::kObjectType);
        status.AddMember("replicas", in.scale->status_replicas, a);
        status.AddMember("selector", kube::json_string(in.scale->selector, a), a);
        scale.AddMember("spec", spec, a);
        scale.AddMember("status", status, a);
        doc.AddMember("scale", scale, a);
    }
    Value pods(rapidjson::kArrayType);
    for (const policy::pod_info* p : in.pods)
        pods.PushBack(pod_value(*p, in.now, a), a);
    doc.AddMember("pods", pods, a);
    add_readings(doc, in);
    if (!in.scale || scale_write_failed) {
        if (!doc.HasMember("failures")) doc.AddMember("failures", Value(rapidjson::kArrayType), a);
        doc["failures"].PushBack(rapidjson::StringRef(in.scale ? "updateScale" : "getScale"), a);
    }
    if (in.hist.started) doc.AddMember("history", encode_history(in.hist, a), a);
    if (in.recommendation_override) doc.AddMember("recommendation", *in.recommendation_override, a);
    if (!in.controllers.empty())
        doc.AddMember("replicaSets", replica_sets_value(in.controllers, a), a);
    if (!in.peers.empty()) {
        Value peers(rapidjson::kArrayType);
        for (const auto& p : in.peers) {
            Value v(rapidjson::kObjectType);
            v.AddMember("name", kube::json_string(p.name, a), a);
            v.AddMember("selector", kube::json_string(core::to_string(p.selector), a), a);
            peers.PushBack(v, a);
        }
        doc.AddMember("otherAutoscalers", peers, a);
    }
    if (in.rollout) {
        Value rollout(rapidjson::kObjectType);
        rollout.AddMember("inProgress", in.rollout->in_progress, a);
        rollout.AddMember("message", kube::json_string(in.rollout->message, a), a);
        doc.AddMember("rollout", rollout, a);
    }
    if (in.floor) {
        Value floor(rapidjson::kObjectType);
        floor.AddMember("replicas", in.floor->replicas, a);
        floor.AddMember("cronHPA", kube::json_string(in.floor->cronhpa, a), a);
        floor.AddMember("job", kube::json_string(in.floor->job, a), a);
        floor.AddMember("since", time_value(in.floor->since, a), a);
        doc.AddMember("cronFloor", floor, a);
    }
    if (in.boosts) doc.AddMember("startupBoostAuthority", boost_authority_value(*in.boosts, a), a);
    if (in.hpa.spec.prediction) doc.AddMember("forecast", forecast_value(in.prediction, a), a);
    if (decided) doc.AddMember("decided", decided_value(*decided, a), a);
    return pretty_json(doc);
}

} // namespace hpaplus::kinds
