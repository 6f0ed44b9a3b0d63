// controller/hpaplus/reconciler.cpp — one reconcile of one HPAPlus.
#include "controller/hpaplus/reconciler.hpp"

#include "controller/coordination.hpp"
#include "kube/api/cronhpa.hpp"
#include "kube/api/hpaplus_status.hpp"
#include "kube/decode.hpp"
#include "kube/resources.hpp"
#include "kube/scale_target.hpp"
#include "kube/status_writer.hpp"
#include "policy/decision.hpp"
#include "policy/defaults.hpp"
#include "policy/validation.hpp"
#include "vertical/runner.hpp"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

namespace hpaplus::controller {
namespace {

std::string uid_of(const rapidjson::Document& doc) {
    kube::json_decoder d;
    return d.opt_string(kube::json_node{&doc, ""}["metadata"]["uid"]).value_or("");
}

} // namespace

boost::asio::awaitable<reconcile_outcome> reconcile(reconcile_env& env, const std::string& ns,
                                                    const std::string& name,
                                                    object_memory& memory) {
    reconcile_outcome out;
    out.period = env.options.default_sync_period;
    const kube::object_cptr object = env.hpapluses.find(ns, name);
    if (!object) {
        out.exists = false;
        co_return out;
    }
    const core::time_point now = core::wall_now();
    rapidjson::Document doc;
    doc.Parse(object->json.data(), object->json.size());
    const kube::json_node root{&doc, ""};
    kube::json_decoder d;
    policy::reconcile_input in;
    in.hpa = kube::decode_autoscaler(d, root);
    const kube::involved_object involved{ns, name, uid_of(doc)};

    std::optional<std::string> invalid;
    if (!d.ok()) {
        invalid = d.error().to_string();
    } else {
        policy::apply_defaults(in.hpa.spec);
        if (auto errors = policy::validate(in.hpa.spec); !errors.empty())
            invalid = errors.front().field + ": " + errors.front().message;
    }
    if (in.hpa.spec.sync_period_seconds && *in.hpa.spec.sync_period_seconds > 0)
        out.period = std::chrono::seconds(*in.hpa.spec.sync_period_seconds);
    if (invalid) {
        out.valid = false;
        out.error = "invalid spec: " + *invalid;
        kube::json_decoder status_decoder;
        const auto current = kube::decode_autoscaler_status(status_decoder, root["status"]);
        const auto generation =
            status_decoder.opt_int(root["metadata"]["generation"], 0, INT64_MAX).value_or(0);
        const std::string status = kube::encode_invalid_status(current, generation, *invalid, now);
        out.status_written = co_await kube::write_status(env.client, kube::resources::hpapluses,
                                                         *object, doc, status);
        const policy::event e{"Warning", "InvalidSpec", *invalid};
        co_await env.events.record(involved, e, now);
        out.events = 1;
        co_return out;
    }

    const auto& ref = in.hpa.spec.scale_target_ref;
    out.target = ref.kind + "/" + ref.name;
    kube::target_view target =
        co_await kube::read_target(env.client, &env.deployments, ns, ref, false, &memory.target);
    memory.target = target;
    in.scale = target.scale;
    in.scale_error = target.error;
    in.rollout = target.rollout;
    in.config = env.options.policy;
    in.hist = memory.hist;
    in.now = now;
    if (env.cronhpas) in.floor = find_cron_floor(*env.cronhpas, ns, name, ref);
    if (in.scale) {
        // memory.pods keeps these pods alive until the next reconcile of this object.
        const auto& pods = env.pods.select(ns, in.scale->selector, memory.pods);
        in.pods.reserve(pods.size());
        for (const auto& p : pods)
            in.pods.push_back(p.get());
        if (auto selector = core::parse_label_selector(in.scale->selector);
            selector && !in.scale->selector.empty()) {
            env.selectors.put(ns, name, std::move(*selector));
            in.peers = env.selectors.peers_picking(ns, name, in.pods);
        }
    }
    if (policy::needs_metrics(in.hpa, in.scale, in.floor)) {
        const auto started = std::chrono::steady_clock::now();
        in.readings = co_await env.metrics.read(in.hpa, ref.name, in.scale->selector, in.pods);
        out.metrics_latency = std::chrono::steady_clock::now() - started;
    }

    policy::decision decision = policy::decide(in);
    std::optional<std::string> write_error;
    for (int attempt = 1; decision.rescale; ++attempt) {
        auto response = co_await kube::write_scale(env.client, ns, ref, decision.target_replicas,
                                                   target.resource_version);
        if (response) break;
        write_error = response.message();
        if (response.ec != kube::errc::conflict || attempt >= env.options.scale_write_attempts)
            break;
        // The target changed since we read it: decide again on what it is now.
        spdlog::info("{}: /scale conflict, deciding again on fresh data", object->key);
        target = co_await kube::read_target(env.client, &env.deployments, ns, ref, true);
        in.scale = target.scale;
        in.scale_error = target.error;
        write_error.reset();
        decision = policy::decide(in);
    }
    policy::finish(decision, in, write_error);
    memory.hist = decision.hist;
    if (env.vpapluses)
        note_vertical_use(*env.vpapluses, ns, in.hpa, decision.status.conditions, now);

    out.current_replicas = decision.current_replicas;
    out.desired_replicas = decision.desired_replicas;
    out.rescaled = decision.scale_updated;
    out.error = decision.error;
    const std::string status = kube::encode_status(in.hpa, decision);
    out.status_written =
        co_await kube::write_status(env.client, kube::resources::hpapluses, *object, doc, status);
    for (const auto& e : decision.events) {
        co_await env.events.record(involved, e, now);
        ++out.events;
    }
    if (decision.scale_updated)
        spdlog::info("{}: scaled {} from {} to {}: {}", object->key, out.target,
                     decision.current_replicas, decision.target_replicas, decision.rescale_reason);
    co_return out;
}

} // namespace hpaplus::controller
