// sim/workload/workload.cpp — deployment controller, pod lifecycle and usage.
#include "sim/workload/workload.hpp"

#include "core/quantity.hpp"
#include "sim/apiserver/admission.hpp"
#include "sim/pod_state.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_set>

namespace hpaplus::sim {

namespace asio = boost::asio;
using clock = std::chrono::steady_clock;

namespace {

std::int64_t quantity_milli(const std::string& text, std::int64_t fallback) {
    auto q = core::quantity::parse(text);
    return q ? q->milli_value() : fallback;
}

std::string fnv_hash(const std::string& text) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text)
        h = (h ^ c) * 1099511628211ull;
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::string out;
    for (int i = 0; i < 10; ++i) {
        out.push_back(alphabet[h % (sizeof alphabet - 1)]);
        h /= (sizeof alphabet - 1);
    }
    return out;
}

// 64 hex digits derived from `text`: the digest part of a simulated image or container ID
// (stable, so a pod's status does not change between updates).
std::string hex_digest(const std::string& text) {
    std::string out;
    std::uint64_t h = 1469598103934665603ull;
    for (int round = 0; round < 4; ++round) {
        for (unsigned char c : text)
            h = (h ^ c) * 1099511628211ull;
        h = (h ^ static_cast<unsigned>(round)) * 1099511628211ull;
        static const char digits[] = "0123456789abcdef";
        for (int i = 0; i < 16; ++i)
            out.push_back(digits[(h >> (4 * i)) & 15]);
    }
    return out;
}

std::int64_t int_at(const json& obj, const char* path, std::int64_t fallback) {
    const json* v = find_path(obj, path);
    return v && v->IsInt64() ? v->GetInt64() : fallback;
}

json condition(const char* type, const char* status, const std::string& now, json_alloc& a,
               const char* reason = nullptr, const std::string& message = {}) {
    json c(rapidjson::kObjectType);
    c.AddMember("type", json(type, a), a);
    c.AddMember("status", json(status, a), a);
    c.AddMember("lastProbeTime", json(rapidjson::kNullType), a);
    c.AddMember("lastTransitionTime", json(now.c_str(), a), a);
    if (reason) c.AddMember("reason", json(reason, a), a);
    if (!message.empty()) c.AddMember("message", json(message.c_str(), a), a);
    return c;
}

} // namespace

struct workload_model::impl : std::enable_shared_from_this<workload_model::impl> {
    asio::any_io_executor executor;
    object_store& store;
    workload_options options;
    std::map<std::string, clock::time_point> first_seen; ///< pod uid → when the model first saw it
    std::map<std::string, clock::time_point> resizing;   ///< pod uid → when its resize started
    std::map<std::string, double> cpu_seconds;           ///< pod uid → CPU seconds used so far
    clock::time_point last_tick = clock::now();
    std::unique_ptr<asio::steady_timer> timer;
    bool stopped = false;
    std::uint32_t next_ip = 10;
    admission* admission_chain = nullptr;
    /// Pods being admitted (webhook calls under way), by "deployment uid/template hash": they
    /// count as existing, as the ReplicaSet controller's expectations do, so none is made twice.
    std::map<std::string, std::int64_t> creating;

    impl(asio::any_io_executor ex, object_store& s, workload_options o)
        : executor(ex), store(s), options(std::move(o)) {}

    static std::string now_text() {
        return core::format_rfc3339(std::chrono::time_point_cast<std::chrono::nanoseconds>(
            std::chrono::system_clock::now()));
    }

