// controller/vpaplus/pod_updates.cpp — resizing and evicting the pods of one VPAPlus pass.
#include "controller/vpaplus/pod_updates.hpp"

#include "kinds/decode.hpp"
#include "kube/status_writer.hpp"
#include "vertical/updater/plan.hpp"
#include "vertical/updater/pod.hpp"

#include <spdlog/spdlog.h>

namespace hpaplus::controller {

namespace asio = boost::asio;

asio::awaitable<void> pass::record(const core::event& e) {
    co_await env.events.record(involved, e, now);
}

asio::awaitable<bool> pass::evict(const vertical::pod_view& p, const std::string& why) {
    auto r = co_await kube::evict_pod(env.client, v.ns, p.name, key);
    if (!r) {
        const core::event e{"Warning", "EvictionBlocked",
                            "pod " + p.name + " not evicted (" + why + "): " + r.message()};
        co_await record(e);
        co_return false;
    }
    m.evicted.insert(p.uid);
    m.attempts.erase(p.uid);
    ++status.evictions;
    ++out.evicted;
    const core::event e{"Normal", "EvictedByVPAPlus", "evicted pod " + p.name + ": " + why};
    co_await record(e);
    spdlog::info("{}/{}: evicted pod {}: {}", v.ns, v.name, p.name, why);
    co_return true;
}

asio::awaitable<bool> pass::resize(const vertical::pod_view& p,
                                   const std::vector<vertical::container_resources>& to,
                                   resize_words why) {
    const std::string patch = vertical::resize_patch(p, to);
    const std::string sub = "resize";
    auto r =
        co_await kube::json_patch(env.client, kube::resources::pods, v.ns, p.name, patch, sub, key);
    if (!r) {
        const core::event e{"Warning", "InPlaceResizeFailed",
                            "pods/" + p.name + "/resize refused: " + r.message()};
        co_await record(e);
        co_return false;
    }
    m.attempts[p.uid] = {now, to, why.no_eviction};
    ++status.in_place_resizes;
    ++out.resized;
    const std::string change = vertical::describe_change(p, to);
    const core::event e{"Normal", why.reason,
                        std::string(why.doing) + " " + p.name + " in place: " + change};
    co_await record(e);
    spdlog::info("{}/{}: {} {} in place: {}", v.ns, v.name, why.doing, p.name, change);
    co_return true;
}

vertical::group_state group_of(const pass& ps, const std::vector<vertical::pod_view>& pods,
                               std::int32_t configured) {
    vertical::group_state group;
    group.configured = configured;
    for (const auto& p : pods) {
        if (p.deleting) continue;
        if (!p.pending) ++group.running;
        const auto a = ps.m.attempts.find(p.uid);
        if (ps.m.evicted.count(p.uid) ||
            (a != ps.m.attempts.end() &&
             vertical::under_way(p, a->second.at, a->second.to, ps.now, ps.env.options)))
            ++group.in_flight;
    }
    return group;
}

asio::awaitable<void> update_pods(pass& ps, std::vector<vertical::pod_view>& pods,
                                  const std::vector<vertical::container_recommendation>& recs,
                                  std::int32_t configured) {
    const auto& o = ps.env.options;
    const auto mode = ps.v.mode;
    const bool recreate = mode == vertical::update_mode::recreate;
    const bool may_evict = mode == vertical::update_mode::in_place_or_recreate || recreate;
    const std::int32_t min_replicas = ps.v.min_replicas.value_or(o.min_replicas);
    const auto live = std::count_if(pods.begin(), pods.end(), [](auto& p) { return !p.deleting; });
    vertical::group_state group = group_of(ps, pods, configured);
    if (live < min_replicas) {
        spdlog::debug("{}/{}: {} live pods, fewer than minReplicas {}: no update", ps.v.ns,
                      ps.v.name, live, min_replicas);
        co_return;
    }
    // Resizes under way first: done, still waiting, or time to fall back.
    for (const auto& p : pods) {
        const auto it = ps.m.attempts.find(p.uid);
        if (it == ps.m.attempts.end() || p.deleting) continue;
        if (!vertical::under_way(p, it->second.at, it->second.to, ps.now, o)) {
            ps.m.attempts.erase(it);
            continue;
        }
        if (!vertical::resizing(p)) continue; // the cache has not seen the PATCH yet
        // A start-up boost's resize waits (and is ended by the boost's own step) instead.
        if (it->second.no_eviction) continue;
        const std::string why = vertical::fallback_reason(p, it->second.at, ps.now, o);
        if (why.empty()) continue;
        const bool infeasible = p.resize_pending == "Infeasible";
        // The node could not fit it; when the replacement asked for the same again (no admission
        // webhook, or the recommendation has not moved), evicting once more would loop.
        const bool evicted_before =
            infeasible && ps.m.evicted_infeasible.count(vertical::resources_key(it->second.to));
        if (may_evict && !evicted_before) {
            const vertical_memory::attempt asked = it->second;
            if (co_await ps.evict(p, why) && infeasible)
                ps.m.evicted_infeasible.insert(vertical::resources_key(asked.to));
            continue;
        }
        if (!infeasible) continue; // InPlace waits for Deferred and in-progress resizes
        // An Infeasible pod is asked again only when the recommendation has moved.
        const auto to = vertical::resized(p.desired, vertical::for_pod(p.desired, recs));
        if (to != it->second.to && vertical::qos_of(to) == vertical::qos_of(p.desired)) {
            co_await ps.resize(p, to);
        } else if (evicted_before) {
            const core::event e{"Warning", "ResizeInfeasible",
                                "pod " + p.name + ": " + why +
                                    " again after an eviction; waiting for the recommendation "
                                    "to change instead of evicting again"};
            co_await ps.record(e);
        }
    }
    struct candidate {
        const vertical::pod_view* pod;
        vertical::pod_priority priority;
    };
    std::vector<candidate> candidates;
    for (const auto& p : pods) {
        if (p.deleting || p.pending || !p.controlled || vertical::resizing(p) ||
            ps.m.evicted.count(p.uid) || ps.m.attempts.count(p.uid) || (p.boost && !p.boost->ended))
            continue; // (a start-up boost in force is ended by the boost's own step)
        const auto priority = vertical::priority_of(p.desired, vertical::for_pod(p.desired, recs));
        bool quick_oom = false;
        for (const auto& k : p.oom_kills)
            quick_oom = quick_oom || k.finished - k.started < o.quick_oom;
        if (vertical::wants_update(priority, p.start_time, quick_oom, ps.now, o))
            candidates.push_back({&p, priority});
    }
    // Pods that need more first, then the largest change.
    std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
        if (a.priority.scale_up != b.priority.scale_up) return a.priority.scale_up;
        return a.priority.resource_diff > b.priority.resource_diff;
    });
    for (const auto& c : candidates) {
        if (!vertical::can_disrupt(group, o.eviction_tolerance)) break;
        const vertical::pod_view& p = *c.pod;
        if (recreate) { // the admission webhook gives the replacement the recommendation
            const std::string why = "its requests are outside the recommended range or stale";
            if (co_await ps.evict(p, why)) ++group.in_flight;
            continue;
        }
        const auto to = vertical::resized(p.desired, vertical::for_pod(p.desired, recs));
        if (vertical::qos_of(to) != vertical::qos_of(p.desired)) {
            const core::event e{
                "Warning", "ResizeWouldChangeQoS",
                "pod " + p.name + " left as it is: the recommendation would make it " +
                    std::string(vertical::to_string(vertical::qos_of(to))) + " (it is " +
                    std::string(vertical::to_string(vertical::qos_of(p.desired))) + ")"};
            co_await ps.record(e);
            continue;
        }
        bool done = co_await ps.resize(p, to);
        if (!done && may_evict) {
            const std::string why = "in-place resize refused";
            done = co_await ps.evict(p, why);
        }
        if (done) ++group.in_flight;
    }
}

} // namespace hpaplus::controller
