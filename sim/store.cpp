// sim/store.cpp — storage semantics of the simulated API server.
#include "sim/store.hpp"

#include "sim/pod_state.hpp"

#include <random>

namespace hpaplus::sim {
namespace {

// The namespace strategy (create and update): every namespace carries the label
// kubernetes.io/metadata.name with its own name, whatever the request said.
void label_namespace(json& body, const std::string& name, json_alloc& a) {
    auto metadata = body.FindMember("metadata");
    if (metadata == body.MemberEnd() || !metadata->value.IsObject()) return;
    auto labels = metadata->value.FindMember("labels");
    if (labels == metadata->value.MemberEnd() || !labels->value.IsObject()) {
        if (labels != metadata->value.MemberEnd()) metadata->value.RemoveMember(labels);
        metadata->value.AddMember("labels", json(rapidjson::kObjectType), a);
        labels = metadata->value.FindMember("labels");
    }
    constexpr const char* key = "kubernetes.io/metadata.name";
    if (auto l = labels->value.FindMember(key); l != labels->value.MemberEnd())
        l->value.SetString(name.c_str(), static_cast<rapidjson::SizeType>(name.size()), a);
    else
        labels->value.AddMember(json(key, a), json(name.c_str(), a), a);
}

std::string collection_key(std::string_view g, std::string_view v, std::string_view p) {
    return std::string(g) + "/" + std::string(v) + "/" + std::string(p);
}

std::string random_suffix(std::size_t n) {
    static std::mt19937_64 rng{std::random_device{}()};
    static const char alphabet[] =
        "bcdfghjklmnpqrstvwxz2456789"; // the apiserver's generateName alphabet
    std::string out;
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(alphabet[rng() % (sizeof alphabet - 1)]);
    return out;
}

// What is wrong with an object's name, in upstream's words (apimachinery's validation): a
// DNS-1123 subdomain for most kinds, a DNS-1123 label for Namespaces, a DNS-1035 label for
// Services; "" when it is fine.
std::string name_error(const resource_type& t, const std::string& name) {
    auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    const bool label = t.group.empty() && (t.plural == "namespaces" || t.plural == "services");
    const bool dns1035 = t.group.empty() && t.plural == "services";
    const std::size_t limit = label ? 63 : 253;
    if (name.size() > limit) return "must be no more than " + std::to_string(limit) + " characters";
    bool ok = !name.empty() && lower_alnum(name.front()) && lower_alnum(name.back());
    if (dns1035 && ok) ok = name.front() >= 'a' && name.front() <= 'z';
    if (ok && !label) // each dot-separated part starts and ends alphanumeric
        for (std::size_t i = 1; i + 1 < name.size(); ++i)
            if (name[i] == '.' && (!lower_alnum(name[i + 1]) || !lower_alnum(name[i - 1])))
                ok = false;
    for (char c : name)
        if (!lower_alnum(c) && c != '-' && (label || c != '.')) ok = false;
    if (ok) return "";
    if (dns1035)
        return "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
               "with an alphabetic character, and end with an alphanumeric character (e.g. "
               "'my-name',  or 'abc-123', regex used for validation is "
               "'[a-z]([-a-z0-9]*[a-z0-9])?')";
    if (label)
        return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
               "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
               "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
           "'-' or '.', and must start and end with an alphanumeric character (e.g. "
           "'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
}

void set_string(json& obj, const char* path, const std::string& value, json_alloc& a) {
    set_path(obj, path, json(value.c_str(), static_cast<rapidjson::SizeType>(value.size()), a), a);
}

// Whether the kind's registry strategy keeps metadata.generation: workloads, autoscalers,
// budgets, pods, webhooks, FlowSchemas, CRDs and custom resources do; ConfigMaps, Secrets,
// Services, Namespaces, ServiceAccounts, Endpoints, Events, Leases, RBAC and the like do not.
bool tracks_generation(const resource_type& t) {
    if (t.custom) return true;
    for (const char* group : {"apps", "autoscaling", "policy", "apiextensions.k8s.io",
                              "admissionregistration.k8s.io", "flowcontrol.apiserver.k8s.io"})
        if (t.group == group) return true;
    return t.group.empty() && t.plural == "pods";
}

// The status a kind's strategy gives a new object (PrepareForCreate): a pod Pending with its QoS
// class, a Service's empty load balancer, an HPA's desiredReplicas 0, the zero value of the other
// built-in kinds with a status (workloads, Jobs, quotas, budgets, ...).
void set_created_status(const resource_type& t, json_doc& body) {
    auto& a = body.GetAllocator();
    if (t.group.empty() && t.plural == "pods") {
        json status(rapidjson::kObjectType);
        status.AddMember("phase", "Pending", a);
        status.AddMember("qosClass", json(qos_class(body).c_str(), a), a);
        set_path(body, "status", std::move(status), a);
    } else if (t.group.empty() && t.plural == "services") {
        json status(rapidjson::kObjectType);
        status.AddMember("loadBalancer", json(rapidjson::kObjectType), a);
        set_path(body, "status", std::move(status), a);
    } else if (t.group == "autoscaling" && t.plural == "horizontalpodautoscalers") {
        json status(rapidjson::kObjectType);
        status.AddMember("desiredReplicas", 0, a);
        set_path(body, "status", std::move(status), a);
    } else if (t.status_subresource && !t.custom && t.plural != "nodes" &&
               t.plural != "namespaces" && t.plural != "customresourcedefinitions") {
        // The strategies' PrepareForCreate reset status to the type's zero value: `{}`, and a
        // disruption budget's counters, which JSON always carries.
        json status(rapidjson::kObjectType);
        if (t.group == "policy" && t.plural == "poddisruptionbudgets")
            for (const char* counter :
                 {"disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"})
                status.AddMember(json(rapidjson::StringRef(counter)), json(0), a);
        set_path(body, "status", std::move(status), a);
    }
}

// The object without metadata (and without status when `drop_status`): what generation tracks.
json_doc content_of(const json& obj, bool drop_status) {
    json_doc copy = clone(obj);
    erase_path(copy, "metadata");
    if (drop_status) erase_path(copy, "status");
    return copy;
}

std::optional<api_error> check_type_fields(const collection& c, const json& body) {
    const std::string api_version = string_at(body, "apiVersion");
    const std::string kind = string_at(body, "kind");
    if (!api_version.empty() && api_version != c.type.group_version())
        return bad_request("the API version in the data (" + api_version +
                           ") does not match the expected API version (" + c.type.group_version() +
                           ")");
    if (!kind.empty() && kind != c.type.kind)
        return bad_request("the kind in the data (" + kind +
                           ") does not match the expected kind (" + c.type.kind + ")");
    return std::nullopt;
}

} // namespace

std::string generated_name(std::string_view prefix) {
    return std::string(prefix) + random_suffix(5);
}

std::string new_uid() {
    static std::mt19937_64 rng{std::random_device{}()};
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < 32; ++i) {
        if (i == 8 || i == 12 || i == 16 || i == 20) out.push_back('-');
        out.push_back(i == 12   ? '4'
                      : i == 16 ? "89ab"[rng() % 4]
                                : hex[rng() % 16]); // version 4, RFC 4122 variant
    }
    return out;
}