    void tick() {
        collection* deployments = store.find("apps", "v1", "deployments");
        collection* pods = store.find("", "v1", "pods");
        if (!deployments || !pods) return;
        std::vector<object_ptr> all_deployments;
        for (const auto& [k, d] : deployments->objects)
            all_deployments.push_back(d);
        for (const auto& d : all_deployments)
            reconcile_deployment(*deployments, *pods, d);
        std::vector<object_ptr> all_pods;
        for (const auto& [k, p] : pods->objects)
            all_pods.push_back(p);
        for (const auto& p : all_pods)
            advance_pod(*pods, p);
        // Integrate usage into per-pod CPU-seconds counters.
        const auto now = clock::now();
        const double dt = std::chrono::duration<double>(now - last_tick).count();
        last_tick = now;
        for (const auto& p : all_pods) {
            if (const auto u = usage_of(*p))
                cpu_seconds[string_at(p->doc, "metadata.uid")] +=
                    static_cast<double>(u->cpu_milli) / 1000.0 * dt;
        }
        // forget pods that are gone
        std::unordered_set<std::string> alive_uids;
        for (const auto& p : all_pods)
            alive_uids.insert(string_at(p->doc, "metadata.uid"));
        for (auto it = first_seen.begin(); it != first_seen.end();) {
            const bool alive = alive_uids.count(it->first) > 0;
            if (!alive) cpu_seconds.erase(it->first);
            it = alive ? std::next(it) : first_seen.erase(it);
        }
    }

    void create_pod(collection& pods, const stored_object& d, const std::string& hash) {
        json_doc pod(rapidjson::kObjectType);
        auto& a = pod.GetAllocator();
        const json* tmpl = find_path(d.doc, "spec.template");
        if (tmpl && tmpl->IsObject()) pod.CopyFrom(*tmpl, a);
        if (!pod.IsObject()) pod.SetObject();
        erase_path(pod, "metadata.name");
        const std::string prefix = d.name + "-" + hash + "-";
        set_path(pod, "metadata.generateName", json(prefix.c_str(), a), a);
        set_path(pod, "metadata.labels.pod-template-hash", json(hash.c_str(), a), a);
        json owners(rapidjson::kArrayType);
        json owner(rapidjson::kObjectType);
        owner.AddMember("apiVersion", "apps/v1", a);
        owner.AddMember("kind", "Deployment", a);
        owner.AddMember("name", json(d.name.c_str(), a), a);
        owner.AddMember("uid", json(string_at(d.doc, "metadata.uid").c_str(), a), a);
        owner.AddMember("controller", true, a);
        owners.PushBack(owner, a);
        set_path(pod, "metadata.ownerReferences", std::move(owners), a);
        if (admission_chain && admission_chain->wants(pods.type, d.namespace_, pod)) {
            const std::string key = string_at(d.doc, "metadata.uid") + "/" + hash;
            ++creating[key];
            asio::co_spawn(
                executor,
                create_admitted(shared_from_this(), d.namespace_, d.name, key, std::move(pod)),
                asio::detached);
            return;
        }
        (void)store.create(pods, d.namespace_, std::move(pod));
    }

    // A pod through the mutating webhooks, then stored; a refusal is a FailedCreate Event on the
    // Deployment and the next tick tries again.
    static asio::awaitable<void> create_admitted(std::shared_ptr<impl> self, std::string ns,
                                                 std::string deployment, std::string key,
                                                 json_doc pod) {
        collection* pods = self->store.find("", "v1", "pods");
        if (!pods) co_return;
        const resource_type type = pods->type;
        const auto error = co_await self->admission_chain->admit_create(type, ns, pod);
        if (--self->creating[key] <= 0) self->creating.erase(key);
        if (self->stopped) co_return;
        pods = self->store.find("", "v1", "pods");
        if (!pods) co_return;
        if (!error) {
            (void)self->store.create(*pods, ns, std::move(pod));
            co_return;
        }
        self->record_failed_create(ns, deployment, error->message);
    }

    void record_failed_create(const std::string& ns, const std::string& deployment,
                              const std::string& message) {
        collection* events = store.find("", "v1", "events");
        collection* deployments = store.find("apps", "v1", "deployments");
        const object_ptr d = deployments ? store.get(*deployments, ns, deployment) : nullptr;
        if (!events || !d) return;
        json_doc e(rapidjson::kObjectType);
        auto& a = e.GetAllocator();
        const std::string now = now_text();
        set_path(e, "metadata.generateName", json((deployment + ".").c_str(), a), a);
        set_path(e, "involvedObject.apiVersion", json("apps/v1"), a);
        set_path(e, "involvedObject.kind", json("Deployment"), a);
        set_path(e, "involvedObject.namespace", json(ns.c_str(), a), a);
        set_path(e, "involvedObject.name", json(deployment.c_str(), a), a);
        set_path(e, "involvedObject.uid", json(string_at(d->doc, "metadata.uid").c_str(), a), a);
        set_path(e, "type", json("Warning"), a);
        set_path(e, "reason", json("FailedCreate"), a);
        set_path(e, "message", json(("Error creating: " + message).c_str(), a), a);
        set_path(e, "source.component", json("deployment-controller"), a);
        set_path(e, "firstTimestamp", json(now.c_str(), a), a);
        set_path(e, "lastTimestamp", json(now.c_str(), a), a);
        set_path(e, "count", json(1), a);
        (void)store.create(*events, ns, std::move(e));
    }

