// sim/workload/controllers.cpp — Deployment, ReplicaSet and StatefulSet controllers and the
// garbage collector.
#include "sim/workload/controllers.hpp"

#include "sim/pod_state.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <vector>

namespace hpaplus::sim {
namespace {

std::string uid_of(const stored_object& o) {
    return string_at(o.doc, "metadata.uid");
}

// FNV-1a over a value with object members in name order, so that the same template sent with
// its fields in another order (kubectl rollout undo does) hashes the same.
void hash_value(const json& v, std::uint64_t& h) {
    auto feed = [&h](std::string_view bytes) {
        for (unsigned char c : bytes)
            h = (h ^ c) * 1099511628211ull;
    };
    if (v.IsObject()) {
        std::vector<const json::Member*> members;
        for (const auto& m : v.GetObject())
            members.push_back(&m);
        std::sort(members.begin(), members.end(), [](const auto* x, const auto* y) {
            return std::string_view(x->name.GetString(), x->name.GetStringLength()) <
                   std::string_view(y->name.GetString(), y->name.GetStringLength());
        });
        feed("{");
        for (const auto* m : members) {
            feed(std::string_view(m->name.GetString(), m->name.GetStringLength() + 1));
            hash_value(m->value, h);
        }
        feed("}");
    } else if (v.IsArray()) {
        feed("[");
        for (const auto& item : v.GetArray())
            hash_value(item, h);
        feed("]");
    } else {
        feed(to_string(v));
    }
}

// What the pod-template-hash looks like: ten characters of a safe alphabet from the hash.
std::string template_hash(const json* pod_template) {
    std::uint64_t h = 1469598103934665603ull;
    if (pod_template) hash_value(*pod_template, h);
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::string out;
    for (int i = 0; i < 10; ++i) {
        out.push_back(alphabet[h % (sizeof alphabet - 1)]);
        h /= (sizeof alphabet - 1);
    }
    return out;
}

json owner_reference(const stored_object& owner, json_alloc& a) {
    json r(rapidjson::kObjectType);
    r.AddMember("apiVersion", "apps/v1", a);
    r.AddMember("kind", json(string_at(owner.doc, "kind").c_str(), a), a);
    r.AddMember("name", json(owner.name.c_str(), a), a);
    r.AddMember("uid", json(uid_of(owner).c_str(), a), a);
    r.AddMember("controller", true, a);
    r.AddMember("blockOwnerDeletion", true, a);
    return r;
}

std::int64_t ready_count(const std::vector<object_ptr>& pods) {
    return static_cast<std::int64_t>(
        std::count_if(pods.begin(), pods.end(), [](const object_ptr& p) { return pod_ready(*p); }));
}

// An IntOrString of a rolling update: a count, or a percentage of `total` rounded up (maxSurge) or
// down (maxUnavailable); absent is 25%.
std::int64_t scaled_value(const json* v, std::int64_t total, bool round_up) {
    if (v && v->IsInt64()) return std::max<std::int64_t>(0, v->GetInt64());
    std::string text = v && v->IsString() ? v->GetString() : "25%";
    const bool percent = !text.empty() && text.back() == '%';
    if (percent) text.pop_back();
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 0) n = percent ? 25 : 0;
    if (!percent) return n;
    const double share = static_cast<double>(total) * static_cast<double>(n) / 100.0;
    return static_cast<std::int64_t>(round_up ? std::ceil(share) : std::floor(share));
}

// A pod made from `owner`'s template, named `name` or generated from `generate_name`.
json_doc pod_from_template(const stored_object& owner, const std::string& name,
                           const std::string& generate_name, const json* pod_template = nullptr) {
    json_doc pod(rapidjson::kObjectType);
    auto& a = pod.GetAllocator();
    if (!pod_template) pod_template = find_path(owner.doc, "spec.template");
    if (pod_template && pod_template->IsObject()) pod.CopyFrom(*pod_template, a);
    pod.RemoveMember("$patch"); // a template kept in a ControllerRevision
    if (!pod.IsObject()) pod.SetObject();
    erase_path(pod, "metadata.name");
    if (!name.empty()) set_path(pod, "metadata.name", json(name.c_str(), a), a);
    if (!generate_name.empty())
        set_path(pod, "metadata.generateName", json(generate_name.c_str(), a), a);
    json owners(rapidjson::kArrayType);
    owners.PushBack(owner_reference(owner, a), a);
    set_path(pod, "metadata.ownerReferences", std::move(owners), a);
    return pod;
}

// Writes `status` unless the object already has it; conditions keep their transition time when
// their status and reason stayed, so that status writes stay rare.
void write_status(object_store& store, collection& c, const object_ptr& o, json_doc status) {
    const json* old_status = find_path(o->doc, "status");
    auto& a = status.GetAllocator();
    const json* old_conditions = old_status ? find_path(*old_status, "conditions") : nullptr;
    if (json* conditions = status.HasMember("conditions") ? &status["conditions"] : nullptr;
        conditions && old_conditions && old_conditions->IsArray()) {
        for (auto& c_new : conditions->GetArray())
            for (const auto& c_old : old_conditions->GetArray())
                if (string_at(c_new, "type") == string_at(c_old, "type") &&
                    string_at(c_new, "status") == string_at(c_old, "status") &&
                    string_at(c_new, "reason") == string_at(c_old, "reason"))
                    for (const char* time : {"lastTransitionTime", "lastUpdateTime"})
                        if (const json* t = find_path(c_old, time); t && c_new.HasMember(time))
                            c_new[time] = json(*t, a);
    }
    if (old_status && equal(*old_status, status)) return;
    json_doc next = clone(o->doc);
    set_path(next, "status", json(status, next.GetAllocator()), next.GetAllocator());
    (void)store.update(c, o->namespace_, o->name, std::move(next), write_mode::internal_status);
}

// Status counters marked omitempty upstream are left out when zero.
void counter(json& status, const char* name, std::int64_t v, json_alloc& a, bool always = false) {
    if (v != 0 || always) status.AddMember(json(name, a), json(v), a);
}

// Annotation keys have dots, so they are no path for set_path.
void set_annotation(json_doc& object, const char* key, const std::string& value) {
    auto& a = object.GetAllocator();
    if (!find_path(object, "metadata.annotations"))
        set_path(object, "metadata.annotations", json(rapidjson::kObjectType), a);
    json* annotations = const_cast<json*>(find_path(object, "metadata.annotations"));
    if (!annotations || !annotations->IsObject()) return;
    annotations->RemoveMember(key);
    annotations->AddMember(json(key, a), json(value.c_str(), a), a);
}

// Sets spec.replicas of a ReplicaSet (and `annotations`), returning the stored object.
object_ptr set_replicas(object_store& store, collection& sets, const object_ptr& rs,
                        std::int64_t replicas,
                        const std::vector<std::pair<const char*, std::string>>& annotations = {}) {
    bool same = int_at(rs->doc, "spec.replicas", 1) == replicas;
    for (const auto& [key, value] : annotations)
        same = same && annotation(rs->doc, key) == value;
    if (same) return rs;
    json_doc next = clone(rs->doc);
    auto& a = next.GetAllocator();
    set_path(next, "spec.replicas", json(replicas), a);
    for (const auto& [key, value] : annotations)
        set_annotation(next, key, value);
    auto stored =
        store.update(sets, rs->namespace_, rs->name, std::move(next), write_mode::internal);
    return stored ? *stored : rs;
}

constexpr const char* revision_annotation = "deployment.kubernetes.io/revision";

std::int64_t revision_of(const stored_object& rs) {
    const std::string text = annotation(rs.doc, revision_annotation);
    std::int64_t n = 0;
    std::from_chars(text.data(), text.data() + text.size(), n);
    return n;
}

// --- Deployments ---------------------------------------------------------------------------

object_ptr create_replica_set(object_store& store, collection& sets, const stored_object& d,
                              const std::string& hash, std::int64_t replicas, std::int64_t revision,
                              std::int64_t max_replicas) {
    json_doc rs(rapidjson::kObjectType);
    auto& a = rs.GetAllocator();
    const std::string name = d.name + "-" + hash;
    set_path(rs, "metadata.name", json(name.c_str(), a), a);
    if (const json* labels = find_path(d.doc, "spec.template.metadata.labels"))
        set_path(rs, "metadata.labels", json(*labels, a), a);
    set_path(rs, "metadata.labels.pod-template-hash", json(hash.c_str(), a), a);
    const std::string desired = std::to_string(int_at(d.doc, "spec.replicas", 1));
    json annotations(rapidjson::kObjectType);
    annotations.AddMember("deployment.kubernetes.io/desired-replicas", json(desired.c_str(), a), a);
    annotations.AddMember("deployment.kubernetes.io/max-replicas",
                          json(std::to_string(max_replicas).c_str(), a), a);
    annotations.AddMember(json(revision_annotation, a), json(std::to_string(revision).c_str(), a),
                          a);
    set_path(rs, "metadata.annotations", std::move(annotations), a);
    json owners(rapidjson::kArrayType);
    owners.PushBack(owner_reference(d, a), a);
    set_path(rs, "metadata.ownerReferences", std::move(owners), a);
    set_path(rs, "spec.replicas", json(replicas), a);
    if (const json* ready = find_path(d.doc, "spec.minReadySeconds"))
        set_path(rs, "spec.minReadySeconds", json(*ready, a), a);
    if (const json* selector = find_path(d.doc, "spec.selector"))
        set_path(rs, "spec.selector", json(*selector, a), a);
    set_path(rs, "spec.selector.matchLabels.pod-template-hash", json(hash.c_str(), a), a);
    if (const json* t = find_path(d.doc, "spec.template"))
        set_path(rs, "spec.template", json(*t, a), a);
    set_path(rs, "spec.template.metadata.labels.pod-template-hash", json(hash.c_str(), a), a);
    auto stored = store.create(sets, d.namespace_, std::move(rs));
    return stored ? *stored : nullptr;
}

// A Deployment condition as the deployment controller writes it: lastUpdateTime and
// lastTransitionTime, no lastProbeTime (that one is a pod condition's).
json deployment_condition(const char* type, bool status, const std::string& now, json_alloc& a,
                          const char* reason, const std::string& message) {
    json c(rapidjson::kObjectType);
    c.AddMember("type", json(type, a), a);
    c.AddMember("status", json(status ? "True" : "False", a), a);
    c.AddMember("lastUpdateTime", json(now.c_str(), a), a);
    c.AddMember("lastTransitionTime", json(now.c_str(), a), a);
    c.AddMember("reason", json(reason, a), a);
    c.AddMember("message", json(message.c_str(), a), a);
    return c;
}

void write_deployment_status(object_store& store, collection& deployments, const object_ptr& d,
                             std::int64_t desired, std::int64_t max_unavailable,
                             const std::string& new_name, std::int64_t spec_total,
                             const std::vector<object_ptr>& pods, std::int64_t updated,
                             const json* replica_failure) {
    json_doc status(rapidjson::kObjectType);
    auto& a = status.GetAllocator();
    const auto replicas = static_cast<std::int64_t>(pods.size());
    const std::int64_t ready = ready_count(pods);
    status.AddMember("observedGeneration", int_at(d->doc, "metadata.generation", 1), a);
    counter(status, "replicas", replicas, a);
    counter(status, "updatedReplicas", updated, a);
    counter(status, "readyReplicas", ready, a);
    counter(status, "availableReplicas", ready, a);
    counter(status, "unavailableReplicas", std::max<std::int64_t>(0, spec_total - ready), a);
    const bool complete = updated == desired && replicas == desired && ready == desired;
    const std::string now = now_text();
    const bool available = ready >= desired - max_unavailable;
    json conditions(rapidjson::kArrayType);
    conditions.PushBack(
        deployment_condition("Available", available, now, a,
                             available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
                             available ? "Deployment has minimum availability."
                                       : "Deployment does not have minimum availability."),
        a);
    conditions.PushBack(
        deployment_condition("Progressing", true, now, a,
                             complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
                             "ReplicaSet \"" + new_name + "\" " +
                                 (complete ? "has successfully progressed." : "is progressing.")),
        a);
    if (replica_failure)
        conditions.PushBack(deployment_condition("ReplicaFailure", true, now, a, "FailedCreate",
                                                 string_at(*replica_failure, "message")),
                            a);
    status.AddMember("conditions", conditions, a);
    write_status(store, deployments, d, std::move(status));
}

// --- StatefulSets --------------------------------------------------------------------------

// The ordinal of a pod named `<set>-<n>`, or -1.
std::int64_t ordinal_of(const std::string& set, const std::string& pod) {
    if (pod.size() <= set.size() + 1 || pod.compare(0, set.size(), set) != 0 ||
        pod[set.size()] != '-')
        return -1;
    std::int64_t n = -1;
    const char* first = pod.data() + set.size() + 1;
    const auto [end, ec] = std::from_chars(first, pod.data() + pod.size(), n);
    return ec == std::errc() && end == pod.data() + pod.size() ? n : -1;
}

constexpr const char* revision_label = "controller-revision-hash";

// Upstream's slowStartBatch: `count` creations in batches of 1, 2, 4, …; a batch with a refusal
// ends the sync (the next one tries again), so a failing create is not repeated `count` times.
template <class Create> void slow_start(std::int64_t count, Create create) {
    for (std::int64_t batch = 1, done = 0; done < count; batch *= 2) {
        const std::int64_t n = std::min(batch, count - done);
        bool refused = false;
        for (std::int64_t k = 0; k < n; ++k)
            refused = !create() || refused;
        done += n;
        if (refused) return;
    }
}

json_doc stateful_pod(const stored_object& set, std::int64_t ordinal, const std::string& revision,
                      const json* pod_template) {
    const std::string name = set.name + "-" + std::to_string(ordinal);
    json_doc pod = pod_from_template(set, name, "", pod_template);
    auto& a = pod.GetAllocator();
    set_path(pod, "metadata.labels.controller-revision-hash", json(revision.c_str(), a), a);
    json* labels = const_cast<json*>(find_path(pod, "metadata.labels"));
    labels->AddMember("statefulset.kubernetes.io/pod-name", json(name.c_str(), a), a);
    labels->AddMember("apps.kubernetes.io/pod-index", json(std::to_string(ordinal).c_str(), a), a);
    set_path(pod, "spec.hostname", json(name.c_str(), a), a);
    if (const std::string service = string_at(set.doc, "spec.serviceName"); !service.empty())
        set_path(pod, "spec.subdomain", json(service.c_str(), a), a);
    return pod;
}

// A StatefulSet's ControllerRevisions (upstream's controller history): one per template it has
// had, named `<set>-<hash>`, labelled with the template's labels and controller.kubernetes.io/hash,
// holding the template as the patch upstream's getPatch makes, numbered in the order of use (a
// template used again — a rollback — gets the next number). Beyond spec.revisionHistoryLimit the
// oldest revisions no pod and neither status revision uses go.
class revision_history {
  public:
    revision_history(object_store& store, const stored_object& set)
        : store_(store), set_(set), revisions_(store.find("apps", "v1", "controllerrevisions")) {
        if (!revisions_) return;
        const std::string uid = uid_of(set);
        for (const auto& [key, o] : namespace_range(*revisions_, set.namespace_))
            if (controlled_by(*o, uid)) owned_.push_back(o);
    }

