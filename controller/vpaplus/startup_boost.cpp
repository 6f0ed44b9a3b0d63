// controller/vpaplus/startup_boost.cpp — boosting starting pods and ending their boosts, in place.
#include "controller/vpaplus/startup_boost.hpp"

#include "kinds/vpaplus.hpp"
#include "kube/resources.hpp"
#include "vertical/updater/boost.hpp"
#include "vertical/updater/pod.hpp"

#include <spdlog/spdlog.h>

namespace hpaplus::controller {
namespace {

namespace asio = boost::asio;

// Writes the pod's boost annotation. True when the PATCH is taken.
asio::awaitable<bool> annotate(pass& ps, const vertical::pod_view& p,
                               const vertical::boost_record& r) {
    auto answer = co_await kube::merge_patch(ps.env.client, kube::resources::pods, ps.v.ns, p.name,
                                             kinds::boost_annotation_patch(r), "", ps.key);
    if (!answer) {
        const core::event e{"Warning", "StartupBoostFailed",
                            "pod " + p.name +
                                ": the start-up boost annotation was refused: " + answer.message()};
        co_await ps.record(e);
        co_return false;
    }
    co_return true;
}

// The resources a boosted pod comes back to: its own from before the boost, or the current
// recommendation where the update mode applies one.
std::vector<vertical::container_resources>
after_boost(const vertical::pod_view& p,
            const std::vector<vertical::container_recommendation>& recs, bool updates) {
    auto to = vertical::unboosted(p.desired, *p.boost);
    if (updates && !recs.empty()) to = vertical::resized(to, vertical::for_pod(to, recs));
    return to;
}

} // namespace

asio::awaitable<std::int64_t>
run_startup_boost(pass& ps, const std::vector<vertical::pod_view>& pods,
                  const std::vector<vertical::container_recommendation>& recs,
                  std::int32_t configured, bool updates) {
    // Without spec.startupBoost (removed while pods were boosted) the boosts in force end at once
    // and none is given.
    const vertical::cpu_startup_boost boost = ps.v.boost.value_or(vertical::cpu_startup_boost{});
    vertical::group_state group = group_of(ps, pods, configured);
    std::int64_t boosted_pods = 0;
    for (const auto& p : pods) {
        if (p.deleting || p.pending || !p.controlled) continue;
        const auto a = ps.m.attempts.find(p.uid);
        const bool busy =
            a != ps.m.attempts.end() &&
            vertical::under_way(p, a->second.at, a->second.to, ps.now, ps.env.options);
        vertical::boost_step step =
            vertical::step_of(p.desired, p.boost, p.ready_since, boost, ps.now);
        if (step == vertical::boost_step::boost && !ps.v.boost) step = vertical::boost_step::none;
        if (step == vertical::boost_step::hold || (step == vertical::boost_step::unboost && busy))
            ++boosted_pods;
        if (busy || vertical::resizing(p)) continue; // one resize at a time
        switch (step) {
        case vertical::boost_step::none:
        case vertical::boost_step::hold:
            break;
        case vertical::boost_step::boost: {
            // The admission webhook boosts new pods as they are created; this is for pods it did
            // not see (no webhook configured, or the pod came first).
            vertical::boost_record r{ps.v.name, {}, false};
            const auto to = vertical::boosted(p.desired, boost, ps.v.policies, r);
            if (r.containers.empty()) break;
            // The annotation first: a boost the horizontal side cannot see would look like idle
            // pods to it.
            if (!co_await annotate(ps, p, r)) break;
            const resize_words words{"StartupBoost", "boosting the start-up cpu of pod", true};
            if (co_await ps.resize(p, to, words)) ++boosted_pods;
            break;
        }
        case vertical::boost_step::unboost: {
            if (!vertical::can_disrupt(group, ps.env.options.eviction_tolerance)) {
                ++boosted_pods; // its turn comes when the group allows
                break;
            }
            const resize_words words{"StartupBoostEnded", "ending the start-up boost of pod", true};
            if (!co_await ps.resize(p, after_boost(p, recs, updates), words)) {
                ++boosted_pods; // AEP-7862: a failed unboost never evicts; tried again next pass
                break;
            }
            ++group.in_flight;
            vertical::boost_record ended = *p.boost;
            ended.ended = true;
            co_await annotate(ps, p, ended);
            break;
        }
        case vertical::boost_step::mark_ended: {
            vertical::boost_record ended = *p.boost;
            ended.ended = true;
            if (co_await annotate(ps, p, ended))
                spdlog::info(
                    "{}/{}: pod {} no longer has its start-up boost (vertical::resized by another "
                    "writer); recorded as ended",
                    ps.v.ns, ps.v.name, p.name);
            break;
        }
        }
    }
    co_return boosted_pods;
}

} // namespace hpaplus::controller
