// controller/vpaplus/runner.cpp — one pass of one VPAPlus, in order: its rooms (sampling,
// checkpoints, recommendation_status, pod_updates) called around the recommendation.
#include "controller/vpaplus/runner.hpp"

#include "controller/vpaplus/checkpoints.hpp"
#include "controller/vpaplus/pod_updates.hpp"
#include "controller/vpaplus/recommendation_status.hpp"
#include "controller/vpaplus/sampling.hpp"
#include "controller/vpaplus/startup_boost.hpp"
#include "core/kubernetes.hpp"
#include "kinds/api_group.hpp"
#include "kinds/records.hpp"
#include "kinds/scale_target.hpp"
#include "kube/resources.hpp"
#include "kube/status_writer.hpp"
#include "metrics/metrics_api.hpp"
#include "vertical/recommender/estimator.hpp"

#include <rapidjson/fwd.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace hpaplus::controller {

using kinds::target_view;
using kinds::vpaplus;
using kinds::vpaplus_status;
using kube::involved_object;

namespace {

namespace asio = boost::asio;
using core::condition_status;

std::vector<vertical::container_recommendation> recommend(const vpaplus& v, vertical_memory& m,
                                                          const horizontal_sharing& h,
                                                          core::time_point now,
                                                          double& confidence) {
    std::erase_if(m.history, [&](const auto& kv) { return kv.second.expired(now, m.config); });
    auto recommendations = vertical::recommend_containers(m.history, v.policies, m.config);
    confidence = vertical::lowest_confidence(m.history, recommendations, m.config);
    std::vector<vertical::container_recommendation> out;
    for (auto& r : recommendations) {
        if (h.leave_cpu) r.cpu = false;
        if (h.leave_memory) r.memory = false;
        if (r.cpu || r.memory) out.push_back(std::move(r));
    }
    return out;
}

// ConfigUnsupported: whether the update mode can do what it says here (Initial and Recreate set
// requests at pod creation, which takes the admission webhook).
void set_mode_condition(std::vector<core::condition>& conditions, const vpaplus& v, bool webhook,
                        core::time_point now) {
    const bool at_creation =
        v.mode == vertical::update_mode::initial || v.mode == vertical::update_mode::recreate;
    if (at_creation && !webhook)
        core::set_condition(
            conditions, "ConfigUnsupported", condition_status::true_, "NeedsAdmissionWebhook",
            std::string("updateMode ") + std::string(vertical::to_string(v.mode)) +
                " sets requests at pod creation, which needs the pod admission webhook "
                "(--vertical-webhook-listen): recommending only; InPlaceOrRecreate or InPlace "
                "update running pods",
            now);
    else
        core::set_condition(conditions, "ConfigUnsupported", condition_status::false_,
                            "TargetFound",
                            "target " + v.target.kind + "/" + v.target.name + " found", now);
}

// The cached pods the target's selector matches, and NoPodsMatched saying how many.
std::vector<vertical::pod_view> matched_pods(const vertical_env& env, const std::string& ns,
                                             const std::string& selector_text,
                                             std::vector<core::condition>& conditions,
                                             core::time_point now) {
    std::vector<vertical::pod_view> pods;
    if (const auto selector = core::parse_label_selector(selector_text)) {
        for (const auto& p : env.pods.select(ns, *selector))
            if (const auto* r = p->as<kinds::pod_record>(); r && r->view) pods.push_back(*r->view);
    }
    core::set_condition(conditions, "NoPodsMatched",
                        pods.empty() ? condition_status::true_ : condition_status::false_,
                        pods.empty() ? "NoPodsMatched" : "PodsMatched",
                        std::to_string(pods.size()) + " pods match the target's selector", now);
    return pods;
}

// What the horizontal autoscaler on the workload asks of it, in status and CoordinatedWithHPAPlus.
horizontal_sharing share_with_horizontal(const vertical_env& env, const vpaplus& v,
                                         vpaplus_status& status, core::time_point now) {
    horizontal_sharing h = env.sharing_of(v);
    status.shared_with = h.shared_with;
    if (h.shared_with.empty())
        core::remove_condition(status.conditions, "CoordinatedWithHPAPlus");
    else
        core::set_condition(status.conditions, "CoordinatedWithHPAPlus", condition_status::true_,
                            h.reason, h.message, now);
    return h;
}

} // namespace