    // The revision of the set's current template, made or renumbered when needed.
    void record(const std::string& name, const std::string& hash) {
        if (!revisions_) return;
        std::int64_t last = 0;
        object_ptr existing;
        for (const auto& o : owned_) {
            last = std::max(last, int_at(o->doc, "revision"));
            if (o->name == name) existing = o;
        }
        if (existing) {
            if (int_at(existing->doc, "revision") == last) return;
            json_doc next = clone(existing->doc);
            set_path(next, "revision", json(last + 1), next.GetAllocator());
            (void)store_.update(*revisions_, set_.namespace_, name, std::move(next),
                                write_mode::main);
            return;
        }
        json_doc doc(rapidjson::kObjectType);
        auto& a = doc.GetAllocator();
        set_path(doc, "metadata.name", json(name.c_str(), a), a);
        json labels(rapidjson::kObjectType);
        if (const json* own = find_path(set_.doc, "spec.template.metadata.labels");
            own && own->IsObject())
            labels.CopyFrom(*own, a);
        labels.RemoveMember("controller.kubernetes.io/hash");
        labels.AddMember("controller.kubernetes.io/hash", json(hash.c_str(), a), a);
        set_path(doc, "metadata.labels", std::move(labels), a);
        json owners(rapidjson::kArrayType);
        owners.PushBack(owner_reference(set_, a), a);
        set_path(doc, "metadata.ownerReferences", std::move(owners), a);
        json pod_template(*find_path(set_.doc, "spec.template"), a);
        if (pod_template.IsObject()) pod_template.AddMember("$patch", "replace", a);
        set_path(doc, "data.spec.template", std::move(pod_template), a);
        doc.AddMember("revision", json(last + 1), a);
        if (auto made = store_.create(*revisions_, set_.namespace_, std::move(doc)))
            owned_.push_back(*made);
    }

