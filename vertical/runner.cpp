// vertical/runner.cpp — sampling, recommending, resizing and evicting for one VPAPlus.
#include "vertical/runner.hpp"

#include "core/duration.hpp"
#include "core/kubernetes.hpp"
#include "kube/api/vpaplus.hpp"
#include "kube/decode.hpp"
#include "kube/resources.hpp"
#include "kube/scale_target.hpp"
#include "kube/status_writer.hpp"
#include "metrics/metrics_api.hpp"
#include "net/json_parse.hpp"
#include "vertical/history.hpp"
#include "vertical/recommendation_status.hpp"
#include "vertical/recommender/estimator.hpp"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace hpaplus::vertical {

using kube::decode_checkpoint_status;
using kube::decode_vertical_pod;
using kube::decode_vpaplus;
using kube::encode_checkpoint_status;
using kube::involved_object;
using kube::target_view;
using kube::vpaplus;
using kube::vpaplus_status;

namespace {

namespace asio = boost::asio;
using core::condition_status;
using vertical::container_resources;
using vertical::pod_view;

constexpr const char* api_version = "autoscaling.hpaplus.io/v1alpha1";

const container_resources* find_container(const std::vector<container_resources>& list,
                                          const std::string& name) {
    for (const auto& c : list)
        if (c.name == name) return &c;
    return nullptr;
}

// The requests in force: what the runtime reports (status) when it does, else the spec.
container_resources in_force(const pod_view& p, const std::string& container) {
    if (const auto* c = find_container(p.applied, container)) return *c;
    if (const auto* c = find_container(p.desired, container)) return *c;
    return {container, {}, {}, {}, {}};
}

// Feeds this pass's PodMetrics and new OOM kills into the history (and the record, when kept:
// `vpa` names the VPAPlus there).
void add_samples(vertical_memory& m, const std::vector<pod_view>& pods,
                 const metrics::pod_metrics_answer& answer, sample_recorder* record,
                 const std::string& vpa) {
    std::map<std::string, const pod_view*, std::less<>> by_name;
    for (const auto& p : pods)
        by_name.emplace(p.name, &p);
    for (const auto* listed : answer.items) {
        const core::pod_metrics& item = *listed;
        const auto it = by_name.find(item.name);
        if (it == by_name.end()) continue;
        const pod_view& pod = *it->second;
        for (const auto& c : item.containers) {
            auto& history = m.history.try_emplace(c.name, m.config).first->second;
            auto& window = m.windows[pod.uid + "/" + c.name];
            // As upstream's metrics client: MilliValue() and Value(), both rounded up.
            std::optional<std::int64_t> cpu, memory;
            if (const auto* q = core::find_resource(c.usage, "cpu")) cpu = q->milli_value();
            if (const auto* q = core::find_resource(c.usage, "memory")) memory = q->value();
            if (cpu) window.add_cpu(history, *cpu, item.timestamp);
            if (memory) window.add_memory(history, *memory, item.timestamp, m.config);
            if (record) record->sample(vpa, item.timestamp, pod.name, c.name, cpu, memory);
        }
    }
    for (const auto& pod : pods) {
        for (const auto& oom : pod.oom_kills) {
            const std::string key = pod.uid + "/" + oom.container + "/" +
                                    std::to_string(oom.finished.time_since_epoch().count());
            if (!m.ooms_seen.insert(key).second) continue;
            auto& history = m.history.try_emplace(oom.container, m.config).first->second;
            const auto request = in_force(pod, oom.container).memory_request_bytes.value_or(0);
            m.windows[pod.uid + "/" + oom.container].record_oom(history, request, oom.finished,
                                                                m.config);
            if (record) record->oom(vpa, oom.finished, pod.name, oom.container, request);
        }
    }
}

// Forgets what belonged to pods that are gone.
void forget_gone(vertical_memory& m, const std::vector<pod_view>& pods) {
    std::set<std::string> alive;
    for (const auto& p : pods)
        alive.insert(p.uid);
    const auto uid_of = [](const std::string& key) { return key.substr(0, key.find('/')); };
    std::erase_if(m.windows, [&](const auto& kv) { return !alive.count(uid_of(kv.first)); });
    std::erase_if(m.ooms_seen, [&](const auto& k) { return !alive.count(uid_of(k)); });
    std::erase_if(m.attempts, [&](const auto& kv) { return !alive.count(kv.first); });
    std::erase_if(m.evicted, [&](const auto& uid) { return !alive.count(uid); });
}

std::vector<vertical::container_recommendation> recommend(const vpaplus& v, vertical_memory& m,
                                                          const horizontal_use& h,
                                                          core::time_point now,
                                                          double& confidence) {
    std::erase_if(m.history, [&](const auto& kv) { return kv.second.expired(now, m.config); });
    auto recommendations = vertical::recommend_containers(m.history, v.policies, m.config);
    confidence = vertical::lowest_confidence(m.history, recommendations, m.config);
    std::vector<vertical::container_recommendation> out;
    for (auto& r : recommendations) {
        if (h.cpu && !v.share_cpu) r.cpu = false;
        if (h.memory && !v.share_memory) r.memory = false;
        if (r.cpu || r.memory) out.push_back(std::move(r));
    }
    return out;
}

// A VPAPlus without checkpoints starts from Prometheus' history (once per worker); the
// HistoryLoaded condition says what came of it.
asio::awaitable<void> seed_history(vertical_env& env, const vpaplus& v, vertical_memory& m,
                                   vpaplus_status& status, core::time_point now) {
    m.history_loaded = true;
    const auto& o = env.options;
    if (!m.history.empty()) {
        core::set_condition(status.conditions, "HistoryLoaded", condition_status::false_,
                            "FromCheckpoints",
                            "history restored from checkpoints; Prometheus not read", now);
        co_return;
    }
    const auto loaded = co_await load_history(*env.history, v.ns, v.target.name, o, m, now);
    const std::string from = "backend " + o.history_backend + " (the last " +
                             core::format_go_duration(o.history_length) + ", one point per " +
                             core::format_go_duration(o.history_resolution) + ")";
    if (!loaded.error.empty()) {
        spdlog::warn("{}/{}: no history from Prometheus: {}", v.ns, v.name, loaded.error);
        core::set_condition(status.conditions, "HistoryLoaded", condition_status::false_,
                            "PrometheusUnavailable",
                            loaded.error + "; recommending from the metrics API only", now);
        co_return;
    }
    const std::string what = std::to_string(loaded.cpu_samples) + " cpu and " +
                             std::to_string(loaded.memory_samples) + " memory samples of " +
                             std::to_string(loaded.containers) + " containers from " + from;
    spdlog::info("{}/{}: history: {}", v.ns, v.name, what);
    core::set_condition(status.conditions, "HistoryLoaded", condition_status::true_,
                        "PrometheusHistory", what, now);
}

std::string checkpoint_name(const std::string& vpa, const std::string& container) {
    return vpa + "-" + container;
}

asio::awaitable<void> load_checkpoints(vertical_env& env, const vpaplus& v, vertical_memory& m) {
    m.checkpoints_loaded = true;
    auto response = co_await kube::list(env.client, kube::resources::vpapluscheckpoints, v.ns);
    if (!response) {
        spdlog::warn("{}/{}: checkpoints not read: {}", v.ns, v.name, response.message());
        co_return;
    }
    rapidjson::Document doc;
    if (auto why = net::parse_json(doc, response.body); !why.empty()) {
        spdlog::warn("{}/{}: checkpoints not read: {}", v.ns, v.name, why);
        co_return;
    }
    kube::json_decoder d;
    const kube::json_node items = kube::json_node{&doc, ""}["items"];
    for (std::size_t i = 0, size = d.array(items); i < size; ++i) {
        const auto item = items.at(i);
        if (d.opt_string(item["spec"]["vpaObjectName"]).value_or("") != v.name) continue;
        const std::string container = d.opt_string(item["spec"]["containerName"]).value_or("");
        const auto c = decode_checkpoint_status(item["status"]);
        m.checkpoints_created.insert(checkpoint_name(v.name, container));
        vertical::container_aggregate history(m.config);
        if (container.empty() || !c || !history.load(*c)) {
            spdlog::warn("{}/{}: checkpoint for container {} is unreadable; starting afresh", v.ns,
                         v.name, container);
            continue;
        }
        m.history.insert_or_assign(container, std::move(history));
        spdlog::info("{}/{}: history of container {} restored ({} samples)", v.ns, v.name,
                     container, c->total_samples);
    }
}

// `key`: the VPAPlus's namespace/name (the write fence's).
asio::awaitable<void> write_checkpoints(vertical_env& env, const vpaplus& v, vertical_memory& m,
                                        core::time_point now, const std::string& key) {
    if (m.last_checkpoint && now - *m.last_checkpoint < env.options.checkpoint_interval) co_return;
    m.last_checkpoint = now;
    const auto& r = kube::resources::vpapluscheckpoints;
    for (const auto& [container, history] : m.history) {
        const std::string name = checkpoint_name(v.name, container);
        if (!m.checkpoints_created.count(name)) {
            const std::string body = R"({"apiVersion":")" + std::string(api_version) +
                                     R"(","kind":"VPAPlusCheckpoint","metadata":{"name":")" + name +
                                     R"(","ownerReferences":[{"apiVersion":")" + api_version +
                                     R"(","kind":"VPAPlus","name":")" + v.name + R"(","uid":")" +
                                     v.uid + R"("}]},"spec":{"vpaObjectName":")" + v.name +
                                     R"(","containerName":")" + container + R"("}})";
            auto created = co_await kube::create(env.client, r, v.ns, body, key);
            if (!created && created.ec != kube::errc::already_exists) {
                spdlog::warn("{}/{}: checkpoint {} not created: {}", v.ns, v.name, name,
                             created.message());
                continue;
            }
            m.checkpoints_created.insert(name);
        }
        const std::string patch =
            R"({"status":)" + encode_checkpoint_status(history.save(), now) + "}";
        const std::string sub = "status";
        auto written = co_await kube::merge_patch(env.client, r, v.ns, name, patch, sub, key);
        if (!written) {
            if (written.ec == kube::errc::not_found) m.checkpoints_created.erase(name);
            spdlog::warn("{}/{}: checkpoint {} not written: {}", v.ns, v.name, name,
                         written.message());
        }
    }
}