object_store::object_store(clock now, std::size_t log_capacity)
    : now_(std::move(now)), log_capacity_(log_capacity) {}

collection* object_store::find(std::string_view group, std::string_view version,
                               std::string_view plural) {
    const auto it = collections_.find(collection_key(group, version, plural));
    if (it != collections_.end()) return &it->second;
    for (auto& [k, c] : collections_) // a version served by conversion
        if (c.type.plural == plural && c.type.serves(group, version)) return &c;
    return nullptr;
}

collection& object_store::add_type(resource_type type) {
    const std::string k = collection_key(type.group, type.version, type.plural);
    auto it = collections_.find(k);
    if (it != collections_.end()) {
        it->second.type = std::move(type); // a CRD update may change columns or subresources
        return it->second;
    }
    collection c;
    c.type = std::move(type);
    c.compacted_rv = rv_;
    return collections_.emplace(k, std::move(c)).first->second;
}

void object_store::remove_type(std::string_view group, std::string_view version,
                               std::string_view plural) {
    const auto it = collections_.find(collection_key(group, version, plural));
    if (it == collections_.end()) return;
    for (const auto& [object_key, o] : it->second.objects)
        stored_bytes_ -= o->text.size();
    collections_.erase(it);
}

std::vector<collection*> object_store::collections() {
    std::vector<collection*> out;
    for (auto& [k, c] : collections_)
        out.push_back(&c);
    return out;
}