    // The template a revision holds; nullptr when it is not kept.
    const json* template_of(const std::string& name) const {
        for (const auto& o : owned_)
            if (o->name == name) return find_path(o->doc, "data.spec.template");
        return nullptr;
    }

    void truncate(const std::set<std::string>& in_use) {
        if (!revisions_) return;
        std::vector<object_ptr> old;
        for (const auto& o : owned_)
            if (!in_use.count(o->name)) old.push_back(o);
        const auto keep = static_cast<std::size_t>(
            std::max<std::int64_t>(0, int_at(set_.doc, "spec.revisionHistoryLimit", 10)));
        if (old.size() <= keep) return;
        std::sort(old.begin(), old.end(), [](const object_ptr& x, const object_ptr& y) {
            return int_at(x->doc, "revision") < int_at(y->doc, "revision");
        });
        for (std::size_t i = 0; i + keep < old.size(); ++i)
            (void)store_.remove(*revisions_, set_.namespace_, old[i]->name);
    }

  private:
    static bool controlled_by(const stored_object& o, const std::string& uid) {
        if (const json* refs = find_path(o.doc, "metadata.ownerReferences");
            refs && refs->IsArray())
            for (const auto& ref : refs->GetArray())
                if (string_at(ref, "uid") == uid && member_of(&ref, "controller") &&
                    member_of(&ref, "controller")->IsTrue())
                    return true;
        return false;
    }