    void reconcile_deployment(collection& deployments, collection& pods, const object_ptr& d) {
        const std::string uid = string_at(d->doc, "metadata.uid");
        const json* tmpl = find_path(d->doc, "spec.template");
        const std::string hash = fnv_hash(tmpl ? to_string(*tmpl) : "");
        const std::int64_t desired = std::max<std::int64_t>(0, int_at(d->doc, "spec.replicas", 1));
        const bool paused =
            find_path(d->doc, "spec.paused") && find_path(d->doc, "spec.paused")->IsTrue();

        std::vector<object_ptr> current, old;
        for (const auto& [k, p] : namespace_range(pods, d->namespace_)) {
            if (deployment_owner_uid(*p) != uid) continue;
            const auto h = p->labels.find("pod-template-hash");
            (h != p->labels.end() && h->second == hash ? current : old).push_back(p);
        }
        const auto admitting = creating.find(uid + "/" + hash);
        const std::int64_t pending_creates = admitting == creating.end() ? 0 : admitting->second;
        auto ready_count = [](const std::vector<object_ptr>& v) {
            return static_cast<std::int64_t>(
                std::count_if(v.begin(), v.end(), [](auto& p) { return pod_ready(*p); }));
        };
        // RollingUpdate with the defaults: maxSurge 25 % (rounded up), maxUnavailable 25 % (rounded
        // down).
        const std::int64_t surge =
            std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(desired * 0.25)));
        const std::int64_t max_unavailable = static_cast<std::int64_t>(std::floor(desired * 0.25));
        if (!paused) {
            const auto have = static_cast<std::int64_t>(current.size()) + pending_creates;
            const auto total = have + static_cast<std::int64_t>(old.size());
            if (have < desired) {
                const std::int64_t room =
                    old.empty() ? desired - have
                                : std::min<std::int64_t>(desired - have, desired + surge - total);
                for (std::int64_t i = 0; i < room; ++i)
                    create_pod(pods, *d, hash);
            } else if (static_cast<std::int64_t>(current.size()) > desired) {
                // Scale down: unready pods first, then the newest.
                std::sort(current.begin(), current.end(),
                          [](const object_ptr& a, const object_ptr& b) {
                              if (pod_ready(*a) != pod_ready(*b)) return !pod_ready(*a);
                              return a->rv > b->rv;
                          });
                for (std::size_t i = 0; i < current.size() - static_cast<std::size_t>(desired); ++i)
                    (void)store.remove(pods, current[i]->namespace_, current[i]->name);
            }
            // Retire old pods while enough pods stay available.
            std::int64_t available = ready_count(current) + ready_count(old);
            for (const auto& p : old) {
                const bool ready = pod_ready(*p);
                if (ready && available - 1 < desired - max_unavailable) continue;
                (void)store.remove(pods, p->namespace_, p->name);
                if (ready) --available;
            }
        }
        write_status(deployments, pods, d, hash, desired, max_unavailable);
    }

    void write_status(collection& deployments, collection& pods, const object_ptr& d,
                      const std::string& hash, std::int64_t desired, std::int64_t max_unavailable) {
        const std::string uid = string_at(d->doc, "metadata.uid");
        std::int64_t replicas = 0, updated = 0, ready = 0;
        for (const auto& [k, p] : namespace_range(pods, d->namespace_)) {
            if (deployment_owner_uid(*p) != uid) continue;
            ++replicas;
            const auto h = p->labels.find("pod-template-hash");
            if (h != p->labels.end() && h->second == hash) ++updated;
            if (pod_ready(*p)) ++ready;
        }
        json_doc next = clone(d->doc);
        auto& a = next.GetAllocator();
        json status(rapidjson::kObjectType);
        status.AddMember("observedGeneration", int_at(d->doc, "metadata.generation", 1), a);
        // Deployment status counters are omitempty: zeros are left out.
        auto counter = [&](const char* name, std::int64_t v) {
            if (v != 0) status.AddMember(json(name, a), json(v), a);
        };
        counter("replicas", replicas);
        counter("updatedReplicas", updated);
        counter("readyReplicas", ready);
        counter("availableReplicas", ready);
        counter("unavailableReplicas", std::max<std::int64_t>(0, desired - ready));
        const bool complete = updated == desired && replicas == desired && ready == desired;
        const json* old_status = find_path(d->doc, "status");
        const std::string now = now_text();
        json conditions(rapidjson::kArrayType);
        const bool available = ready >= desired - max_unavailable;
        conditions.PushBack(
            condition("Available", available ? "True" : "False", now, a,
                      available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
                      available ? "Deployment has minimum availability."
                                : "Deployment does not have minimum availability."),
            a);
        conditions.PushBack(
            condition("Progressing", "True", now, a,
                      complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
                      "ReplicaSet \"" + d->name + "-" + hash + "\" " +
                          (complete ? "has successfully progressed." : "is progressing.")),
            a);
        // Keep transition times when nothing changed, so that status writes stay rare.
        if (old_status) {
            const json* old_conditions = find_path(*old_status, "conditions");
            if (old_conditions && old_conditions->IsArray() &&
                old_conditions->Size() == conditions.Size()) {
                for (rapidjson::SizeType i = 0; i < conditions.Size(); ++i) {
                    json& c = conditions[i];
                    const json& o = (*old_conditions)[i];
                    if (string_at(c, "status") == string_at(o, "status") &&
                        string_at(c, "reason") == string_at(o, "reason"))
                        if (const json* t = find_path(o, "lastTransitionTime"))
                            c["lastTransitionTime"] = json(*t, a);
                }
            }
        }
        status.AddMember("conditions", conditions, a);
        if (old_status && equal(*old_status, status)) return;
        set_path(next, "status", std::move(status), a);
        (void)store.update(deployments, d->namespace_, d->name, std::move(next),
                           write_mode::internal_status);
    }

    // Requests of a pod's containers (and sidecars) from its spec, in milli-CPU and bytes.
    static std::pair<std::int64_t, std::int64_t> requests_of(const json& pod) {
        std::int64_t cpu = 0, mem = 0;
        for (const char* list : {"spec.containers", "spec.initContainers"}) {
            const json* cs = find_path(pod, list);
            if (!cs || !cs->IsArray()) continue;
            for (const auto& c : cs->GetArray()) {
                if (std::string_view(list) == "spec.initContainers" &&
                    string_at(c, "restartPolicy") != "Always")
                    continue;
                cpu += quantity_milli(string_at(c, "resources.requests.cpu"), 0);
                mem += quantity_milli(string_at(c, "resources.requests.memory"), 0) / 1000;
            }
        }
        return {cpu, mem};
    }

    // The simulated kubelet's side of pods/resize: compare desired (spec) with actual
    // (containerStatuses[].resources) and report PodResizePending / PodResizeInProgress.
    void actuate_resize(collection& pods, const object_ptr& p) {
        const json* containers = find_path(p->doc, "spec.containers");
        const json* statuses = find_path(p->doc, "status.containerStatuses");
        if (!containers || !containers->IsArray() || !statuses || !statuses->IsArray()) return;
        bool differs = false;
        for (const auto& c : containers->GetArray()) {
            for (const auto& st : statuses->GetArray()) {
                if (string_at(st, "name") != string_at(c, "name")) continue;
                const json* want = find_path(c, "resources");
                const json* have = find_path(st, "resources");
                if ((want == nullptr) != (have == nullptr) || (want && !equal(*want, *have)))
                    differs = true;
            }
        }
        const std::string uid = string_at(p->doc, "metadata.uid");
        if (!differs) {
            resizing.erase(uid);
            return;
        }
        const auto [cpu, mem] = requests_of(p->doc);
        std::int64_t used_cpu = 0, used_mem = 0;
        for (const auto& [k, other] : pods.objects) {
            if (other->name == p->name && other->namespace_ == p->namespace_) continue;
            if (string_at(other->doc, "spec.nodeName") != options.node_name) continue;
            const auto [oc, om] = requests_of(other->doc);
            used_cpu += oc;
            used_mem += om;
        }
        std::string pending_reason, pending_message;
        if (cpu > options.node_cpu_milli || mem > options.node_memory_bytes) {
            pending_reason = "Infeasible";
            pending_message =
                "Node didn't have enough capacity: " +
                std::string(cpu > options.node_cpu_milli ? "cpu" : "memory") +
                ", requested: " + std::to_string(cpu > options.node_cpu_milli ? cpu : mem) +
                ", capacity: " +
                std::to_string(cpu > options.node_cpu_milli ? options.node_cpu_milli
                                                            : options.node_memory_bytes);
        } else if (used_cpu + cpu > options.node_cpu_milli ||
                   used_mem + mem > options.node_memory_bytes) {
            pending_reason = "Deferred";
            pending_message =
                "Node didn't have enough resource: " +
                std::string(used_cpu + cpu > options.node_cpu_milli ? "cpu" : "memory") +
                ", requested: " +
                std::to_string(used_cpu + cpu > options.node_cpu_milli ? cpu : mem) + ", used: " +
                std::to_string(used_cpu + cpu > options.node_cpu_milli ? used_cpu : used_mem);
        }
        json_doc next = clone(p->doc);
        auto& a = next.GetAllocator();
        json* conditions = const_cast<json*>(find_path(next, "status.conditions"));
        if (!conditions || !conditions->IsArray()) return;
        auto drop = [&](const char* type) {
            for (auto it = conditions->Begin(); it != conditions->End();) {
                if (string_at(*it, "type") == type)
                    it = conditions->Erase(it);
                else
                    ++it;
            }
        };
        auto has = [&](const char* type, const std::string& reason) {
            for (const auto& c : conditions->GetArray())
                if (string_at(c, "type") == type && string_at(c, "reason") == reason) return true;
            return false;
        };
        const std::string now = now_text();
        if (!pending_reason.empty()) {
            resizing.erase(uid);
            if (has("PodResizePending", pending_reason)) return;
            drop("PodResizePending");
            drop("PodResizeInProgress");
            conditions->PushBack(condition("PodResizePending", "True", now, a,
                                           pending_reason.c_str(), pending_message),
                                 a);
            (void)store.update(pods, p->namespace_, p->name, std::move(next),
                               write_mode::internal_status);
            return;
        }
        const auto started = resizing.emplace(uid, clock::now()).first->second;
        if (clock::now() - started < options.resize_delay) {
            if (has("PodResizeInProgress", "")) return;
            drop("PodResizePending");
            conditions->PushBack(condition("PodResizeInProgress", "True", now, a), a);
            (void)store.update(pods, p->namespace_, p->name, std::move(next),
                               write_mode::internal_status);
            return;
        }
        // Actuate: actual = desired; a RestartContainer policy on a changed resource restarts it.
        drop("PodResizePending");
        drop("PodResizeInProgress");
        json* next_statuses = const_cast<json*>(find_path(next, "status.containerStatuses"));
        for (const auto& c : containers->GetArray()) {
            for (auto& st : next_statuses->GetArray()) {
                if (string_at(st, "name") != string_at(c, "name")) continue;
                const json* want = find_path(c, "resources");
                const json* have = find_path(st, "resources");
                bool restart = false;
                if (const json* policies = find_path(c, "resizePolicy");
                    policies && policies->IsArray()) {
                    for (const auto& policy : policies->GetArray()) {
                        if (string_at(policy, "restartPolicy") != "RestartContainer") continue;
                        const std::string res = string_at(policy, "resourceName");
                        for (const char* kind : {"requests", "limits"}) {
                            const std::string path = std::string(kind) + "." + res;
                            if ((want ? string_at(*want, path) : "") !=
                                (have ? string_at(*have, path) : ""))
                                restart = true;
                        }
                    }
                }
                if (want) set_path(st, "resources", json(*want, a), a);
                if (const json* req = want ? find_path(*want, "requests") : nullptr)
                    set_path(st, "allocatedResources", json(*req, a), a);
                if (restart)
                    set_path(st, "restartCount", json(int_at(st, "restartCount", 0) + 1), a);
            }
        }
        resizing.erase(uid);
        (void)store.update(pods, p->namespace_, p->name, std::move(next),
                           write_mode::internal_status);
    }

    void advance_pod(collection& pods, const object_ptr& p) {
        if (!string_at(p->doc, "metadata.deletionTimestamp").empty()) return;
        const std::string uid = string_at(p->doc, "metadata.uid");
        const auto seen = first_seen.emplace(uid, clock::now()).first->second;
        const auto age = clock::now() - seen;
        const std::string phase = string_at(p->doc, "status.phase");
        const bool scheduled = !string_at(p->doc, "spec.nodeName").empty();
        const std::string now = now_text();
        if (!scheduled && age >= options.scheduling_delay) {
            // Binding sets spec.nodeName (an object write), then the kubelet reports PodScheduled.
            json_doc bound = clone(p->doc);
            set_path(bound, "spec.nodeName", json(options.node_name.c_str(), bound.GetAllocator()),
                     bound.GetAllocator());
            auto stored =
                store.update(pods, p->namespace_, p->name, std::move(bound), write_mode::internal);
            if (!stored) return;
            json_doc next = clone((*stored)->doc);
            auto& a = next.GetAllocator();
            json status(rapidjson::kObjectType);
            status.AddMember("phase", "Pending", a);
            json conditions(rapidjson::kArrayType);
            conditions.PushBack(condition("PodScheduled", "True", now, a), a);
            status.AddMember("conditions", conditions, a);
            status.AddMember("qosClass", "Burstable", a);
            set_path(next, "status", std::move(status), a);
            (void)store.update(pods, p->namespace_, p->name, std::move(next),
                               write_mode::internal_status);
            return;
        }
        const bool running = phase == "Running";
        const bool ready = pod_ready(*p);
        const bool start =
            scheduled && !running && age >= options.scheduling_delay + options.start_delay;
        const bool become_ready =
            running && !ready &&
            age >= options.scheduling_delay + options.start_delay + options.readiness_delay;
        if (running && ready) {
            actuate_resize(pods, p);
            return;
        }
        if (!start && !become_ready) return;
        json_doc next = clone(p->doc);
        auto& a = next.GetAllocator();
        const bool now_ready = become_ready;
        json status(rapidjson::kObjectType);
        status.AddMember("phase", "Running", a);
        json conditions(rapidjson::kArrayType);
        conditions.PushBack(condition("Initialized", "True", now, a), a);
        conditions.PushBack(condition("Ready", now_ready ? "True" : "False", now, a,
                                      now_ready ? nullptr : "ContainersNotReady"),
                            a);
        conditions.PushBack(condition("ContainersReady", now_ready ? "True" : "False", now, a), a);
        conditions.PushBack(condition("PodScheduled", "True", now, a), a);
        status.AddMember("conditions", conditions, a);
        const std::string start_time = start ? now : string_at(p->doc, "status.startTime");
        status.AddMember("startTime", json(start_time.c_str(), a), a);
        std::string ip = string_at(p->doc, "status.podIP");
        if (ip.empty()) {
            ++next_ip;
            ip = "10.244." + std::to_string((next_ip / 250) % 250) + "." +
                 std::to_string(next_ip % 250 + 1);
        }
        status.AddMember("podIP", json(ip.c_str(), a), a);
        status.AddMember("hostIP", "10.0.0.1", a);
        status.AddMember("qosClass", "Burstable", a);
        json statuses(rapidjson::kArrayType);
        if (const json* containers = find_path(p->doc, "spec.containers");
            containers && containers->IsArray()) {
            for (const auto& c : containers->GetArray()) {
                json s(rapidjson::kObjectType);
                s.AddMember("name", json(string_at(c, "name").c_str(), a), a);
                s.AddMember("ready", now_ready, a);
                s.AddMember("started", true, a);
                s.AddMember("restartCount", 0, a);
                // What the kubelet reports and typed clients require (imageID is required in
                // the OpenAPI schema): the resolved image digest and the runtime's container ID.
                const std::string image = string_at(c, "image");
                s.AddMember("image", json(image.c_str(), a), a);
                const std::string image_id =
                    (image.find('/') == std::string::npos ? "docker.io/library/" + image : image) +
                    "@sha256:" + hex_digest(image);
                s.AddMember("imageID", json(image_id.c_str(), a), a);
                const std::string container_id =
                    "containerd://" + hex_digest(p->namespace_ + "/" + p->name + "/" +
                                                 string_at(c, "name"));
                s.AddMember("containerID", json(container_id.c_str(), a), a);
                s.AddMember("lastState", json(rapidjson::kObjectType), a);
                json state(rapidjson::kObjectType);
                json running_state(rapidjson::kObjectType);
                running_state.AddMember("startedAt", json(start_time.c_str(), a), a);
                state.AddMember("running", running_state, a);
                s.AddMember("state", state, a);
                if (const json* resources = find_path(c, "resources"))
                    s.AddMember("resources", json(*resources, a), a);
                statuses.PushBack(s, a);
            }
        }
        status.AddMember("containerStatuses", statuses, a);
        set_path(next, "status", std::move(status), a);
        (void)store.update(pods, p->namespace_, p->name, std::move(next),
                           write_mode::internal_status);
    }

    std::optional<pod_usage> usage_of(const stored_object& pod) const {
        if (string_at(pod.doc, "status.phase") != "Running") return std::nullopt;
        pod_usage u;
        u.memory_bytes = quantity_milli(annotation(pod.doc, "sim.hpaplus.io/memory-usage"),
                                        64LL * 1024 * 1024 * 1000) /
                         1000;
        if (const std::string own = annotation(pod.doc, "sim.hpaplus.io/cpu-usage"); !own.empty()) {
            u.cpu_milli = quantity_milli(own, 0);
            return u;
        }
        collection* deployments =
            const_cast<object_store&>(store).find("apps", "v1", "deployments");
        collection* pods = const_cast<object_store&>(store).find("", "v1", "pods");
        const std::string owner = deployment_owner_uid(pod);
        u.cpu_milli = 1; // an idle process still uses a little
        if (!deployments || !pods || owner.empty()) return u;
        for (const auto& [k, d] : deployments->objects) {
            if (string_at(d->doc, "metadata.uid") != owner) continue;
            if (const std::string mem = annotation(d->doc, "sim.hpaplus.io/memory-per-pod");
                !mem.empty())
                u.memory_bytes = quantity_milli(mem, 0) / 1000;
            const std::string load = annotation(d->doc, "sim.hpaplus.io/cpu-load");
            if (load.empty() || !pod_ready(pod)) return u;
            std::int64_t ready = 0;
            for (const auto& [pk, p] : namespace_range(*pods, pod.namespace_))
                if (deployment_owner_uid(*p) == owner && pod_ready(*p)) ++ready;
            u.cpu_milli = std::max<std::int64_t>(1, quantity_milli(load, 0) /
                                                        std::max<std::int64_t>(1, ready));
        }
        return u;
    }

    void schedule() {
        if (stopped) return;
        timer->expires_after(options.tick);
        timer->async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
            if (ec || self->stopped) return;
            self->tick();
            self->schedule();
        });
    }
};

workload_model::workload_model(asio::any_io_executor executor, object_store& store,
                               workload_options options)
    : impl_(std::make_shared<impl>(executor, store, std::move(options))) {
    impl_->timer = std::make_unique<asio::steady_timer>(executor);
}

workload_model::~workload_model() {
    stop();
}

void workload_model::use_admission(admission& chain) {
    impl_->admission_chain = &chain;
}

void workload_model::start() {
    impl_->schedule();
}

void workload_model::stop() {
    impl_->stopped = true;
    impl_->timer->cancel();
}

void workload_model::tick() {
    impl_->tick();
}

std::optional<pod_usage> workload_model::usage_of(const stored_object& pod) const {
    return impl_->usage_of(pod);
}

double workload_model::cpu_seconds_of(const stored_object& pod) const {
    const auto it = impl_->cpu_seconds.find(string_at(pod.doc, "metadata.uid"));
    return it == impl_->cpu_seconds.end() ? 0.0 : it->second;
}

} // namespace hpaplus::sim
