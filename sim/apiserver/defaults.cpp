// sim/apiserver/defaults.cpp — upstream's defaulting of pods, workloads and HPAs.
#include "sim/apiserver/defaults.hpp"

#include "sim/apiserver/hpa_versions.hpp"

#include "net/base64.hpp"

#include <string_view>

namespace hpaplus::sim {
namespace {

// The member `key` of `object` when `object` is an object (created as `kind` when absent), or
// nullptr when `object` or an existing member has another type.
json* member(json* object, const char* key, json_alloc& a,
             rapidjson::Type kind = rapidjson::kObjectType) {
    if (!object || !object->IsObject()) return nullptr;
    auto it = object->FindMember(key);
    if (it == object->MemberEnd()) {
        object->AddMember(json(key, a), json(kind), a);
        it = object->FindMember(key);
    }
    return it->value.GetType() == kind ? &it->value : nullptr;
}

void set_default(json* object, const char* key, json value, json_alloc& a) {
    if (object && object->IsObject() && !object->HasMember(key))
        object->AddMember(json(key, a), value, a);
}

void set_default(json* object, const char* key, const char* text, json_alloc& a) {
    set_default(object, key, json(text, a), a);
}

// parsers.ParseImageName: the tag follows the last ':' after the last '/'; no tag and no digest
// means "latest".
bool pulls_always(std::string_view image) {
    const auto at = image.find('@');
    const bool digest = at != std::string_view::npos;
    if (digest) image = image.substr(0, at);
    const auto slash = image.rfind('/');
    const auto colon = image.rfind(':');
    const bool tagged =
        colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash);
    if (!tagged) return !digest;
    return image.substr(colon + 1) == "latest";
}

void default_probe(json* container, const char* key, json_alloc& a) {
    if (!container || !container->HasMember(key) || !(*container)[key].IsObject()) return;
    json* probe = &(*container)[key];
    set_default(probe, "timeoutSeconds", json(1), a);
    set_default(probe, "periodSeconds", json(10), a);
    set_default(probe, "successThreshold", json(1), a);
    set_default(probe, "failureThreshold", json(3), a);
    if (probe->HasMember("httpGet") && (*probe)["httpGet"].IsObject()) {
        json* get = &(*probe)["httpGet"];
        set_default(get, "path", "/", a);
        set_default(get, "scheme", "HTTP", a);
    }
}

void default_container(json& c, json_alloc& a) {
    if (!c.IsObject()) return;
    set_default(&c, "terminationMessagePath", "/dev/termination-log", a);
    set_default(&c, "terminationMessagePolicy", "File", a);
    if (!c.HasMember("imagePullPolicy") && c.HasMember("image") && c["image"].IsString()) {
        const std::string_view image(c["image"].GetString(), c["image"].GetStringLength());
        set_default(&c, "imagePullPolicy", pulls_always(image) ? "Always" : "IfNotPresent", a);
    }
    if (c.HasMember("ports") && c["ports"].IsArray())
        for (auto& port : c["ports"].GetArray())
            set_default(&port, "protocol", "TCP", a);
    for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"})
        default_probe(&c, probe, a);
    if (!c.HasMember("resources")) c.AddMember("resources", json(rapidjson::kObjectType), a);
}

// SetDefaults_PodSpec and its containers: what pods and pod templates both get.
void default_pod_spec(json* spec, json_alloc& a) {
    if (!spec || !spec->IsObject()) return;
    set_default(spec, "restartPolicy", "Always", a);
    set_default(spec, "dnsPolicy", "ClusterFirst", a);
    set_default(spec, "terminationGracePeriodSeconds", json(30), a);
    set_default(spec, "schedulerName", "default-scheduler", a);
    set_default(spec, "securityContext", json(rapidjson::kObjectType), a);
    for (const char* list : {"containers", "initContainers"})
        if (spec->HasMember(list) && (*spec)[list].IsArray())
            for (auto& c : (*spec)[list].GetArray())
                default_container(c, a);
}

void default_template(json& workload, json_alloc& a) {
    default_pod_spec(member(member(member(&workload, "spec", a), "template", a), "spec", a), a);
}

// SetDefaults_Pod (requests from limits, service links) and the admission plugins every pod
// passes on a real cluster: ServiceAccount, DefaultTolerationSeconds (Priority:
// sim/apiserver/priority).
void default_pod(json& pod, json_alloc& a) {
    json* spec = member(&pod, "spec", a);
    default_pod_spec(spec, a);
    if (!spec) return;
    set_default(spec, "enableServiceLinks", json(true), a);
    set_default(spec, "serviceAccountName", "default", a);
    set_default(spec, "serviceAccount", "default", a);
    for (const char* list : {"containers", "initContainers"}) {
        if (!spec->HasMember(list) || !(*spec)[list].IsArray()) continue;
        for (auto& c : (*spec)[list].GetArray()) {
            json* resources = member(&c, "resources", a);
            const json* limits =
                resources && resources->HasMember("limits") && (*resources)["limits"].IsObject()
                    ? &(*resources)["limits"]
                    : nullptr;
            if (!limits) continue;
            json* requests = member(resources, "requests", a);
            for (const auto& limit : limits->GetObject())
                if (requests && !requests->HasMember(limit.name))
                    requests->AddMember(json(limit.name, a), json(limit.value, a), a);
        }
    }
    json* tolerations = member(spec, "tolerations", a, rapidjson::kArrayType);
    if (!tolerations) return;
    for (const char* taint : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
        bool tolerated = false;
        for (const auto& t : tolerations->GetArray())
            tolerated = tolerated || (t.IsObject() && string_at(t, "key") == taint);
        if (tolerated) continue;
        json t(rapidjson::kObjectType);
        t.AddMember("key", json(taint, a), a);
        t.AddMember("operator", "Exists", a);
        t.AddMember("effect", "NoExecute", a);
        t.AddMember("tolerationSeconds", 300, a);
        tolerations->PushBack(t, a);
    }
}

void default_deployment(json& d, json_alloc& a) {
    json* spec = member(&d, "spec", a);
    set_default(spec, "replicas", json(1), a);
    set_default(spec, "revisionHistoryLimit", json(10), a);
    set_default(spec, "progressDeadlineSeconds", json(600), a);
    json* strategy = member(spec, "strategy", a);
    set_default(strategy, "type", "RollingUpdate", a);
    if (strategy && string_at(*strategy, "type") == "RollingUpdate") {
        json* rolling = member(strategy, "rollingUpdate", a);
        set_default(rolling, "maxUnavailable", "25%", a);
        set_default(rolling, "maxSurge", "25%", a);
    }
    default_template(d, a);
}

void default_statefulset(json& s, json_alloc& a) {
    json* spec = member(&s, "spec", a);
    set_default(spec, "replicas", json(1), a);
    set_default(spec, "revisionHistoryLimit", json(10), a);
    set_default(spec, "podManagementPolicy", "OrderedReady", a);
    json* strategy = member(spec, "updateStrategy", a);
    set_default(strategy, "type", "RollingUpdate", a);
    if (strategy && string_at(*strategy, "type") == "RollingUpdate")
        set_default(member(strategy, "rollingUpdate", a), "partition", json(0), a);
    json* retention = member(spec, "persistentVolumeClaimRetentionPolicy", a);
    set_default(retention, "whenDeleted", "Retain", a);
    set_default(retention, "whenScaled", "Retain", a);
    default_template(s, a);
}

void default_daemonset(json& d, json_alloc& a) {
    json* spec = member(&d, "spec", a);
    json* strategy = member(spec, "updateStrategy", a);
    set_default(strategy, "type", "RollingUpdate", a);
    if (strategy && string_at(*strategy, "type") == "RollingUpdate") {
        json* rolling = member(strategy, "rollingUpdate", a);
        set_default(rolling, "maxUnavailable", json(1), a);
        set_default(rolling, "maxSurge", json(0), a);
    }
    set_default(spec, "revisionHistoryLimit", json(10), a);
    default_template(d, a);
}

// SetDefaults_Job (parallelism and completions 1 when neither is set, backoffLimit 6, NonIndexed,
// not suspended, pods replaced once terminated or failed).
void default_job(json& job, json_alloc& a) {
    json* spec = member(&job, "spec", a);
    if (!spec) return;
    if (!spec->HasMember("completions") && !spec->HasMember("parallelism"))
        spec->AddMember("completions", json(1), a);
    set_default(spec, "parallelism", json(1), a);
    set_default(spec, "backoffLimit",
                json(spec->HasMember("backoffLimitPerIndex") ? 2147483647 : 6), a);
    set_default(spec, "completionMode", "NonIndexed", a);
    set_default(spec, "suspend", json(false), a);
    set_default(spec, "podReplacementPolicy",
                spec->HasMember("podFailurePolicy") ? "Failed" : "TerminatingOrFailed", a);
    default_template(job, a);
}

// SetDefaults_NetworkPolicy: Ingress always, Egress when there are egress rules; ports are TCP.
void default_network_policy(json& policy, json_alloc& a) {
    json* spec = member(&policy, "spec", a);
    if (!spec) return;
    const json* egress = member_of(spec, "egress");
    const bool egress_rules = egress && egress->IsArray() && !egress->Empty();
    if (const json* types = member_of(spec, "policyTypes");
        !types || !types->IsArray() || types->Empty()) {
        json list(rapidjson::kArrayType);
        list.PushBack("Ingress", a);
        if (egress_rules) list.PushBack("Egress", a);
        spec->RemoveMember("policyTypes");
        spec->AddMember("policyTypes", list, a);
    }
    for (const char* direction : {"ingress", "egress"}) {
        auto rules = spec->FindMember(direction);
        if (rules == spec->MemberEnd() || !rules->value.IsArray()) continue;
        for (auto& rule : rules->value.GetArray()) {
            if (!rule.IsObject() || !rule.HasMember("ports") || !rule["ports"].IsArray()) continue;
            for (auto& port : rule["ports"].GetArray())
                set_default(&port, "protocol", "TCP", a);
        }
    }
}

// A Service: what the real server defaults and allocates (a ClusterIP, here derived from the
// Service's name so that every write of it gets the same one).
void default_service(json& service, json_alloc& a) {
    json* spec = member(&service, "spec", a);
    if (!spec) return;
    set_default(spec, "type", "ClusterIP", a);
    set_default(spec, "sessionAffinity", "None", a);
    set_default(spec, "internalTrafficPolicy", "Cluster", a);
    if (string_at(*spec, "type") != "ExternalName") {
        std::uint64_t h = 1469598103934665603ull;
        for (unsigned char c : string_at(service, "metadata.name"))
            h = (h ^ c) * 1099511628211ull;
        const std::string ip =
            "10.96." + std::to_string(h % 250) + "." + std::to_string((h / 250) % 250 + 1);
        if (string_at(*spec, "clusterIP") != "None") set_default(spec, "clusterIP", ip.c_str(), a);
        json ips(rapidjson::kArrayType);
        ips.PushBack(json(string_at(*spec, "clusterIP").c_str(), a), a);
        set_default(spec, "clusterIPs", std::move(ips), a);
        json families(rapidjson::kArrayType);
        families.PushBack("IPv4", a);
        set_default(spec, "ipFamilies", std::move(families), a);
        set_default(spec, "ipFamilyPolicy", "SingleStack", a);
    }
    if (spec->HasMember("ports") && (*spec)["ports"].IsArray())
        for (auto& port : (*spec)["ports"].GetArray()) {
            set_default(&port, "protocol", "TCP", a);
            if (port.IsObject() && port.HasMember("port") && !port.HasMember("targetPort"))
                port.AddMember("targetPort", json(port["port"], a), a);
        }
}

// A Secret's type defaults to Opaque, and its write-only stringData is merged into data (base64,
// a stringData key winning over the same data key) and dropped, as the v1 conversion does.
void default_secret(json_doc& secret, json_alloc& a) {
    set_default(&secret, "type", "Opaque", a);
    const auto string_data = secret.FindMember("stringData");
    if (string_data == secret.MemberEnd()) return;
    if (string_data->value.IsObject() && string_data->value.MemberCount() > 0) {
        if (auto d = secret.FindMember("data"); d != secret.MemberEnd() && d->value.IsNull())
            d->value.SetObject();
        json* data = member(&secret, "data", a);
        if (!data) return; // data of another type: the 400 of a wrong type (validation)
        for (const auto& [k, v] : string_data->value.GetObject()) {
            if (!v.IsString()) continue;
            const std::string encoded =
                net::base64_encode(std::string_view(v.GetString(), v.GetStringLength()));
            json value(encoded.c_str(), static_cast<rapidjson::SizeType>(encoded.size()), a);
            if (auto it = data->FindMember(k); it != data->MemberEnd())
                it->value = value;
            else
                data->AddMember(json(k, a), value, a);
        }
    }
    secret.RemoveMember("stringData");
}

} // namespace