    object_store& store_;
    const stored_object& set_;
    collection* revisions_;
    std::vector<object_ptr> owned_;
};

} // namespace

void owned_objects::rebuild(object_store& store) {
    pods_.clear();
    replica_sets_.clear();
    for (const auto& [c, into] :
         {std::pair{store.find("", "v1", "pods"), &pods_},
          std::pair{store.find("apps", "v1", "replicasets"), &replica_sets_}})
        if (c)
            for (const auto& [k, o] : c->objects)
                if (std::string uid = controller_uid(*o); !uid.empty())
                    (*into)[std::move(uid)].emplace(k, o);
}

void owned_objects::track(bool pod, const watch_event& e) {
    index& into = pod ? pods_ : replica_sets_;
    const std::string key = object_store::key(e.object->namespace_, e.object->name);
    // The version before says where the object was indexed (DELETED: the object itself).
    const stored_object* before =
        std::string_view(e.type) == "DELETED" ? e.object.get() : e.previous.get();
    if (before)
        if (const auto it = into.find(controller_uid(*before)); it != into.end()) {
            it->second.erase(key);
            if (it->second.empty()) into.erase(it);
        }
    if (std::string_view(e.type) == "DELETED") return;
    if (std::string uid = controller_uid(*e.object); !uid.empty())
        into[std::move(uid)].insert_or_assign(key, e.object);
}

namespace {

std::vector<object_ptr>
values_of(const std::unordered_map<std::string, std::map<std::string, object_ptr>>& in,
          const std::string& uid) {
    std::vector<object_ptr> out;
    if (const auto it = in.find(uid); it != in.end())
        for (const auto& [key, o] : it->second)
            out.push_back(o);
    return out;
}

} // namespace

std::vector<object_ptr> owned_objects::pods(const std::string& owner_uid) const {
    return values_of(pods_, owner_uid);
}

std::vector<object_ptr> owned_objects::replica_sets(const std::string& owner_uid) const {
    return values_of(replica_sets_, owner_uid);
}

std::string now_text() {
    return core::format_rfc3339(
        std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now()));
}

json condition(const char* type, const char* status, const std::string& now, json_alloc& a,
               const char* reason, const std::string& message) {
    json c(rapidjson::kObjectType);
    c.AddMember("type", json(type, a), a);
    c.AddMember("status", json(status, a), a);
    c.AddMember("lastProbeTime", json(rapidjson::kNullType), a);
    c.AddMember("lastTransitionTime", json(now.c_str(), a), a);
    if (reason) c.AddMember("reason", json(reason, a), a);
    if (!message.empty()) c.AddMember("message", json(message.c_str(), a), a);
    return c;
}