object_ptr object_store::seal(json_doc doc, std::uint64_t rv) const {
    auto o = std::make_shared<stored_object>();
    o->namespace_ = string_at(doc, "metadata.namespace");
    o->name = string_at(doc, "metadata.name");
    o->labels = labels_at(doc, "metadata.labels");
    o->rv = rv;
    o->text = to_string(doc);
    o->pool = std::make_unique<json_alloc>(2 * o->text.size() + 256);
    o->doc = json_doc(o->pool.get());
    o->doc.CopyFrom(doc, *o->pool);
    return o;
}

void object_store::publish(collection& c, const char* type, object_ptr object,
                           object_ptr previous) {
    c.log.push_back({object->rv, type, std::move(object), std::move(previous)});
    while (c.log.size() > log_capacity_) {
        c.compacted_rv = c.log.front().rv;
        c.log.pop_front();
    }
    const watch_event& event = c.log.back();
    for (auto& o : observers_)
        o(c, event);
}

api_result<object_ptr> object_store::create(collection& c, const std::string& ns, json_doc body,
                                            const write_origin* origin) {
    const resource_type& t = c.type;
    if (!body.IsObject()) return bad_request("the body of the request must be a JSON object");
    if (auto e = check_type_fields(c, body)) return *e;
    auto& a = body.GetAllocator();
    if (!find_path(body, "metadata") || !find_path(body, "metadata")->IsObject())
        set_path(body, "metadata", json(rapidjson::kObjectType), a);
    std::string name = string_at(body, "metadata.name");
    if (name.empty()) {
        const std::string generate = string_at(body, "metadata.generateName");
        if (generate.empty())
            return invalid(t, "",
                           {{"metadata.name", "Required value: name or generateName is required"}});
        // The API server tries up to 8 names before it answers AlreadyExists (RetryGenerateName,
        // on by default since 1.31).
        const std::string object_ns = t.namespaced ? ns : "";
        for (int attempt = 0;
             attempt < 8 && (name.empty() || c.objects.count(key(object_ns, name))); ++attempt)
            name = generated_name(generate);
    }
    // RBAC objects need only be a path segment (ValidateRBACName): `system:discovery`.
    if (t.group == "rbac.authorization.k8s.io") {
        if (name == "." || name == ".." || name.find_first_of("/%") != std::string::npos)
            return invalid(t, name,
                           {{"metadata.name", "Invalid value: \"" + name +
                                                  "\": may not be '.' or '..', or contain '/' "
                                                  "or '%'"}});
    } else if (std::string why = name_error(t, name); !why.empty())
        return invalid(t, name, {{"metadata.name", "Invalid value: \"" + name + "\": " + why}});
    const std::string body_ns = string_at(body, "metadata.namespace");
    if (t.namespaced) {
        if (!body_ns.empty() && body_ns != ns)
            return bad_request("the namespace of the provided object does not match the namespace "
                               "sent on the request");
        if (collection* namespaces = find("", "v1", "namespaces"); namespaces) {
            const object_ptr owner = get(*namespaces, "", ns);
            if (!owner)
                return api_error{404, "NotFound",  "namespaces \"" + ns + "\" not found",
                                 ns,  "",          "namespaces",
                                 {},  std::nullopt};
            // NamespaceLifecycle admission: nothing new in a namespace being deleted.
            if (find_path(owner->doc, "metadata.deletionTimestamp")) {
                const std::string what = t.plural + (name.empty() ? "" : " \"" + name + "\"");
                return api_error{
                    403,
                    "Forbidden",
                    what + " is forbidden: unable to create new content in namespace " + ns +
                        " because it is being terminated",
                    name,
                    t.group,
                    t.plural,
                    {{"NamespaceTerminating", "namespace " + ns + " is being terminated",
                      "metadata.namespace"}},
                    std::nullopt};
            }
        }
    }
    const std::string object_ns = t.namespaced ? ns : "";
    if (c.objects.count(key(object_ns, name))) return already_exists(t, name);
    if (stored_bytes_ >= quota_bytes_)
        return api_error{500,  "InternalError", "etcdserver: mvcc: database space exceeded",
                         name, t.group,         t.plural,
                         {},   std::nullopt};

    set_string(body, "apiVersion", t.group_version(), a);
    set_string(body, "kind", t.kind, a);
    set_string(body, "metadata.name", name, a);
    if (t.namespaced)
        set_string(body, "metadata.namespace", ns, a);
    else
        erase_path(body, "metadata.namespace");
    set_string(body, "metadata.uid", origin && !origin->uid.empty() ? origin->uid : new_uid(), a);
    set_string(body, "metadata.creationTimestamp", core::format_rfc3339(now_()), a);
    if (tracks_generation(t))
        set_path(body, "metadata.generation", json(static_cast<std::int64_t>(1)), a);
    else
        erase_path(body, "metadata.generation");
    erase_path(body, "metadata.deletionTimestamp");
    if (t.status_subresource) erase_path(body, "status"); // status is the controllers' to write
    set_created_status(t, body);
    if (t.group.empty() && t.plural == "namespaces") {
        label_namespace(body, name, a);
        // The namespace strategy's PrepareForCreate: Active, finalized by the API server.
        set_string(body, "status.phase", "Active", a);
        json finalizers(rapidjson::kArrayType);
        finalizers.PushBack("kubernetes", a);
        set_path(body, "spec.finalizers", std::move(finalizers), a);
    }
    erase_path(body, "metadata.managedFields");
    if (origin) record_write(body, nullptr, *origin, false, now_());
    const std::uint64_t rv = ++rv_;
    set_string(body, "metadata.resourceVersion", std::to_string(rv), a);
    object_ptr stored = seal(std::move(body), rv);
    stored_bytes_ += stored->text.size();
    c.objects[key(object_ns, name)] = stored;
    publish(c, "ADDED", stored);
    return stored;
}

