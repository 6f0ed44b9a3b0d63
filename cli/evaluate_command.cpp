// cli/evaluate_command.cpp — `hpaplus evaluate`: decode a snapshot, run policy::decide and
// policy::finish exactly as the controller does, and print the decision record.
#include "cli/evaluate_command.hpp"

#include "kube/decode.hpp"
#include "kube/encode.hpp"
#include "kube/json_decoder.hpp"
#include "metrics/backend_reading.hpp"
#include "policy/decision.hpp"
#include "policy/defaults.hpp"
#include "policy/metric_samples.hpp"
#include "policy/validation.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <set>

namespace hpaplus::cli {
namespace {

using kube::json_decoder;
using kube::json_node;
using rapidjson::Value;

constexpr std::size_t max_input_bytes = 64u << 20;
constexpr std::int64_t max_seconds = 365LL * 24 * 3600;

const char* const unavailable = "the server is currently unable to handle the request";

// The snapshot, decoded.
struct snapshot {
    policy::reconcile_input input;
    std::vector<policy::pod_info> pods; // owns what input.pods points to
    std::set<std::string, std::less<>> failures;
    bool update_scale_fails = false;
};

// `deployments.apps` for error texts that name the target resource like the API server does.
std::string target_resource(const policy::object_reference& ref) {
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
                       "scaleUpLimitFactor", "scaleUpLimitMinimum"});
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

void decode_history(json_decoder& d, const json_node& n, policy::history& h) {
    if (!d.object(n)) return;
    d.known_fields(n, {"recommendations", "scaleUpEvents", "scaleDownEvents", "lastKnownGood"});
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
                                   const std::vector<policy::pod_metrics>& pod_metrics,
                                   const core::label_selector* pod_selector) {
    const policy::metric_spec& spec = s.input.hpa.spec.metrics[index];
    const std::string& ns = s.input.hpa.namespace_;
    policy::metric_reading r;
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
        std::vector<kube::custom_metric_item> decoded;
        for (std::size_t i = 0, size = d.array(items); i < size; ++i) {
            auto item = kube::decode_custom_metric_item(d, items.at(i));
            if (!item.described_namespace.empty() && item.described_namespace != ns) continue;
            decoded.push_back(std::move(item));
        }
        if (spec.type == policy::metric_source_type::pods) {
            policy::sample_set samples;
            for (auto& item : decoded) {
                // A pod we know must match the target's selector, as the server would select it.
                const auto pod =
                    std::find_if(s.pods.begin(), s.pods.end(), [&](const policy::pod_info& p) {
                        return p.name == item.described_object.name && p.namespace_ == ns;
                    });
                if (pod != s.pods.end() && pod_selector && !pod_selector->matches(pod->labels))
                    continue;
                samples.push_back(
                    {item.described_object.name, item.milli, item.timestamp, item.window});
            }
            policy::set_samples(r, policy::samples_from_custom_metrics(std::move(samples)));
        } else {
            std::vector<const kube::custom_metric_item*> matching;
            for (const auto& item : decoded) {
                if (item.described_object.name.empty() ||
                    item.described_object.name == spec.described_object.name)
                    matching.push_back(&item);
            }
            if (matching.size() == 1) {
                r.object_value = matching.front()->milli;
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
            const auto item = kube::decode_external_metric_item(d, items.at(i));
            if (!item.metric_name.empty() && item.metric_name != spec.metric.name) continue;
            if (!metric_selector.matches(item.labels)) continue;
            r.external_values.push_back(item.milli);
        }
        if (r.external_values.empty()) r.error = "no metrics returned from external metrics API";
        break;
    }
    }
    return r;
}