// Upstream's rolling update (rolloutRolling): the new ReplicaSet grows while all ReplicaSets
// together stay within replicas + maxSurge; old ones shrink, unhealthy pods first, while at least
// replicas - maxUnavailable pods stay available. Recreate empties the old ones first.
void reconcile_deployment(object_store& store, const owned_objects& owned, const object_ptr& d) {
    collection* deployments = store.find("apps", "v1", "deployments");
    collection* sets = store.find("apps", "v1", "replicasets");
    if (!deployments || !sets) return;
    const std::string hash = template_hash(find_path(d->doc, "spec.template"));
    const std::int64_t desired = std::max<std::int64_t>(0, int_at(d->doc, "spec.replicas", 1));
    const bool paused =
        find_path(d->doc, "spec.paused") && find_path(d->doc, "spec.paused")->IsTrue();
    const bool recreate = string_at(d->doc, "spec.strategy.type") == "Recreate";
    const json* rolling = find_path(d->doc, "spec.strategy.rollingUpdate");
    const std::int64_t surge =
        recreate ? 0
                 : scaled_value(rolling ? find_path(*rolling, "maxSurge") : nullptr, desired, true);
    std::int64_t max_unavailable =
        recreate ? desired
                 : scaled_value(rolling ? find_path(*rolling, "maxUnavailable") : nullptr, desired,
                                false);
    if (surge == 0 && max_unavailable == 0) max_unavailable = 1;

    object_ptr current;
    std::vector<object_ptr> old;
    for (const auto& rs : owned.replica_sets(uid_of(*d))) {
        const auto h = rs->labels.find("pod-template-hash");
        if (h != rs->labels.end() && h->second == hash && !current)
            current = rs;
        else
            old.push_back(rs);
    }
    std::sort(old.begin(), old.end(), [](const object_ptr& x, const object_ptr& y) {
        return revision_of(*x) < revision_of(*y);
    });
    std::int64_t last_revision = 0;
    for (const auto& rs : old)
        last_revision = std::max(last_revision, revision_of(*rs));
    auto spec_of = [](const object_ptr& rs) { return int_at(rs->doc, "spec.replicas", 1); };
    auto pods_of = [&](const object_ptr& rs) { return owned.pods(uid_of(*rs)); };
    std::int64_t old_spec = 0;
    for (const auto& rs : old)
        old_spec += spec_of(rs);

    if (!paused) {
        if (!current) {
            current = create_replica_set(store, *sets, *d, hash, old_spec == 0 ? desired : 0,
                                         last_revision + 1, desired + surge);
        } else if (revision_of(*current) <= last_revision) { // a rollback to an older template
            current = set_replicas(store, *sets, current, spec_of(current),
                                   {{revision_annotation, std::to_string(last_revision + 1)}});
        }
        if (current && recreate) {
            for (auto& rs : old)
                rs = set_replicas(store, *sets, rs, 0);
            bool old_pods = false;
            for (const auto& rs : old)
                old_pods = old_pods || !pods_of(rs).empty();
            current = set_replicas(store, *sets, current, old_pods ? 0 : desired);
        } else if (current && old_spec == 0) {
            current = set_replicas(store, *sets, current, desired);
        } else if (current) {
            std::int64_t new_spec = std::min(desired, spec_of(current));
            if (old_spec + new_spec < desired + surge)
                new_spec = std::min(desired, new_spec + desired + surge - old_spec - new_spec);
            current = set_replicas(store, *sets, current, new_spec);
            const std::int64_t min_available = desired - max_unavailable;
            std::int64_t room =
                old_spec + new_spec - min_available - (new_spec - ready_count(pods_of(current)));
            std::int64_t available = ready_count(pods_of(current));
            for (auto& rs : old) { // unhealthy old replicas go first
                const auto& rs_pods = pods_of(rs);
                available += ready_count(rs_pods);
                const std::int64_t unhealthy = spec_of(rs) - ready_count(rs_pods);
                const std::int64_t n = std::min(room, unhealthy);
                if (n <= 0) continue;
                rs = set_replicas(store, *sets, rs, spec_of(rs) - n);
                room -= n;
            }
            for (auto& rs : old) { // then available ones, while enough stay available
                const std::int64_t n = std::min(spec_of(rs), available - min_available);
                if (n <= 0) continue;
                rs = set_replicas(store, *sets, rs, spec_of(rs) - n);
                available -= n;
            }
        }
        // The Deployment carries its new ReplicaSet's revision (kubectl rollout undo patches it).
        if (current &&
            annotation(d->doc, revision_annotation) != std::to_string(revision_of(*current))) {
            json_doc next = clone(d->doc);
            set_annotation(next, revision_annotation, std::to_string(revision_of(*current)));
            (void)store.update(*deployments, d->namespace_, d->name, std::move(next),
                               write_mode::internal);
        }
        // revisionHistoryLimit: empty old ReplicaSets beyond it go, oldest first.
        const std::int64_t keep = int_at(d->doc, "spec.revisionHistoryLimit", 10);
        std::vector<object_ptr> empty;
        for (const auto& rs : old)
            if (spec_of(rs) == 0 && pods_of(rs).empty()) empty.push_back(rs);
        for (std::size_t i = 0; static_cast<std::int64_t>(empty.size() - i) > keep; ++i)
            (void)store.remove(*sets, empty[i]->namespace_, empty[i]->name);
    }

    std::vector<object_ptr> all_pods;
    std::int64_t spec_total = 0, updated = 0;
    for (const auto& rs : old) {
        const auto& rs_pods = pods_of(rs);
        all_pods.insert(all_pods.end(), rs_pods.begin(), rs_pods.end());
        spec_total += spec_of(rs);
    }
    if (current) {
        const auto& fresh = pods_of(current);
        updated = static_cast<std::int64_t>(fresh.size());
        all_pods.insert(all_pods.end(), fresh.begin(), fresh.end());
        spec_total += spec_of(current);
    }
    // getReplicaFailures: a ReplicaSet's ReplicaFailure (the new one's first) is the Deployment's.
    const json* failure = nullptr;
    std::vector<object_ptr> sets_in_order = old;
    if (current) sets_in_order.insert(sets_in_order.begin(), current);
    for (const auto& rs : sets_in_order)
        if (const json* cs = find_path(rs->doc, "status.conditions");
            !failure && cs && cs->IsArray())
            for (const auto& c : cs->GetArray())
                if (text_at(c, "type") == "ReplicaFailure" && text_at(c, "status") == "True")
                    failure = &c;
    write_deployment_status(store, *deployments, d, desired, max_unavailable, d->name + "-" + hash,
                            spec_total, all_pods, updated, failure);
}