void apply_defaults(const resource_type& type, json_doc& object) {
    if (!object.IsObject()) return;
    auto& a = object.GetAllocator();
    if (is_hpa(type)) {
        default_hpa(object);
    } else if (type.group.empty() && type.plural == "pods") {
        default_pod(object, a);
    } else if (type.group == "apps" && type.plural == "deployments") {
        default_deployment(object, a);
    } else if (type.group == "apps" && type.plural == "replicasets") {
        set_default(member(&object, "spec", a), "replicas", json(1), a);
        default_template(object, a);
    } else if (type.group == "apps" && type.plural == "statefulsets") {
        default_statefulset(object, a);
    } else if (type.group == "apps" && type.plural == "daemonsets") {
        default_daemonset(object, a);
    } else if (type.group == "batch" && type.plural == "jobs") {
        default_job(object, a);
    } else if (type.group == "networking.k8s.io" && type.plural == "networkpolicies") {
        default_network_policy(object, a);
    } else if (type.group == "scheduling.k8s.io" && type.plural == "priorityclasses") {
        set_default(&object, "preemptionPolicy", "PreemptLowerPriority", a);
    } else if (type.group.empty() && type.plural == "services") {
        default_service(object, a);
    } else if (type.group.empty() && type.plural == "secrets") {
        default_secret(object, a);
    }
}