std::optional<kube::json_error> decode_snapshot(const rapidjson::Document& doc,
                                                core::time_point default_now, snapshot& s) {
    json_decoder d;
    const json_node root{&doc, ""};
    if (!doc.IsObject()) return kube::json_error{"", "the input must be a JSON object"};
    d.known_fields(root, {"now", "config", "hpa", "scale", "pods", "podMetrics", "customMetrics",
                          "externalMetrics", "backendValues", "failures", "history",
                          "recommendation", "target"});
    if (root["backendValues"].present()) d.object(root["backendValues"]);
    auto& in = s.input;
    in.now = d.opt_time(root["now"]).value_or(default_now);
    decode_config(d, root["config"], in.config);
    if (!root["hpa"].present()) d.fail(root["hpa"], "required field is missing");
    in.hpa = kube::decode_autoscaler(d, root["hpa"]);
    if (!d.ok()) return d.error();

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
    s.update_scale_fails = s.failures.count("updateScale") > 0;

    const auto& ref = in.hpa.spec.scale_target_ref;
    if (s.failures.count("getScale")) {
        in.scale_error =
            std::string(unavailable) + " (get " + target_resource(ref) + " " + ref.name + ")";
    } else if (root["scale"].present()) {
        in.scale = kube::decode_scale(d, root["scale"]);
    } else {
        in.scale_error = "no scale subresource was given (the input has no \"scale\")";
    }

    const json_node pods = root["pods"];
    for (std::size_t i = 0, size = d.array(pods); i < size; ++i)
        s.pods.push_back(kube::decode_pod(d, pods.at(i)));
    for (const auto& p : s.pods)
        in.pods.push_back(&p);

    std::optional<core::label_selector> pod_selector;
    if (in.scale) {
        if (auto parsed = core::parse_label_selector(in.scale->selector))
            pod_selector = std::move(*parsed);
    }
    std::vector<policy::pod_metrics> pod_metrics;
    const json_node pm = items_of(d, root["podMetrics"]);
    for (std::size_t i = 0, size = d.array(pm); i < size; ++i) {
        auto m = kube::decode_pod_metrics(d, pm.at(i));
        if (m.namespace_ != in.hpa.namespace_) continue;
        // metrics-server copies pod labels into PodMetrics; without them, use the pod's own labels.
        const core::label_map* labels = &m.labels;
        if (m.labels.empty()) {
            const auto pod = std::find_if(s.pods.begin(), s.pods.end(), [&](auto& p) {
                return p.name == m.name && p.namespace_ == m.namespace_;
            });
            if (pod != s.pods.end()) labels = &pod->labels;
        }
        if (pod_selector && !pod_selector->matches(*labels)) continue;
        pod_metrics.push_back(std::move(m));
    }
    for (const char* key : {"customMetrics", "externalMetrics"}) {
        if (root[key].present()) d.object(root[key]);
    }
    if (!d.ok()) return d.error();

    for (std::size_t i = 0; i < in.hpa.spec.metrics.size(); ++i)
        in.readings.push_back(
            read_metric(d, root, s, i, pod_metrics, pod_selector ? &*pod_selector : nullptr));

    decode_history(d, root["history"], in.hist);
    in.recommendation_override = d.opt_int32(root["recommendation"], 0);
    if (root["target"].present())
        in.rollout = policy::assess_rollout(kube::decode_rollout_status(d, root["target"]));
    if (!d.ok()) return d.error();
    return std::nullopt;
}

Value optional_int(const std::optional<std::int32_t>& v) {
    return v ? Value(*v) : Value(rapidjson::kNullType);
}

Value optional_string(const std::optional<std::string>& v, kube::json_allocator& a) {
    return v ? kube::json_string(*v, a) : Value(rapidjson::kNullType);
}

Value encode_history(const policy::history& h, kube::json_allocator& a) {
    Value out(rapidjson::kObjectType);
    Value recs(rapidjson::kArrayType);
    for (const auto& r : h.recommendations) {
        Value v(rapidjson::kObjectType);
        v.AddMember("time", kube::json_string(core::format_rfc3339_nano(r.time), a), a);
        v.AddMember("replicas", r.replicas, a);
        recs.PushBack(v, a);
    }
    out.AddMember("recommendations", recs, a);
    for (auto [key, list] : {std::pair{"scaleUpEvents", &h.scale_up_events},
                             std::pair{"scaleDownEvents", &h.scale_down_events}}) {
        Value events(rapidjson::kArrayType);
        for (const auto& e : *list) {
            Value v(rapidjson::kObjectType);
            v.AddMember("time", kube::json_string(core::format_rfc3339_nano(e.time), a), a);
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
            v.AddMember("time", kube::json_string(core::format_rfc3339_nano(g.time), a), a);
            v.AddMember("proposedReplicas", g.replicas, a);
            good.PushBack(v, a);
        }
        out.AddMember("lastKnownGood", good, a);
    }
    return out;
}