void reconcile_replica_set(object_store& store, const owned_objects& owned, pod_factory& factory,
                           const object_ptr& rs) {
    collection* sets = store.find("apps", "v1", "replicasets");
    collection* pods = store.find("", "v1", "pods");
    if (!sets || !pods) return;
    const std::string uid = uid_of(*rs);
    const std::int64_t desired = std::max<std::int64_t>(0, int_at(rs->doc, "spec.replicas", 1));
    // Terminating pods are not active: they are replaced, and not counted (FilterActivePods).
    auto mine = owned.pods(uid);
    std::erase_if(mine, [](const object_ptr& p) { return pod_terminating(*p); });
    const auto have = static_cast<std::int64_t>(mine.size());
    if (const std::int64_t pending = factory.creating(uid); have + pending < desired) {
        slow_start(std::min(desired - have - pending, burst_replicas), [&] {
            return factory.create_pod(*rs, pod_from_template(*rs, "", rs->name + "-"), uid);
        });
    } else if (have > desired) {
        // Unready pods first, then the newest (upstream's ActivePodsWithRanks, simplified).
        std::sort(mine.begin(), mine.end(), [](const object_ptr& x, const object_ptr& y) {
            if (pod_ready(*x) != pod_ready(*y)) return !pod_ready(*x);
            return x->rv > y->rv;
        });
        const auto now = core::wall_now();
        for (std::int64_t i = 0; i < have - desired; ++i) // deleted as through the API: graceful
            (void)delete_pod(store, *pods, mine[static_cast<std::size_t>(i)], std::nullopt, now);
        mine.erase(mine.begin(), mine.begin() + (have - desired));
    }
    json_doc status(rapidjson::kObjectType);
    auto& a = status.GetAllocator();
    const auto count = static_cast<std::int64_t>(mine.size());
    const std::int64_t ready = ready_count(mine);
    counter(status, "replicas", count, a, true);
    counter(status, "fullyLabeledReplicas", count, a);
    counter(status, "readyReplicas", ready, a);
    counter(status, "availableReplicas", ready, a);
    status.AddMember("observedGeneration", int_at(rs->doc, "metadata.generation", 1), a);
    // calculateStatus: ReplicaFailure while the last sync's create was refused.
    if (const std::string failure = factory.create_failure(uid);
        !failure.empty() && count < desired) {
        json conditions(rapidjson::kArrayType);
        conditions.PushBack(
            condition("ReplicaFailure", "True", now_text(), a, "FailedCreate", failure.c_str()), a);
        status.AddMember("conditions", conditions, a);
    }
    write_status(store, *sets, rs, std::move(status));
}