api_result<object_ptr> object_store::update(collection& c, const std::string& ns,
                                            const std::string& name, json_doc body, write_mode mode,
                                            const write_origin* origin) {
    const resource_type& t = c.type;
    const std::string object_ns = t.namespaced ? ns : "";
    const auto it = c.objects.find(key(object_ns, name));
    if (it == c.objects.end()) return not_found(t, name);
    const object_ptr& existing = it->second;
    if (!body.IsObject()) return bad_request("the body of the request must be a JSON object");
    if (auto e = check_type_fields(c, body)) return *e;
    const std::string body_name = string_at(body, "metadata.name");
    if (!body_name.empty() && body_name != name)
        return bad_request("the name of the object (" + body_name +
                           ") does not match the name on the URL (" + name + ")");

    const bool internal = mode == write_mode::internal || mode == write_mode::internal_status;
    const std::string body_rv = string_at(body, "metadata.resourceVersion");
    if (!internal) {
        if (!body_rv.empty() && body_rv != std::to_string(existing->rv)) return conflict(t, name);
        if (body_rv.empty() && t.custom)
            return invalid(t, name,
                           {{"metadata.resourceVersion",
                             "Invalid value: 0x0: must be specified for an update"}});
    }

    // Start from the stored object and take what this kind of write may change.
    json_doc next = clone(existing->doc);
    auto& a = next.GetAllocator();
    const bool status_write = mode == write_mode::status || mode == write_mode::internal_status;
    if (status_write) {
        if (const json* status = find_path(body, "status"))
            set_path(next, "status", json(*status, a), a);
        else
            erase_path(next, "status");
    } else {
        json_doc incoming = clone(body);
        auto& ia = incoming.GetAllocator();
        if (t.status_subresource) {
            if (const json* status = find_path(existing->doc, "status"))
                set_path(incoming, "status", json(*status, ia), ia);
            else
                erase_path(incoming, "status");
        }
        // System metadata stays the server's (a deletion it starts itself sets the timestamp).
        for (const char* field :
             {"metadata.uid", "metadata.creationTimestamp", "metadata.generation",
              "metadata.namespace", "metadata.deletionTimestamp", "metadata.managedFields"}) {
            if (internal && std::string_view(field) == "metadata.deletionTimestamp") continue;
            if (const json* v = find_path(existing->doc, field))
                set_path(incoming, field, json(*v, ia), ia);
            else
                erase_path(incoming, field);
        }
        set_string(incoming, "metadata.name", name, ia);
        set_string(incoming, "apiVersion", t.group_version(), ia);
        set_string(incoming, "kind", t.kind, ia);
        next = std::move(incoming);
    }
    auto& na = next.GetAllocator();
    if (t.group.empty() && t.plural == "namespaces") label_namespace(next, name, na);
    // A write that changes nothing is not stored, as on the API server: no new resourceVersion,
    // no watch event, managed fields untouched (their timestamps alone do not make a change).
    set_string(next, "metadata.resourceVersion", std::to_string(existing->rv), na);
    // An apply that changes only who owns what is stored (its managedFields are its result).
    const bool applied = origin && origin->applied_fields;
    if (applied)
        record_write(next, find_path(existing->doc, "metadata.managedFields"), *origin,
                     status_write, now_());
    if (equal(next, existing->doc)) return existing;
    if (origin && !applied)
        record_write(next, find_path(existing->doc, "metadata.managedFields"), *origin,
                     status_write, now_());
    // generation counts changes to everything but metadata (and status, when it has its own
    // endpoint)
    if (tracks_generation(t) && !equal(content_of(existing->doc, t.status_subresource),
                                       content_of(next, t.status_subresource))) {
        const json* g = find_path(existing->doc, "metadata.generation");
        const std::int64_t gen = g && g->IsInt64() ? g->GetInt64() : 1;
        set_path(next, "metadata.generation", json(gen + 1), na);
    }
    const std::uint64_t rv = ++rv_;
    set_string(next, "metadata.resourceVersion", std::to_string(rv), na);
    object_ptr stored = seal(std::move(next), rv);
    object_ptr previous = it->second;
    stored_bytes_ += stored->text.size() - previous->text.size();
    it->second = stored;
    publish(c, "MODIFIED", stored, std::move(previous));
    return stored;
}