struct pass {
    vertical_env& env;
    const vpaplus& v;
    vertical_memory& m;
    vpaplus_status& status;
    involved_object involved;
    core::time_point now;
    vertical_outcome& out;
    const std::string& key; ///< the VPAPlus's namespace/name (the write fence's)

    // GCC 12 mishandles temporaries in co_await arguments: callers pass a named event.
    asio::awaitable<void> record(const core::event& e) {
        co_await env.events.record(involved, e, now);
    }

    // Evicts through the Eviction API, so PodDisruptionBudgets hold. True when the pod goes.
    asio::awaitable<bool> evict(const pod_view& p, const std::string& why) {
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

    asio::awaitable<bool> resize(const pod_view& p, const std::vector<container_resources>& to) {
        const std::string patch = vertical::resize_patch(p, to);
        const std::string sub = "resize";
        auto r = co_await kube::json_patch(env.client, kube::resources::pods, v.ns, p.name, patch,
                                           sub, key);
        if (!r) {
            const core::event e{"Warning", "InPlaceResizeFailed",
                                "pods/" + p.name + "/resize refused: " + r.message()};
            co_await record(e);
            co_return false;
        }
        m.attempts[p.uid] = {now, to};
        ++status.in_place_resizes;
        ++out.resized;
        const std::string change = vertical::describe_change(p, to);
        const core::event e{"Normal", "InPlaceResizedByVPAPlus",
                            "resizing pod " + p.name + " in place: " + change};
        co_await record(e);
        spdlog::info("{}/{}: resizing pod {} in place: {}", v.ns, v.name, p.name, change);
        co_return true;
    }
};

asio::awaitable<void> update_pods(pass& ps, std::vector<pod_view>& pods,
                                  const std::vector<vertical::container_recommendation>& recs,
                                  std::int32_t configured) {
    const auto& o = ps.env.options;
    const auto mode = ps.v.mode;
    const bool recreate = mode == vertical::update_mode::recreate;
    const bool may_evict = mode == vertical::update_mode::in_place_or_recreate || recreate;
    const std::int32_t min_replicas = ps.v.min_replicas.value_or(o.min_replicas);
    std::int32_t live = 0;
    vertical::group_state group;
    group.configured = configured;
    for (const auto& p : pods) {
        if (p.deleting) continue;
        ++live;
        if (!p.pending) ++group.running;
        const auto a = ps.m.attempts.find(p.uid);
        if (ps.m.evicted.count(p.uid) ||
            (a != ps.m.attempts.end() &&
             vertical::under_way(p, a->second.at, a->second.to, ps.now, o)))
            ++group.in_flight;
    }
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
        if (!resizing(p)) continue; // the cache has not seen the PATCH yet
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
        const pod_view* pod;
        vertical::pod_priority priority;
    };
    std::vector<candidate> candidates;
    for (const auto& p : pods) {
        if (p.deleting || p.pending || !p.controlled || resizing(p) || ps.m.evicted.count(p.uid) ||
            ps.m.attempts.count(p.uid))
            continue;
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
        const pod_view& p = *c.pod;
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

} // namespace

std::string coordination_message(const vpaplus& v, const horizontal_use& h) {
    std::string left, shared;
    for (const auto& [uses, allowed, name] :
         {std::tuple{h.cpu, v.share_cpu, "cpu"}, std::tuple{h.memory, v.share_memory, "memory"}}) {
        if (!uses) continue;
        std::string& into = allowed ? shared : left;
        into += (into.empty() ? "" : ", ") + std::string(name);
    }
    std::string m = h.kind + " " + h.name + " scales " + v.target.kind + "/" + v.target.name;
    if (!left.empty()) m += "; " + left + " left to it (not controlled here)";
    if (!shared.empty()) m += "; " + shared + " controlled by both (allowSharedResources)";
    if (left.empty() && shared.empty()) m += " on other metrics; nothing shared";
    return m;
}

const char* coordination_reason(const vpaplus& v, const horizontal_use& h) {
    return (h.cpu && !v.share_cpu) || (h.memory && !v.share_memory) ? "ResourcesLeftToHPAPlus"
                                                                    : "NoConflict";
}

asio::awaitable<vertical_outcome> run_vpaplus(vertical_env& env, const std::string& ns,
                                              const std::string& name, vertical_memory& memory) {
    vertical_outcome out;
    const auto object = env.vpapluses.find(ns, name);
    if (!object) {
        out.exists = false;
        co_return out;
    }
    rapidjson::Document doc;
    doc.Parse(object->json.data(), object->json.size());
    const kube::json_node root{&doc, ""};
    kube::json_decoder d;
    const vpaplus v = decode_vpaplus(d, root);
    vpaplus_status status = decode_vpaplus_status(root["status"]);
    status.observed_generation = v.generation;
    const auto now = core::wall_now();
    const involved_object involved{ns, name, v.uid, "VPAPlus", api_version};
    auto& conditions = status.conditions;
    if (!d.ok()) {
        out.error = "invalid spec: " + d.error().to_string();
        core::set_condition(conditions, "ConfigUnsupported", condition_status::true_, "InvalidSpec",
                            *out.error, now);
        co_await write_status(env.client, kube::resources::vpapluses, *object, doc,
                              encode_vpaplus_status(status));
        const core::event e{"Warning", "InvalidSpec", *out.error};
        co_await env.events.record(involved, e, now);
        co_return out;
    }
    const target_view target =
        co_await read_target(env.client, &env.deployments, ns, v.target, false);
    if (!target.scale) {
        out.error = "target " + v.target.kind + "/" + v.target.name + ": " + target.error;
        core::set_condition(conditions, "ConfigUnsupported", condition_status::true_,
                            "TargetUnreadable", *out.error, now);
        co_await write_status(env.client, kube::resources::vpapluses, *object, doc,
                              encode_vpaplus_status(status));
        co_return out;
    }
    const bool at_creation =
        v.mode == vertical::update_mode::initial || v.mode == vertical::update_mode::recreate;
    const bool webhook = !env.options.webhook_listen.empty();
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
    const auto selector = core::parse_label_selector(target.scale->selector);
    std::vector<pod_view> pods;
    if (selector) {
        for (const auto& p : env.pods.select(ns, *selector)) {
            rapidjson::Document pd;
            pd.Parse(p->json.data(), p->json.size());
            if (!pd.HasParseError()) pods.push_back(decode_vertical_pod({&pd, ""}));
        }
    }
    core::set_condition(conditions, "NoPodsMatched",
                        pods.empty() ? condition_status::true_ : condition_status::false_,
                        pods.empty() ? "NoPodsMatched" : "PodsMatched",
                        std::to_string(pods.size()) + " pods match the target's selector", now);
    if (!memory.checkpoints_loaded) co_await load_checkpoints(env, v, memory);
    if (env.history && !memory.history_loaded) co_await seed_history(env, v, memory, status, now);
    forget_gone(memory, pods);
    if (!pods.empty()) {
        const auto answer =
            co_await metrics::list_pod_metrics(env.client, ns, target.scale->selector);
        if (!answer.error.empty()) out.error = "metrics: " + answer.error;
        add_samples(memory, pods, answer, env.recorder, object->key);
    }

    const horizontal_use h = env.horizontal_use_of(ns, v.target);
    status.shared_with = h.kind == "HPAPlus" ? h.name : h.kind + "/" + h.name;
    if (h.name.empty())
        core::remove_condition(conditions, "CoordinatedWithHPAPlus");
    else
        core::set_condition(conditions, "CoordinatedWithHPAPlus", condition_status::true_,
                            coordination_reason(v, h), coordination_message(v, h), now);
    double confidence = 0;
    status.recommendations = recommend(v, memory, h, now, confidence);
    vertical::set_recommendation_conditions(conditions, status.recommendations,
                                            !memory.history.empty(), confidence, now);

    pass ps{env, v, memory, status, involved, now, out, object->key};
    const bool updates = v.mode == vertical::update_mode::in_place_or_recreate ||
                         v.mode == vertical::update_mode::in_place ||
                         (v.mode == vertical::update_mode::recreate && webhook);
    if (updates && !status.recommendations.empty())
        co_await update_pods(ps, pods, status.recommendations, target.scale->spec_replicas);
    const bool written = co_await write_status(env.client, kube::resources::vpapluses, *object, doc,
                                               encode_vpaplus_status(status));
    if (written && env.recorder) env.recorder->recommended(object->key, now);
    co_await write_checkpoints(env, v, memory, now, object->key);
    co_return out;
}

} // namespace hpaplus::vertical