std::string encode_decision(const policy::decision& dec) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("currentReplicas", dec.current_replicas, a);
    doc.AddMember("desiredReplicas", dec.desired_replicas, a);
    doc.AddMember("scaleUpdated", dec.scale_updated, a);
    doc.AddMember("error", optional_string(dec.error, a), a);
    doc.AddMember("reason",
                  dec.rescale_reason.empty() ? Value(rapidjson::kNullType)
                                             : kube::json_string(dec.rescale_reason, a),
                  a);
    if (dec.dry_run_rescale) doc.AddMember("dryRunReplicas", dec.target_replicas, a);

    Value metrics(rapidjson::kArrayType);
    for (const auto& m : dec.metrics) {
        Value v(rapidjson::kObjectType);
        v.AddMember("index", static_cast<std::uint64_t>(m.index), a);
        v.AddMember("type", Value(policy::to_string(m.type), a), a);
        v.AddMember("proposedReplicas", optional_int(m.proposal), a);
        v.AddMember(
            "current",
            m.status ? kube::encode_metric_status(*m.status, a) : Value(rapidjson::kNullType), a);
        v.AddMember("error", optional_string(m.error, a), a);
        if (!m.fallback.empty()) v.AddMember("fallback", kube::json_string(m.fallback, a), a);
        metrics.PushBack(v, a);
    }
    doc.AddMember("metrics", metrics, a);

    Value stages(rapidjson::kObjectType);
    stages.AddMember("recommended", optional_int(dec.stages.recommended), a);
    stages.AddMember("stabilized", optional_int(dec.stages.stabilized), a);
    stages.AddMember("limited", optional_int(dec.stages.limited), a);
    stages.AddMember("limitReason",
                     dec.stages.limit_reason.empty()
                         ? Value(rapidjson::kNullType)
                         : kube::json_string(dec.stages.limit_reason, a),
                     a);
    if (dec.stages.gated) {
        stages.AddMember("gated", *dec.stages.gated, a);
        stages.AddMember("gateReason", kube::json_string(dec.stages.gate_reason, a), a);
    }
    doc.AddMember("stages", stages, a);
    doc.AddMember("conditions", kube::encode_conditions(dec.status.conditions, a), a);

    Value events(rapidjson::kArrayType);
    for (const auto& e : dec.events) {
        Value v(rapidjson::kObjectType);
        v.AddMember("type", kube::json_string(e.type, a), a);
        v.AddMember("reason", kube::json_string(e.reason, a), a);
        v.AddMember("message", kube::json_string(e.message, a), a);
        events.PushBack(v, a);
    }
    doc.AddMember("events", events, a);
    doc.AddMember("lastScaleTime",
                  dec.status.last_scale_time
                      ? kube::json_string(core::format_rfc3339(*dec.status.last_scale_time), a)
                      : Value(rapidjson::kNullType),
                  a);
    doc.AddMember("history", encode_history(dec.hist, a), a);

    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
    writer.SetIndent(' ', 2);
    doc.Accept(writer);
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

constexpr const char* evaluate_usage =
    "Usage: hpaplus evaluate FILE|-\n"
    "\n"
    "Runs one reconcile offline: reads a JSON snapshot of what the controller would read (an "
    "HPAPlus or\n"
    "autoscaling/v2 HorizontalPodAutoscaler, its scale, pods, pod metrics, custom/external metric "
    "values,\n"
    "failures to inject and the autoscaler's history) and prints the decision it would take, stage "
    "by\n"
    "stage. The same code runs in the controller. See docs/evaluate.md for the format.\n"
    "\n"
    "Exit codes: 0 decided, 2 bad usage or bad input (one line on stderr naming the field).\n";

} // namespace

evaluate_result evaluate_document(std::string_view input, core::time_point now) {
    rapidjson::Document doc;
    if (auto err = kube::parse_json(doc, input, "")) return {2, {}, err->message};
    snapshot s;
    if (auto err = decode_snapshot(doc, now, s)) return {2, {}, err->to_string()};
    policy::decision dec = policy::decide(s.input);
    std::optional<std::string> write_error;
    if (dec.rescale && s.update_scale_fails) {
        const auto& ref = s.input.hpa.spec.scale_target_ref;
        write_error =
            std::string(unavailable) + " (put " + target_resource(ref) + " " + ref.name + ")";
    }
    policy::finish(dec, s.input, write_error);
    return {0, encode_decision(dec), {}};
}

int run_evaluate(int argc, char** argv) {
    if (argc >= 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
        std::fputs(evaluate_usage, stdout);
        return 0;
    }
    if (argc != 2) {
        std::fputs(evaluate_usage, stderr);
        return 2;
    }
    const std::string_view path = argv[1];
    std::ifstream file;
    if (path != "-") {
        file.open(std::string(path), std::ios::binary);
        if (!file) {
            std::fprintf(stderr, "hpaplus evaluate: %s: cannot open the file\n", argv[1]);
            return 2;
        }
    }
    std::istream& in = path == "-" ? std::cin : file;
    // Read at most max_input_bytes + 1 so that an endless stream cannot exhaust memory.
    std::string text;
    char chunk[65536];
    while (in && text.size() <= max_input_bytes) {
        in.read(chunk, sizeof chunk);
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
    }
    if (text.size() > max_input_bytes) {
        std::fprintf(stderr, "hpaplus evaluate: %s: the input is larger than 64 MiB\n", argv[1]);
        return 2;
    }
    const auto now = core::wall_now();
    const evaluate_result result = evaluate_document(text, now);
    if (result.exit_code != 0) {
        std::fprintf(stderr, "hpaplus evaluate: %s: %s\n", argv[1], result.error.c_str());
        return result.exit_code;
    }
    std::fwrite(result.output.data(), 1, result.output.size(), stdout);
    return 0;
}

} // namespace hpaplus::cli