// Upstream's StatefulSet controller for the two pod management policies and both update
// strategies; a pod (re)created below a rolling update's partition gets the current revision's
// template, kept in its ControllerRevision.
void reconcile_stateful_set(object_store& store, const owned_objects& owned, pod_factory& factory,
                            const object_ptr& set) {
    collection* sets = store.find("apps", "v1", "statefulsets");
    collection* pods = store.find("", "v1", "pods");
    if (!sets || !pods) return;
    const std::string uid = uid_of(*set);
    const std::int64_t desired = std::max<std::int64_t>(0, int_at(set->doc, "spec.replicas", 1));
    const bool parallel = string_at(set->doc, "spec.podManagementPolicy") == "Parallel";
    const bool rolling = string_at(set->doc, "spec.updateStrategy.type") != "OnDelete";
    const std::int64_t partition =
        int_at(set->doc, "spec.updateStrategy.rollingUpdate.partition", 0);
    const std::string hash = template_hash(find_path(set->doc, "spec.template"));
    const std::string update_revision = set->name + "-" + hash;
    std::string current_revision = string_at(set->doc, "status.currentRevision");
    if (current_revision.empty()) current_revision = update_revision;
    revision_history history(store, *set);
    history.record(update_revision, hash);

    std::map<std::int64_t, object_ptr> by_ordinal;
    for (const auto& p : owned.pods(uid))
        if (const std::int64_t i = ordinal_of(set->name, p->name); i >= 0) by_ordinal[i] = p;
    auto revision = [](const object_ptr& p) -> std::string_view {
        const auto it = p->labels.find(revision_label);
        return it == p->labels.end() ? std::string_view() : std::string_view(it->second);
    };
    auto key = [&](std::int64_t i) { return uid + "/" + std::to_string(i); };

    // Create the missing ordinals, in order (OrderedReady waits for each to be Ready; Parallel
    // makes at most burst_replicas, in slow-start batches).
    bool waiting = false;
    std::vector<std::int64_t> missing;
    for (std::int64_t i = 0;
         i < desired && !waiting && static_cast<std::int64_t>(missing.size()) < burst_replicas;
         ++i) {
        const auto it = by_ordinal.find(i);
        if (it != by_ordinal.end()) {
            waiting = !parallel && !pod_ready(*it->second);
            continue;
        }
        if (factory.creating(key(i)) == 0) missing.push_back(i);
        waiting = !parallel;
    }
    std::size_t next = 0;
    slow_start(static_cast<std::int64_t>(missing.size()), [&] {
        const std::int64_t i = missing[next++];
        const json* current_template = history.template_of(current_revision);
        if (rolling && i < partition && current_template)
            return factory.create_pod(
                *set, stateful_pod(*set, i, current_revision, current_template), key(i));
        return factory.create_pod(*set, stateful_pod(*set, i, update_revision, nullptr), key(i));
    });
    // A terminating pod is neither Ready nor replaced until it is gone (its name comes back), and
    // OrderedReady waits for it, as upstream's controller does.
    bool all_ready = !waiting;
    bool terminating = false;
    for (const auto& [i, p] : by_ordinal) {
        terminating = terminating || pod_terminating(*p);
        all_ready = all_ready && pod_ready(*p) && !pod_terminating(*p);
    }
    // Remove ordinals beyond the replicas, highest first, gracefully as through the API
    // (OrderedReady: one at a time, and only while every other pod is Ready).
    const auto now = core::wall_now();
    std::vector<std::int64_t> condemned;
    for (auto it = by_ordinal.rbegin(); it != by_ordinal.rend() && it->first >= desired; ++it)
        condemned.push_back(it->first);
    for (const std::int64_t i : condemned) {
        if (pod_terminating(*by_ordinal[i])) {
            if (!parallel) break; // the one going is waited for
            continue;
        }
        if (!parallel && !all_ready) break;
        (void)delete_pod(store, *pods, by_ordinal[i], std::nullopt, now);
        by_ordinal.erase(i);
        if (!parallel) break;
    }
    // A rolling update replaces one pod at a time, from the highest ordinal down to the partition,
    // once every pod is Ready; the creation above brings it back at the new revision.
    if (rolling && all_ready && !terminating &&
        static_cast<std::int64_t>(by_ordinal.size()) == desired) {
        for (auto it = by_ordinal.rbegin(); it != by_ordinal.rend(); ++it) {
            if (it->first < partition || revision(it->second) == update_revision) continue;
            (void)delete_pod(store, *pods, it->second, std::nullopt, now);
            by_ordinal.erase(it->first);
            break;
        }
    }

    std::int64_t ready = 0, current = 0, updated = 0;
    for (const auto& [i, p] : by_ordinal) {
        ready += pod_ready(*p) && !pod_terminating(*p) ? 1 : 0;
        current += revision(p) == current_revision ? 1 : 0;
        updated += revision(p) == update_revision ? 1 : 0;
    }
    if (updated == desired && ready == desired &&
        static_cast<std::int64_t>(by_ordinal.size()) == desired) {
        current_revision = update_revision; // the update is complete
        current = updated;
    }
    std::set<std::string> in_use{current_revision, update_revision};
    for (const auto& [i, p] : by_ordinal)
        in_use.emplace(revision(p));
    history.truncate(in_use);
    json_doc status(rapidjson::kObjectType);
    auto& a = status.GetAllocator();
    status.AddMember("observedGeneration", int_at(set->doc, "metadata.generation", 1), a);
    counter(status, "replicas", static_cast<std::int64_t>(by_ordinal.size()), a, true);
    counter(status, "readyReplicas", ready, a);
    counter(status, "currentReplicas", current, a);
    counter(status, "updatedReplicas", updated, a);
    status.AddMember("currentRevision", json(current_revision.c_str(), a), a);
    status.AddMember("updateRevision", json(update_revision.c_str(), a), a);
    status.AddMember("collisionCount", 0, a);
    counter(status, "availableReplicas", ready, a, true);
    write_status(store, *sets, set, std::move(status));
}

namespace {

// The node a daemon pod is for: where it runs, else where its node affinity pins it.
std::string target_node(const stored_object& pod) {
    if (std::string node = string_at(pod.doc, "spec.nodeName"); !node.empty()) return node;
    const json* terms = find_path(pod.doc, "spec.affinity.nodeAffinity."
                                           "requiredDuringSchedulingIgnoredDuringExecution."
                                           "nodeSelectorTerms");
    if (terms && terms->IsArray() && !terms->Empty())
        if (const json* fields = member_of(&(*terms)[0], "matchFields");
            fields && fields->IsArray() && !fields->Empty()) {
            const auto values = strings_at((*fields)[0], "values");
            if (!values.empty()) return values.front();
        }
    return {};
}

// A daemon pod for `node`: the template, its revision and generation labels, the node affinity
// that pins it (upstream's ReplaceDaemonSetPodNodeNameNodeAffinity) and the tolerations every
// daemon pod gets (AddOrUpdateDaemonPodTolerations).
json_doc daemon_pod(const stored_object& set, const std::string& node, const std::string& hash) {
    json_doc pod = pod_from_template(set, "", set.name + "-");
    auto& a = pod.GetAllocator();
    set_path(pod, "metadata.labels.controller-revision-hash", json(hash.c_str(), a), a);
    set_path(pod, "metadata.labels.pod-template-generation",
             json(std::to_string(int_at(set.doc, "metadata.generation", 1)).c_str(), a), a);
    json value(rapidjson::kArrayType);
    value.PushBack(json(node.c_str(), a), a);
    json field(rapidjson::kObjectType);
    field.AddMember("key", "metadata.name", a);
    field.AddMember("operator", "In", a);
    field.AddMember("values", value, a);
    json fields(rapidjson::kArrayType);
    fields.PushBack(field, a);
    json term(rapidjson::kObjectType);
    term.AddMember("matchFields", fields, a);
    json terms(rapidjson::kArrayType);
    terms.PushBack(term, a);
    set_path(pod,
             "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
             "nodeSelectorTerms",
             std::move(terms), a);
    json* spec = const_cast<json*>(find_path(pod, "spec"));
    if (!spec || !spec->IsObject()) return pod;
    if (!spec->HasMember("tolerations") || !(*spec)["tolerations"].IsArray()) {
        spec->RemoveMember("tolerations");
        spec->AddMember("tolerations", json(rapidjson::kArrayType), a);
    }
    json& tolerations = (*spec)["tolerations"];
    for (const auto& [key, effect] :
         {std::pair{"node.kubernetes.io/not-ready", "NoExecute"},
          std::pair{"node.kubernetes.io/unreachable", "NoExecute"},
          std::pair{"node.kubernetes.io/disk-pressure", "NoSchedule"},
          std::pair{"node.kubernetes.io/memory-pressure", "NoSchedule"},
          std::pair{"node.kubernetes.io/pid-pressure", "NoSchedule"},
          std::pair{"node.kubernetes.io/unschedulable", "NoSchedule"}}) {
        json t(rapidjson::kObjectType);
        t.AddMember("key", json(rapidjson::StringRef(key)), a);
        t.AddMember("operator", "Exists", a);
        t.AddMember("effect", json(rapidjson::StringRef(effect)), a);
        tolerations.PushBack(t, a);
    }
    return pod;
}

} // namespace

