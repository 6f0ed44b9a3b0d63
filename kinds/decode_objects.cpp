// kinds/decode_objects.cpp — Pods, PodMetrics, Scale, metric values and workload status from JSON.
#include "kinds/decode.hpp"

#include "core/kubernetes.hpp"
#include "kinds/vpaplus.hpp"
#include "policy/pod_grouping.hpp"

#include <algorithm>
#include <iterator>

namespace hpaplus::kinds {
namespace {

core::condition_status decode_condition_status(kube::json_decoder& d, const kube::json_node& n) {
    const std::string s = d.opt_string(n).value_or("Unknown");
    if (s == "True") return core::condition_status::true_;
    if (s == "False") return core::condition_status::false_;
    if (s != "Unknown") d.fail(n, "must be \"True\", \"False\" or \"Unknown\", got \"" + s + "\"");
    return core::condition_status::unknown;
}

policy::container_spec decode_container(kube::json_decoder& d, const kube::json_node& n) {
    policy::container_spec c;
    if (!d.object(n)) {
        d.fail(n, "expected an object");
        return c;
    }
    c.name = d.string(n["name"]);
    c.requests = d.resources(n["resources"]["requests"]);
    c.limits = d.resources(n["resources"]["limits"]);
    c.restart_always = d.opt_string(n["restartPolicy"]).value_or("") == "Always";
    return c;
}

// Entries of `applied` replace those of `spec` with the same name (others stay).
void apply_status_resources(core::resource_list& spec, const core::resource_list& applied) {
    for (const auto& entry : applied) {
        const auto it = std::find_if(spec.begin(), spec.end(),
                                     [&](const auto& e) { return e.first == entry.first; });
        if (it != spec.end())
            it->second = entry.second;
        else
            spec.push_back(entry);
    }
}

// A metric's `value` in milli-units; a value whose milli-units do not fit in int64 fails the answer
// (it would otherwise saturate and be reported as a valid number).
std::int64_t metric_value_milli(kube::json_decoder& d, const kube::json_node& value) {
    if (!value.present()) {
        d.fail(value, "required field is missing");
        return 0;
    }
    const auto q = d.opt_quantity(value);
    if (!q) return 0;
    if (!q->milli_fits()) {
        d.fail(value, "the value " + q->to_string() +
                          " is out of range (a metric value must fit in 64-bit milli-units)");
        return 0;
    }
    return q->milli_value();
}

// The containers of `pod` whose start-up boost (the annotation `text`) is in force, with their
// CPU without it. `spec_cpu` holds each container's spec request (pod.containers() has the
// applied one).
std::vector<policy::boosted_container>
boosts_in_force(const policy::pod_info& pod,
                const std::vector<std::optional<std::int64_t>>& spec_cpu, std::string_view text) {
    std::vector<policy::boosted_container> out;
    const auto record = decode_boost_record(text);
    if (!record) return out;
    for (const auto& b : record->containers) {
        for (std::size_t i = 0; i < pod.containers().size(); ++i) {
            const auto& c = pod.containers()[i];
            if (c.name != b.container ||
                !policy::boost_in_force(b.boosted_milli, spec_cpu[i], cpu_milli(c.requests),
                                        record->ended))
                continue;
            const auto q = [](const std::optional<std::int64_t>& milli) {
                return milli ? std::optional(core::quantity::from_milli(
                                   *milli, core::quantity_format::decimal_si))
                             : std::nullopt;
            };
            out.push_back({c.name, q(b.request_milli), q(b.limit_milli), record->vpaplus});
        }
    }
    return out;
}

} // namespace

std::optional<std::int64_t> cpu_milli(const core::resource_list& list) {
    const auto* q = core::find_resource(list, "cpu");
    return q ? std::optional(q->milli_value()) : std::nullopt;
}

core::object_reference decode_controller(kube::json_decoder& d, const kube::json_node& metadata) {
    const kube::json_node owners = metadata["ownerReferences"];
    for (std::size_t i = 0, size = d.array(owners); i < size; ++i) {
        const kube::json_node o = owners.at(i);
        if (!d.opt_bool(o["controller"]).value_or(false)) continue;
        return {d.opt_string(o["kind"]).value_or(""), d.opt_string(o["name"]).value_or(""),
                d.opt_string(o["apiVersion"]).value_or("")};
    }
    return {};
}

policy::pod_info decode_pod(kube::json_decoder& d, const kube::json_node& n) {
    policy::pod_info pod;
    if (!d.object(n)) {
        d.fail(n, "expected a Pod object");
        return pod;
    }
    const kube::json_node meta = n["metadata"];
    pod.name = d.string(meta["name"]);
    pod.labels = d.string_map(meta["labels"]);
    pod.deleting = meta["deletionTimestamp"].present();
    policy::pod_template& shared = pod.own_template();
    shared.namespace_ = d.opt_string(meta["namespace"]).value_or("default");
    shared.controller = decode_controller(d, meta);
    const kube::json_node spec = n["spec"];
    for (std::size_t i = 0, size = d.array(spec["containers"]); i < size; ++i)
        shared.containers.push_back(decode_container(d, spec["containers"].at(i)));
    for (std::size_t i = 0, size = d.array(spec["initContainers"]); i < size; ++i)
        shared.init_containers.push_back(decode_container(d, spec["initContainers"].at(i)));
    shared.pod_requests = d.resources(spec["resources"]["requests"]);
    shared.pod_limits = d.resources(spec["resources"]["limits"]);

    const kube::json_node status = n["status"];
    const std::string phase = d.opt_string(status["phase"]).value_or("Pending");
    if (phase == "Pending")
        pod.phase = policy::pod_phase::pending;
    else if (phase == "Running")
        pod.phase = policy::pod_phase::running;
    else if (phase == "Succeeded")
        pod.phase = policy::pod_phase::succeeded;
    else if (phase == "Failed")
        pod.phase = policy::pod_phase::failed;
    else if (phase == "Unknown")
        pod.phase = policy::pod_phase::unknown;
    else
        d.fail(status["phase"], "unknown pod phase \"" + phase + "\"");
    pod.start_time = d.opt_time(status["startTime"]);
    // What the runtime applied (status.containerStatuses[].resources) is what the containers
    // have: during and after an in-place resize it differs from the spec, and utilization must be
    // measured against it. Without a resize the two are equal.
    // A start-up boost is judged by the spec's cpu too: kept before the status's resources apply.
    const auto boost = d.opt_string_view(meta["annotations"][vertical::boost_annotation]);
    std::vector<std::optional<std::int64_t>> spec_cpu;
    if (boost)
        for (const auto& c : shared.containers)
            spec_cpu.push_back(cpu_milli(c.requests));
    const kube::json_node statuses = status["containerStatuses"];
    for (std::size_t i = 0, size = d.array(statuses); i < size; ++i) {
        const kube::json_node st = statuses.at(i);
        if (!st["resources"].present()) continue;
        const std::string name = d.opt_string(st["name"]).value_or("");
        for (auto& c : shared.containers) {
            if (c.name != name) continue;
            apply_status_resources(c.requests, d.resources(st["resources"]["requests"]));
            apply_status_resources(c.limits, d.resources(st["resources"]["limits"]));
        }
    }
    if (boost) pod.boosted = boosts_in_force(pod, spec_cpu, *boost);
    const kube::json_node conditions = status["conditions"];
    for (std::size_t i = 0, size = d.array(conditions); i < size; ++i) {
        const kube::json_node c = conditions.at(i);
        if (d.opt_string(c["type"]).value_or("") != "Ready") continue;
        pod.ready = decode_condition_status(d, c["status"]);
        pod.ready_transition_time = d.opt_time(c["lastTransitionTime"]);
    }
    return pod;
}

policy::scale_snapshot decode_scale(kube::json_decoder& d, const kube::json_node& n) {
    policy::scale_snapshot s;
    if (!d.object(n)) {
        d.fail(n, "expected an autoscaling/v1 Scale object");
        return s;
    }
    s.spec_replicas = d.opt_int32(n["spec"]["replicas"], 0).value_or(0);
    s.status_replicas = d.opt_int32(n["status"]["replicas"], 0).value_or(0);
    s.selector = d.opt_string(n["status"]["selector"]).value_or("");
    return s;
}

custom_metric_item decode_custom_metric_item(kube::json_decoder& d, const kube::json_node& n) {
    custom_metric_item item;
    if (!d.object(n)) {
        d.fail(n, "expected a MetricValue object");
        return item;
    }
    const kube::json_node obj = n["describedObject"];
    item.described_object.kind = d.opt_string(obj["kind"]).value_or("");
    item.described_object.name = d.opt_string(obj["name"]).value_or("");
    item.described_object.api_version = d.opt_string(obj["apiVersion"]).value_or("");
    item.described_namespace = d.opt_string(obj["namespace"]).value_or("");
    item.metric_name =
        d.opt_string(n["metric"]["name"]).value_or(d.opt_string(n["metricName"]).value_or(""));
    item.timestamp = d.opt_time(n["timestamp"]).value_or(core::time_point{});
    // Custom metrics default to a 60 s window when the adapter does not say.
    item.window = std::chrono::seconds(d.opt_int(n["windowSeconds"], 0, INT32_MAX).value_or(60));
    item.milli = metric_value_milli(d, n["value"]);
    return item;
}

external_metric_item decode_external_metric_item(kube::json_decoder& d, const kube::json_node& n) {
    external_metric_item item;
    if (!d.object(n)) {
        d.fail(n, "expected an ExternalMetricValue object");
        return item;
    }
    item.metric_name = d.opt_string(n["metricName"]).value_or("");
    item.labels = d.string_map(n["metricLabels"]);
    item.timestamp = d.opt_time(n["timestamp"]).value_or(core::time_point{});
    item.milli = metric_value_milli(d, n["value"]);
    return item;
}

policy::workload_rollout_status decode_rollout_status(kube::json_decoder& d,
                                                      const kube::json_node& n) {
    policy::workload_rollout_status w;
    if (!d.object(n)) {
        d.fail(n, "expected a workload object (apps/v1 Deployment or StatefulSet)");
        return w;
    }
    w.generation = d.opt_int(n["metadata"]["generation"], 0, INT64_MAX).value_or(0);
    w.spec_replicas = d.opt_int32(n["spec"]["replicas"], 0);
    const kube::json_node status = n["status"];
    w.observed_generation = d.opt_int(status["observedGeneration"], 0, INT64_MAX).value_or(0);
    // Status counters omit zeros.
    w.replicas = d.opt_int32(status["replicas"], 0).value_or(0);
    w.updated_replicas = d.opt_int32(status["updatedReplicas"], 0).value_or(0);
    w.available_replicas = d.opt_int32(status["availableReplicas"], 0).value_or(0);
    if (d.opt_string(n["kind"]).value_or("") == "StatefulSet") {
        w.kind = policy::workload_kind::stateful_set;
        w.ready_replicas = d.opt_int32(status["readyReplicas"], 0).value_or(0);
        const kube::json_node strategy = n["spec"]["updateStrategy"];
        w.rolling_update =
            d.opt_string(strategy["type"]).value_or("RollingUpdate") == "RollingUpdate";
        if (w.rolling_update) w.partition = d.opt_int32(strategy["rollingUpdate"]["partition"], 0);
        w.current_revision = d.opt_string(status["currentRevision"]).value_or("");
        w.update_revision = d.opt_string(status["updateRevision"]).value_or("");
        return w;
    }
    const kube::json_node conditions = status["conditions"];
    for (std::size_t i = 0, size = d.array(conditions); i < size; ++i) {
        const kube::json_node c = conditions.at(i);
        if (d.opt_string(c["type"]).value_or("") == "Progressing" &&
            d.opt_string(c["reason"]).value_or("") == "ProgressDeadlineExceeded")
            w.progress_deadline_exceeded = true;
    }
    return w;
}

} // namespace hpaplus::kinds