api_result<object_ptr> object_store::remove(collection& c, const std::string& ns,
                                            const std::string& name) {
    const std::string object_ns = c.type.namespaced ? ns : "";
    const auto it = c.objects.find(key(object_ns, name));
    if (it == c.objects.end()) return not_found(c.type, name);
    json_doc last = clone(it->second->doc);
    const std::uint64_t rv = ++rv_;
    set_string(last, "metadata.resourceVersion", std::to_string(rv), last.GetAllocator());
    object_ptr stored = seal(std::move(last), rv);
    stored_bytes_ -= it->second->text.size();
    c.objects.erase(it);
    publish(c, "DELETED", stored);
    return stored;
}

object_ptr object_store::get(const collection& c, const std::string& ns,
                             const std::string& name) const {
    const auto it = c.objects.find(key(c.type.namespaced ? ns : "", name));
    return it == c.objects.end() ? nullptr : it->second;
}

std::optional<std::size_t> object_store::first_event_after(const collection& c,
                                                           std::uint64_t rv) const {
    if (rv < c.compacted_rv) return std::nullopt;
    std::size_t i = c.log.size();
    while (i > 0 && c.log[i - 1].rv > rv)
        --i;
    return i;
}

void object_store::compact(collection& c) {
    // Advance the version so that even the newest version seen so far is now too old to resume
    // from, while a fresh list or watch (which starts at the new version) works.
    c.compacted_rv = ++rv_;
    c.log.clear();
}

store_snapshot object_store::snapshot() const {
    store_snapshot s;
    s.rv = rv_;
    for (const auto& [k, c] : collections_)
        s.objects.emplace(k, c.objects);
    return s;
}

void object_store::restore(const store_snapshot& s) {
    rv_ = s.rv;
    ++restores_;
    stored_bytes_ = 0;
    for (auto& [k, c] : collections_) {
        const auto it = s.objects.find(k);
        c.objects = it == s.objects.end() ? std::map<std::string, object_ptr>{} : it->second;
        for (const auto& [object_key, o] : c.objects)
            stored_bytes_ += o->text.size();
        c.log.clear();
        c.compacted_rv = rv_;
    }
}

object_range namespace_range(const collection& c, const std::string& ns) {
    if (ns.empty()) return {c.objects.begin(), c.objects.end()};
    const std::string prefix = ns + "/";
    auto first = c.objects.lower_bound(prefix);
    auto last = first;
    while (last != c.objects.end() && last->first.compare(0, prefix.size(), prefix) == 0)
        ++last;
    return {first, last};
}

} // namespace hpaplus::sim