// Upstream's DaemonSet controller on the simulated nodes (which carry no taints): one pod per node
// the template's nodeSelector matches; pods on other nodes and extra ones go; a RollingUpdate
// replaces a node's pod of an older template once every other daemon pod is ready (maxSurge 0:
// the old pod goes first). Simplification: maxUnavailable is taken as 1. The templates are kept
// as ControllerRevisions, as for StatefulSets.
void reconcile_daemon_set(object_store& store, const owned_objects& owned, pod_factory& factory,
                          const object_ptr& set) {
    collection* sets = store.find("apps", "v1", "daemonsets");
    collection* pods = store.find("", "v1", "pods");
    collection* nodes = store.find("", "v1", "nodes");
    if (!sets || !pods || !nodes) return;
    const std::string uid = uid_of(*set);
    const std::string hash = template_hash(find_path(set->doc, "spec.template"));
    revision_history history(store, *set);
    history.record(set->name + "-" + hash, hash);
    const json* selector_labels = find_path(set->doc, "spec.template.spec.nodeSelector");
    const core::label_map wanted =
        selector_labels ? labels_of(*selector_labels) : core::label_map{};
    std::set<std::string> eligible;
    for (const auto& [key, node] : nodes->objects) {
        const auto& labels = node->labels;
        bool fits = true;
        for (const auto& [k, v] : wanted) {
            const auto it = labels.find(k);
            fits = fits && it != labels.end() && it->second == v;
        }
        if (fits) eligible.insert(node->name);
    }
    std::map<std::string, std::vector<object_ptr>> by_node;
    for (const auto& p : owned.pods(uid))
        if (!pod_terminating(*p)) by_node[target_node(*p)].push_back(p);
    const auto now = core::wall_now();
    const bool rolling = string_at(set->doc, "spec.updateStrategy.type") != "OnDelete";
    std::int64_t misscheduled = 0;
    for (auto& [node, list] : by_node) {
        // A node that no longer fits loses its pod; a node with two keeps the oldest.
        const bool fits = eligible.count(node) > 0;
        misscheduled += fits ? 0 : static_cast<std::int64_t>(list.size());
        for (std::size_t i = fits ? 1 : 0; i < list.size(); ++i)
            (void)delete_pod(store, *pods, list[i], std::nullopt, now);
        list.resize(fits ? std::min<std::size_t>(list.size(), 1) : 0);
    }
    for (const std::string& node : eligible) {
        const std::string key = uid + "/" + node;
        if (by_node[node].empty() && factory.creating(key) == 0)
            (void)factory.create_pod(*set, daemon_pod(*set, node, hash), key);
    }
    auto revision = [](const object_ptr& p) -> std::string_view {
        const auto it = p->labels.find(revision_label);
        return it == p->labels.end() ? std::string_view() : std::string_view(it->second);
    };
    std::int64_t scheduled = 0, ready = 0, updated = 0;
    for (const auto& [node, list] : by_node)
        for (const auto& p : list) {
            if (!eligible.count(node)) continue;
            ++scheduled;
            ready += pod_ready(*p) ? 1 : 0;
            updated += revision(p) == hash ? 1 : 0;
        }
    const auto desired = static_cast<std::int64_t>(eligible.size());
    if (rolling && ready == desired)
        for (const auto& [node, list] : by_node)
            if (!list.empty() && revision(list.front()) != hash) {
                (void)delete_pod(store, *pods, list.front(), std::nullopt, now);
                break;
            }
    json_doc status(rapidjson::kObjectType);
    auto& a = status.GetAllocator();
    counter(status, "currentNumberScheduled", scheduled, a, true);
    counter(status, "numberMisscheduled", misscheduled, a, true);
    counter(status, "desiredNumberScheduled", desired, a, true);
    counter(status, "numberReady", ready, a, true);
    status.AddMember("observedGeneration", int_at(set->doc, "metadata.generation", 1), a);
    counter(status, "updatedNumberScheduled", updated, a);
    counter(status, "numberAvailable", ready, a);
    counter(status, "numberUnavailable", std::max<std::int64_t>(0, desired - ready), a);
    std::set<std::string> in_use{set->name + "-" + hash};
    for (const auto& [node, list] : by_node)
        for (const auto& p : list)
            in_use.insert(set->name + "-" + std::string(revision(p)));
    history.truncate(in_use);
    write_status(store, *sets, set, std::move(status));
}

} // namespace hpaplus::sim
