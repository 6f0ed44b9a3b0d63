// cli/evaluate/snapshot.cpp — decoding `hpaplus evaluate`'s input (docs/evaluate.md): the
// autoscaler, its scale, pods, metric answers of every API and backend, injected failures and the
// history, into the reconcile input the controller would build.
#include "cli/evaluate/snapshot.hpp"

#include "kinds/decode.hpp"
#include "kinds/pod_metrics.hpp"
#include "kinds/records.hpp"
#include "kinds/scale_target.hpp"
#include "kube/json_decoder.hpp"
#include "metrics/backend_reading.hpp"
#include "policy/defaults.hpp"
#include "policy/metric_samples.hpp"
#include "policy/validation.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <limits>

namespace hpaplus::cli {
namespace {

using kube::json_decoder;
using kube::json_node;

constexpr std::int64_t max_seconds = 365LL * 24 * 3600;

const char* const unavailable = "the server is currently unable to handle the request";

// `deployments.apps` for error texts that name the target resource like the API server does.
std::string target_resource(const core::object_reference& ref) {
    std::string plural = ref.kind;
    std::transform(plural.begin(), plural.end(), plural.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    plural += plural.empty() || plural.back() != 's' ? "s" : "es";
    const auto slash = ref.api_version.find('/');
    return slash == std::string::npos ? plural : plural + "." + ref.api_version.substr(0, slash);
}

void decode_config(json_decoder& d, const json_node& n, policy::controller_config& c) {
    if (!d.object(n)) return;
    d.known_fields(n, {"tolerance", "downscaleStabilizationWindowSeconds",
                       "cpuInitializationPeriodSeconds", "initialReadinessDelaySeconds",
                       "scaleUpLimitFactor", "scaleUpLimitMinimum", "featureGates"});
    // kube-controller-manager's --feature-gates; an HPAPlus runs with HPAScaleToZero on whatever
    // this says (decode_document).
    if (n["featureGates"].present() && d.object(n["featureGates"])) {
        d.known_fields(n["featureGates"], {"HPAScaleToZero"});
        c.scale_to_zero = d.opt_bool(n["featureGates"]["HPAScaleToZero"]).value_or(false);
    }
    auto non_negative = [&](const json_node& field, double fallback, double max) {
        const auto v = d.opt_number(field);
        if (v && (*v < 0 || *v > max))
            d.fail(field, "must be between 0 and " + std::to_string(static_cast<long long>(max)));
        return v.value_or(fallback);
    };
    // A value of 0 means zero here, not "unset" as the controller-manager flags treat it.
    c.tolerance = non_negative(n["tolerance"], c.tolerance, 1000);
    c.scale_up_limit_factor = non_negative(n["scaleUpLimitFactor"], c.scale_up_limit_factor, 1e6);
    c.scale_up_limit_minimum =
        non_negative(n["scaleUpLimitMinimum"], c.scale_up_limit_minimum, 1e6);
    auto seconds = [&](const char* key, std::chrono::seconds fallback) {
        return std::chrono::seconds(d.opt_int(n[key], 0, max_seconds).value_or(fallback.count()));
    };
    c.downscale_stabilization_window =
        seconds("downscaleStabilizationWindowSeconds", c.downscale_stabilization_window);
    c.cpu_initialization_period =
        seconds("cpuInitializationPeriodSeconds", c.cpu_initialization_period);
    c.initial_readiness_delay = seconds("initialReadinessDelaySeconds", c.initial_readiness_delay);
}

// What a pod's start-up boost record must agree with, as the controller finds it: the first of
// `vpapluses` (VPAPlus objects of the namespace) with startupBoost aimed at the target, and the
// CPU of the pod template of `target` (the Deployment). Without both, no record is believed.
void decode_boost_authority(json_decoder& d, const json_node& root, const policy::autoscaler& hpa,
                            policy::boost_authority& out) {
    const core::object_reference& workload = hpa.spec.scale_target_ref;
    const json_node vpas = root["vpapluses"];
    for (std::size_t i = 0, size = d.array(vpas); i < size && d.ok(); ++i) {
        const json_node v = vpas.at(i);
        if (!d.object(v)) break;
        const auto record = kinds::decode_vpaplus_record(*v.value);
        if (record.invalid) {
            d.fail(v, *record.invalid);
            break;
        }
        if (out.vpaplus.empty() && record.v.boost && record.v.ns == hpa.namespace_ &&
            record.v.target.kind == workload.kind && record.v.target.name == workload.name)
            out.vpaplus = record.v.name;
    }
    const json_node target = root["target"];
    if (out.vpaplus.empty() || !target.present() || !target.value->IsObject()) {
        out.vpaplus.clear();
        return;
    }
    if (const auto cpu = kinds::scale_from_deployment(*target.value).template_cpu)
        out.containers = *cpu;
    else
        out.vpaplus.clear();
}

// The authority as the controller found it (what /debug/objects writes).
void decode_given_authority(json_decoder& d, const json_node& n, policy::boost_authority& out) {
    if (!d.object(n)) return;
    d.known_fields(n, {"vpaplus", "containers"});
    out.vpaplus = d.opt_string(n["vpaplus"]).value_or("");
    const json_node containers = n["containers"];
    for (std::size_t i = 0, size = d.array(containers); i < size; ++i) {
        const json_node c = containers.at(i);
        d.known_fields(c, {"name", "cpu", "cpuLimit"});
        auto milli = [&](const json_node& q) {
            const auto v = d.opt_quantity(q);
            return v ? std::optional(v->milli_value()) : std::nullopt;
        };
        out.containers.push_back({d.string(c["name"]), milli(c["cpu"]), milli(c["cpuLimit"])});
    }
}

// HPAPlus: the floor a CronHPA holds (its latest fired job's targetSize).
std::optional<policy::cron_floor> decode_cron_floor(json_decoder& d, const json_node& n) {
    if (!n.present() || !d.object(n)) return std::nullopt;
    d.known_fields(n, {"replicas", "cronHPA", "job", "since"});
    if (!n["replicas"].present()) d.fail(n["replicas"], "required field is missing");
    return policy::cron_floor{
        d.opt_int32(n["replicas"], 0).value_or(0), d.opt_string(n["cronHPA"]).value_or(""),
        d.opt_string(n["job"]).value_or(""), d.opt_time(n["since"]).value_or(core::time_point{})};
}

// What the controller decided from this input (its /debug/objects answer), to compare with.
std::optional<kinds::decided_outcome> decode_decided(json_decoder& d, const json_node& n) {
    if (!n.present() || !d.object(n)) return std::nullopt;
    d.known_fields(n, {"currentReplicas", "desiredReplicas", "scaleUpdated", "error"});
    kinds::decided_outcome out;
    out.current_replicas = d.opt_int32(n["currentReplicas"], 0).value_or(0);
    out.desired_replicas = d.opt_int32(n["desiredReplicas"], 0).value_or(0);
    out.scale_updated = d.opt_bool(n["scaleUpdated"]).value_or(false);
    out.error = d.opt_string(n["error"]);
    return out;
}

void decode_history(json_decoder& d, const json_node& n, policy::history& h) {
    if (!d.object(n)) return; // absent: a first reconcile, which starts the log
    h.started = true;         // present: the controller's log, even with no recommendations
    d.known_fields(n, {"recommendations", "scaleUpEvents", "scaleDownEvents", "lastKnownGood",
                       "excludedPods", "ignoredBoosts", "countedUnreadyPods",
                       "predictionVoting"});
    h.prediction_voting = d.opt_bool(n["predictionVoting"]).value_or(false);
    const json_node recs = n["recommendations"];
    for (std::size_t i = 0, size = d.array(recs); i < size; ++i) {
        const json_node r = recs.at(i);
        d.known_fields(r, {"time", "replicas"});
        if (!r["time"].present()) d.fail(r["time"], "required field is missing");
        h.recommendations.push_back({d.opt_time(r["time"]).value_or(core::time_point{}),
                                     d.opt_int32(r["replicas"], 0).value_or(0)});
    }
    for (auto [key, list] : {std::pair{"scaleUpEvents", &h.scale_up_events},
                             std::pair{"scaleDownEvents", &h.scale_down_events}}) {
        const json_node events = n[key];
        for (std::size_t i = 0, size = d.array(events); i < size; ++i) {
            const json_node e = events.at(i);
            d.known_fields(e, {"time", "replicaChange"});
            if (!e["time"].present()) d.fail(e["time"], "required field is missing");
            list->push_back({d.opt_time(e["time"]).value_or(core::time_point{}),
                             d.opt_int32(e["replicaChange"], 0).value_or(0)});
        }
    }
    // The sets of pods the last Events named: podSelection's excluded pods, boost records ignored,
    // unready pods counted ("(replicas)" when the current replicas stood in).
    for (auto [key, lines] : {std::pair{"excludedPods", &h.excluded_pods},
                              std::pair{"ignoredBoosts", &h.ignored_boosts},
                              std::pair{"countedUnreadyPods", &h.counted_unready}}) {
        const json_node names = n[key];
        for (std::size_t i = 0, size = d.array(names); i < size; ++i)
            *lines += d.string(names.at(i)) + "\n";
    }
    const json_node good = n["lastKnownGood"];
    for (std::size_t i = 0, size = d.array(good); i < size; ++i) {
        const json_node g = good.at(i);
        d.known_fields(g, {"index", "time", "proposedReplicas"});
        h.last_known_good.push_back(
            {static_cast<std::size_t>(d.opt_int(g["index"], 0, 10000).value_or(0)),
             d.opt_time(g["time"]).value_or(core::time_point{}),
             d.opt_int32(g["proposedReplicas"], 0).value_or(0)});
    }
}

// The namespace's other autoscalers with the selectors of their targets (AmbiguousSelector).
void decode_peers(json_decoder& d, const json_node& list,
                  std::vector<policy::peer_autoscaler>& peers) {
    for (std::size_t i = 0, size = d.array(list); i < size; ++i) {
        const json_node p = list.at(i);
        d.known_fields(p, {"name", "selector"});
        for (const char* key : {"name", "selector"})
            if (!p[key].present()) d.fail(p[key], "required field is missing");
        const std::string selector = d.opt_string(p["selector"]).value_or("");
        auto parsed = core::parse_label_selector(selector);
        if (!parsed)
            d.fail(p["selector"], parsed.error().text);
        else
            peers.push_back({d.opt_string(p["name"]).value_or(""), std::move(*parsed)});
    }
}

// The MetricValueList for metric `index`: `#index` wins over the metric's name.
json_node metric_list(const json_node& lists, std::size_t index, const std::string& name) {
    json_node by_index = lists["#" + std::to_string(index)];
    return by_index.present() ? by_index : lists[name];
}

// A list given as a MetricValueList object (its items) or as a bare array.
json_node items_of(json_decoder& d, const json_node& list) {
    if (list.present() && list.value->IsObject()) {
        json_node items = list["items"];
        d.array(items);
        return items;
    }
    d.array(list);
    return list;
}

bool failing(const snapshot& s, std::string_view api, std::size_t index) {
    return s.failures.count(api) > 0 || s.failures.count(std::to_string(index)) > 0;
}

// What the Prometheus or monitor backend of metric `index` answered: `backendValues["index"]` is
// a number, an array of numbers, or an object of pod name → number.
metrics::backend_answer backend_answer_of(json_decoder& d, const json_node& all, const snapshot& s,
                                          std::size_t index) {
    metrics::backend_answer a;
    const std::string key = std::to_string(index);
    const json_node v = all[key];
    if (s.failures.count(key)) {
        a.kind = metrics::answer_kind::unavailable;
        a.error = unavailable;
        return a;
    }
    auto add = [&](const json_node& n, std::string pod) {
        if (auto x = d.opt_number(n)) a.values.push_back({std::move(pod), *x, {}});
    };
    if (v.present() && v.value->IsArray()) {
        for (std::size_t i = 0, size = d.array(v); i < size; ++i)
            add(v.at(i), "");
    } else if (v.present() && v.value->IsObject()) {
        for (const auto& m : v.value->GetObject())
            add(v[m.name.GetString()], m.name.GetString());
    } else if (v.present()) {
        add(v, "");
    }
    if (a.values.empty()) {
        a.kind = metrics::answer_kind::no_data;
        a.error = "backendValues has no values for metric " + key;
    }
    return a;
}

policy::metric_reading read_metric(json_decoder& d, const json_node& root, const snapshot& s,
                                   std::size_t index,
                                   const std::vector<core::pod_metrics>& pod_metrics,
                                   const core::label_selector* pod_selector) {
    const policy::metric_spec& spec = s.input.hpa.spec.metrics[index];
    const std::string& ns = s.input.hpa.namespace_;
    policy::metric_reading r;
    if (spec.type == policy::metric_source_type::formula) return r; // computed from the others
    if (!spec.backend.empty()) {
        const auto answer = backend_answer_of(d, root["backendValues"], s, index);
        metrics::set_backend_reading(answer, spec, spec.backend, "pod", s.input.now, r);
        return r;
    }
    switch (spec.type) {
    case policy::metric_source_type::resource:
    case policy::metric_source_type::container_resource: {
        if (failing(s, "resource", index)) {
            r.error = std::string("unable to fetch metrics from resource metrics API: ") +
                      unavailable + " (get pods.metrics.k8s.io)";
            break;
        }
        policy::set_samples(
            r, policy::samples_from_pod_metrics(pod_metrics, spec.resource_name, spec.container));
        break;
    }
    case policy::metric_source_type::pods:
    case policy::metric_source_type::object: {
        if (failing(s, "custom", index)) {
            r.error = std::string("unable to fetch metrics from custom metrics API: ") +
                      unavailable + " (get pods.custom.metrics.k8s.io)";
            break;
        }
        const json_node items =
            items_of(d, metric_list(root["customMetrics"], index, spec.metric.name));
        std::vector<kinds::custom_metric_item> decoded;
        for (std::size_t i = 0, size = d.array(items); i < size; ++i) {
            auto item = kinds::decode_custom_metric_item(d, items.at(i));
            if (!item.described_namespace.empty() && item.described_namespace != ns) continue;
            decoded.push_back(std::move(item));
        }
        if (spec.type == policy::metric_source_type::pods) {
            const auto held =
                std::make_shared<const std::vector<kinds::custom_metric_item>>(std::move(decoded));
            policy::sample_set samples;
            for (const auto& item : *held) {
                // A pod we know must match the target's selector, as the server would select it.
                const auto pod =
                    std::find_if(s.pods.begin(), s.pods.end(), [&](const policy::pod_info& p) {
                        return p.name == item.described_object.name && p.namespace_() == ns;
                    });
                if (pod != s.pods.end() && pod_selector && !pod_selector->matches(pod->labels))
                    continue;
                samples.push_back(
                    {item.described_object.name, item.milli, item.timestamp, item.window});
            }
            policy::set_samples(r, policy::samples_from_custom_metrics(std::move(samples)));
            r.names = held;
        } else {
            std::vector<const kinds::custom_metric_item*> matching;
            for (const auto& item : decoded) {
                if (item.described_object.name.empty() ||
                    item.described_object.name == spec.described_object.name)
                    matching.push_back(&item);
            }
            if (matching.size() == 1) {
                r.object_value = matching.front()->milli;
                policy::note_sample_time(r, matching.front()->timestamp);
            } else {
                r.error = "unable to fetch metrics from custom metrics API: the custom metrics API "
                          "server returned " +
                          std::to_string(matching.size()) +
                          " results when we asked for exactly one";
            }
        }
        break;
    }
    case policy::metric_source_type::external: {
        if (failing(s, "external", index)) {
            r.error = std::string("unable to fetch metrics from external metrics API: ") +
                      unavailable + " (get " + spec.metric.name + ".external.metrics.k8s.io)";
            break;
        }
        core::label_selector metric_selector;
        if (spec.metric.selector)
            metric_selector = core::to_label_selector(*spec.metric.selector).value();
        const json_node items =
            items_of(d, metric_list(root["externalMetrics"], index, spec.metric.name));
        for (std::size_t i = 0, size = d.array(items); i < size; ++i) {
            const auto item = kinds::decode_external_metric_item(d, items.at(i));
            if (!item.metric_name.empty() && item.metric_name != spec.metric.name) continue;
            if (!metric_selector.matches(item.labels)) continue;
            r.external_values.push_back(item.milli);
            policy::note_sample_time(r, item.timestamp);
        }
        if (r.external_values.empty()) r.error = "no metrics returned from external metrics API";
        break;
    }
    case policy::metric_source_type::formula:
        break;
    }
    return r;
}

std::optional<kube::json_error> decode_document(const rapidjson::Document& doc,
                                                core::time_point default_now, snapshot& s) {
    json_decoder d;
    const json_node root{&doc, ""};
    if (!doc.IsObject()) return kube::json_error{"", "the input must be a JSON object"};
    d.known_fields(root,
                   {"now",           "config",           "hpa",           "scale",
                    "pods",          "podMetrics",       "customMetrics", "externalMetrics",
                    "backendValues", "failures",         "history",       "recommendation",
                    "target",        "otherAutoscalers", "replicaSets",   "forecast",
                    "vpapluses",     "rollout",          "cronFloor",     "startupBoostAuthority",
                    "decided"});
    if (root["backendValues"].present()) d.object(root["backendValues"]);
    auto& in = s.input;
    in.now = d.opt_time(root["now"]).value_or(default_now);
    if (d.ok() && !core::decidable(in.now))
        d.fail(root["now"],
               "outside the times a decision can be taken at (" + core::decidable_span() + ")");
    decode_config(d, root["config"], in.config);
    if (!root["hpa"].present()) d.fail(root["hpa"], "required field is missing");
    in.hpa = kinds::decode_autoscaler(d, root["hpa"]);
    if (!d.ok()) return d.error();
    if (kinds::is_hpaplus(root["hpa"])) in.config.scale_to_zero = true;

    policy::apply_defaults(in.hpa.spec);
    if (auto errors = policy::validate(in.hpa.spec); !errors.empty())
        return kube::json_error{"hpa." + errors.front().field, errors.front().message};

    const json_node failures = root["failures"];
    for (std::size_t i = 0, size = d.array(failures); i < size; ++i) {
        const json_node f = failures.at(i);
        const std::string name = d.opt_string(f).value_or("");
        const bool is_index = !name.empty() && std::all_of(name.begin(), name.end(), ::isdigit) &&
                              name.size() < 6 && std::stoul(name) < in.hpa.spec.metrics.size();
        if (!is_index && name != "resource" && name != "custom" && name != "external" &&
            name != "getScale" && name != "updateScale")
            d.fail(f, "must be resource, custom, external, getScale, updateScale or a spec.metrics "
                      "index; got \"" +
                          name + "\"");
        s.failures.insert(name);
    }
    const auto& ref = in.hpa.spec.scale_target_ref;
    if (s.failures.count("updateScale"))
        s.scale_write_error =
            std::string(unavailable) + " (put " + target_resource(ref) + " " + ref.name + ")";
    if (s.failures.count("getScale")) {
        in.scale_error =
            std::string(unavailable) + " (get " + target_resource(ref) + " " + ref.name + ")";
    } else if (root["scale"].present()) {
        in.scale = kinds::decode_scale(d, root["scale"]);
    } else {
        in.scale_error = "no scale subresource was given (the input has no \"scale\")";
    }

    const json_node pods = root["pods"];
    for (std::size_t i = 0, size = d.array(pods); i < size; ++i)
        s.pods.push_back(kinds::decode_pod(d, pods.at(i)));
    for (const auto& p : s.pods)
        in.pods.push_back(&p);
    // podSelection OwnerReferences: the ReplicaSets between the pods and their Deployments, as
    // `kubectl get rs -o json` lists them (their name and controller are read).
    const json_node replica_sets = root["replicaSets"];
    for (std::size_t i = 0, size = d.array(replica_sets); i < size; ++i) {
        const json_node meta = replica_sets.at(i)["metadata"];
        policy::controller_link link{{"ReplicaSet", d.string(meta["name"]), "apps/v1"},
                                     kinds::decode_controller(d, meta)};
        if (!link.controller.kind.empty()) in.controllers.push_back(std::move(link));
    }

    std::optional<core::label_selector> pod_selector;
    if (in.scale) {
        if (auto parsed = core::parse_label_selector(in.scale->selector))
            pod_selector = std::move(*parsed);
    }
    // Shared with the readings: their samples view the pods' names in it.
    const auto pod_metrics = std::make_shared<std::vector<core::pod_metrics>>();
    const json_node pm = items_of(d, root["podMetrics"]);
    for (std::size_t i = 0, size = d.array(pm); i < size; ++i) {
        auto m = kinds::decode_pod_metrics(d, pm.at(i));
        if (m.namespace_ != in.hpa.namespace_) continue;
        // metrics-server copies pod labels into PodMetrics; without them, use the pod's own labels.
        const core::label_map* labels = &m.labels;
        if (m.labels.empty()) {
            const auto pod = std::find_if(s.pods.begin(), s.pods.end(), [&](auto& p) {
                return p.name == m.name && p.namespace_() == m.namespace_;
            });
            if (pod != s.pods.end()) labels = &pod->labels;
        }
        if (pod_selector && !pod_selector->matches(*labels)) continue;
        pod_metrics->push_back(std::move(m));
    }
    for (const char* key : {"customMetrics", "externalMetrics"}) {
        if (root[key].present()) d.object(root[key]);
    }
    if (!d.ok()) return d.error();

    for (std::size_t i = 0; i < in.hpa.spec.metrics.size(); ++i)
        in.readings.push_back(
            read_metric(d, root, s, i, *pod_metrics, pod_selector ? &*pod_selector : nullptr));
    for (auto& r : in.readings)
        if (!r.samples.empty() && !r.names) r.names = pod_metrics;

    decode_history(d, root["history"], in.hist);
    decode_peers(d, root["otherAutoscalers"], in.peers);
    in.recommendation_override = d.opt_int32(root["recommendation"], 0);
    // spec.prediction: the forecast of its metric, or why there is none.
    if (const json_node f = root["forecast"]; f.present() && d.object(f)) {
        d.known_fields(f, {"value", "reason", "message", "period", "nextPeak"});
        in.prediction.value = d.opt_number(f["value"]);
        in.prediction.why = d.opt_string(f["reason"]).value_or("");
        in.prediction.message = d.opt_string(f["message"]).value_or("");
        in.prediction.period = d.opt_duration(f["period"]);
        in.prediction.next_peak = d.opt_time(f["nextPeak"]);
    }
    if (root["target"].present())
        in.rollout = policy::assess_rollout(kinds::decode_rollout_status(d, root["target"]));
    if (const json_node r = root["rollout"]; r.present() && d.object(r)) {
        d.known_fields(r, {"inProgress", "message"});
        in.rollout = policy::rollout_state{d.opt_bool(r["inProgress"]).value_or(false),
                                           d.opt_string(r["message"]).value_or("")};
    }
    in.floor = decode_cron_floor(d, root["cronFloor"]);
    if (root["startupBoostAuthority"].present())
        decode_given_authority(d, root["startupBoostAuthority"], s.boosts);
    else
        decode_boost_authority(d, root, in.hpa, s.boosts);
    in.boosts = &s.boosts;
    s.decided = decode_decided(d, root["decided"]);
    if (!d.ok()) return d.error();
    return std::nullopt;
}

} // namespace

std::optional<std::string> decode_snapshot(std::string_view input, core::time_point default_now,
                                           snapshot& s) {
    rapidjson::Document doc;
    if (auto err = kube::parse_json(doc, input, "")) return err->message;
    if (auto err = decode_document(doc, default_now, s)) return err->to_string();
    return std::nullopt;
}

} // namespace hpaplus::cli