void generate_job_selector(json_doc& job, const std::string& uid) {
    auto& a = job.GetAllocator();
    if (find_path(job, "spec.manualSelector") && find_path(job, "spec.manualSelector")->IsTrue())
        return;
    json* spec = member(&job, "spec", a);
    json* labels = member(member(member(spec, "template", a), "metadata", a), "labels", a);
    if (!labels) return;
    const std::string name = string_at(job, "metadata.name");
    for (const char* key : {"job-name", "batch.kubernetes.io/job-name"})
        set_default(labels, key, name.c_str(), a);
    for (const char* key : {"controller-uid", "batch.kubernetes.io/controller-uid"})
        set_default(labels, key, uid.c_str(), a);
    json* selector = member(spec, "selector", a);
    set_default(member(selector, "matchLabels", a), "batch.kubernetes.io/controller-uid",
                uid.c_str(), a);
    // SetDefaults_Job copies the template's labels to a Job without labels; it runs again on
    // every read from storage, so they carry the generated ones as well.
    const json* own = find_path(job, "metadata.labels");
    if (!own || !own->IsObject() || own->ObjectEmpty()) {
        json* metadata = member(&job, "metadata", a);
        if (!metadata) return;
        metadata->RemoveMember("labels");
        metadata->AddMember("labels", json(*labels, a), a);
    }
}

} // namespace hpaplus::sim