asio::awaitable<vertical_outcome> run_vpaplus(vertical_env& env, const std::string& ns,
                                              const std::string& name, vertical_memory& memory) {
    vertical_outcome out;
    const auto object = env.vpapluses.find(ns, name);
    if (!object) {
        out.exists = false;
        co_return out;
    }
    if (env.caches_current && !env.caches_current()) co_return out; // behind: act on nothing
    const auto record = object->share<kinds::vpaplus_record>();
    if (!record) {
        out.error = "the cached " + object->key + " has no VPAPlus record";
        co_return out;
    }
    const vpaplus& v = record->v; // `record` keeps it alive across the waits below
    const rapidjson::Value* stored = record->stored_status.get();
    vpaplus_status status = record->status;
    status.observed_generation = v.generation;
    const auto now = core::wall_now();
    const involved_object involved{ns, name, v.uid, "VPAPlus", kinds::group_version, {}};
    auto& conditions = status.conditions;
    if (record->invalid) {
        out.error = "invalid spec: " + *record->invalid;
        core::set_condition(conditions, "ConfigUnsupported", condition_status::true_, "InvalidSpec",
                            *out.error, now);
        co_await write_status(env.client, kinds::resources::vpapluses, *object, stored,
                              encode_vpaplus_status(status));
        const core::event e{"Warning", "InvalidSpec", *out.error};
        co_await env.events.record(involved, e, now);
        co_return out;
    }
    const target_view target =
        co_await kinds::read_target(env.client, &env.deployments, ns, v.target, false);
    if (!target.scale) {
        out.error = "target " + v.target.kind + "/" + v.target.name + ": " + target.error;
        core::set_condition(conditions, "ConfigUnsupported", condition_status::true_,
                            "TargetUnreadable", *out.error, now);
        co_await write_status(env.client, kinds::resources::vpapluses, *object, stored,
                              encode_vpaplus_status(status));
        co_return out;
    }
    const bool webhook = !env.options.webhook_listen.empty();
    set_mode_condition(conditions, v, webhook, now);
    std::vector<vertical::pod_view> pods =
        matched_pods(env, ns, target.scale->selector, conditions, now);
    if (!memory.checkpoints_loaded) co_await load_checkpoints(env, v, memory);
    if (env.history && !memory.history_loaded) co_await seed_history(env, v, memory, status, now);
    forget_gone(memory, pods);
    if (!pods.empty()) {
        const auto answer = co_await metrics::list_pod_metrics(
            env.client, ns, target.scale->selector, env.pod_metrics);
        if (!answer.error.empty()) out.error = "metrics: " + answer.error;
        add_samples(memory, pods, answer, env.recorder, object->key);
    }

    const horizontal_sharing h = share_with_horizontal(env, v, status, now);
    double confidence = 0;
    status.recommendations = recommend(v, memory, h, now, confidence);
    set_recommendation_conditions(conditions, status.recommendations, !memory.history.empty(),
                                  confidence, now);

    pass ps{env, v, memory, status, involved, now, out, object->key};
    const bool updates = v.mode == vertical::update_mode::in_place_or_recreate ||
                         v.mode == vertical::update_mode::in_place ||
                         (v.mode == vertical::update_mode::recreate && webhook);
    // The boost first: update_pods leaves pods whose boost is in force to it.
    status.boosted_pods = 0;
    const bool boosts_in_force =
        std::any_of(pods.begin(), pods.end(),
                    [](const vertical::pod_view& p) { return p.boost && !p.boost->ended; });
    if (v.boost || boosts_in_force)
        status.boosted_pods = co_await run_startup_boost(ps, pods, status.recommendations,
                                                         target.scale->spec_replicas, updates);
    if (updates && !status.recommendations.empty())
        co_await update_pods(ps, pods, status.recommendations, target.scale->spec_replicas);
    const bool written = co_await write_status(env.client, kinds::resources::vpapluses, *object,
                                               stored, encode_vpaplus_status(status));
    if (written && env.recorder) env.recorder->recommended(object->key, now);
    co_await write_checkpoints(env, v, memory, now, object->key);
    co_return out;
}

} // namespace hpaplus::controller
