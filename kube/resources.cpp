// kube/resources.cpp — resource paths, typed calls and fixed-shape bodies.
#include "kube/resources.hpp"

#include "kube/encode.hpp"

#include "kube/json_decoder.hpp"
#include "net/http_message.hpp"

#include <algorithm>
#include <cctype>

namespace hpaplus::kube {

namespace resources {
const resource_path pods{"", "v1", "pods", true};
const resource_path deployments{"apps", "v1", "deployments", true};
const resource_path replicasets{"apps", "v1", "replicasets", true};
const resource_path events{"", "v1", "events", true};
const resource_path leases{"coordination.k8s.io", "v1", "leases", true};
const resource_path hpas{"autoscaling", "v2", "horizontalpodautoscalers", true};
} // namespace resources

std::string resource_path::path(const std::string& ns, const std::string& name,
                                const std::string& sub) const {
    std::string p = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
    if (namespaced && !ns.empty()) p += "/namespaces/" + ns;
    p += "/" + plural;
    if (!name.empty()) p += "/" + name;
    if (!sub.empty()) p += "/" + sub;
    return p;
}

namespace {

boost::asio::awaitable<api_response> call(api_client& c, std::string method, std::string target,
                                          std::string body, std::string content_type,
                                          std::string_view fence_key = {},
                                          request_class priority = request_class::decide) {
    api_request request{std::move(method), std::move(target), std::move(body),
                        std::move(content_type)};
    request.fence_key = fence_key;
    request.priority = priority;
    return c.send(std::move(request));
}

rapidjson::Value str(const std::string& s, rapidjson::Document::AllocatorType& a) {
    return rapidjson::Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// A body's apiVersion, kind and metadata (name, namespace, resourceVersion when set).
void object_header(rapidjson::Document& doc, const char* api_version, const char* kind,
                   const std::string& name, const std::string& ns,
                   const std::string& resource_version) {
    auto& a = doc.GetAllocator();
    doc.AddMember("apiVersion", rapidjson::StringRef(api_version), a);
    doc.AddMember("kind", rapidjson::StringRef(kind), a);
    rapidjson::Value meta(rapidjson::kObjectType);
    meta.AddMember("name", str(name, a), a);
    meta.AddMember("namespace", str(ns, a), a);
    if (!resource_version.empty()) meta.AddMember("resourceVersion", str(resource_version, a), a);
    doc.AddMember("metadata", meta, a);
}

} // namespace

boost::asio::awaitable<api_response> get(api_client& c, const resource_path& r,
                                         const std::string& ns, const std::string& name) {
    return call(c, "GET", r.path(ns, name), "", "application/json");
}

boost::asio::awaitable<api_response> list(api_client& c, const resource_path& r,
                                          const std::string& ns, const std::string& label_selector,
                                          std::size_t limit, const std::string& continue_token) {
    std::string query;
    auto add = [&](const std::string& kv) { query += (query.empty() ? "?" : "&") + kv; };
    if (!label_selector.empty()) add("labelSelector=" + net::percent_encode(label_selector));
    if (limit > 0) add("limit=" + std::to_string(limit));
    if (!continue_token.empty()) add("continue=" + net::percent_encode(continue_token));
    return call(c, "GET", r.path(ns) + query, "", "application/json");
}

boost::asio::awaitable<api_response> create(api_client& c, const resource_path& r,
                                            const std::string& ns, std::string body,
                                            std::string_view fence_key, request_class priority) {
    return call(c, "POST", r.path(ns), std::move(body), "application/json", fence_key, priority);
}

boost::asio::awaitable<api_response> evict_pod(api_client& c, const std::string& ns,
                                               const std::string& name,
                                               std::string_view fence_key) {
    std::string body = R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" +
                       name + R"(","namespace":")" + ns + R"("}})";
    api_request request{"POST", resources::pods.path(ns, name, "eviction"), std::move(body),
                        "application/json"};
    request.retry_throttled = false;
    request.fence_key = fence_key;
    return c.send(std::move(request));
}

boost::asio::awaitable<api_response> update(api_client& c, const resource_path& r,
                                            const std::string& ns, const std::string& name,
                                            std::string body, const std::string& sub,
                                            std::string_view fence_key) {
    return call(c, "PUT", r.path(ns, name, sub), std::move(body), "application/json", fence_key);
}

boost::asio::awaitable<api_response> merge_patch(api_client& c, const resource_path& r,
                                                 const std::string& ns, const std::string& name,
                                                 std::string patch, const std::string& sub,
                                                 std::string_view fence_key,
                                                 request_class priority) {
    return call(c, "PATCH", r.path(ns, name, sub), std::move(patch), "application/merge-patch+json",
                fence_key, priority);
}

boost::asio::awaitable<api_response> json_patch(api_client& c, const resource_path& r,
                                                const std::string& ns, const std::string& name,
                                                std::string patch, const std::string& sub,
                                                std::string_view fence_key) {
    return call(c, "PATCH", r.path(ns, name, sub), std::move(patch), "application/json-patch+json",
                fence_key);
}

boost::asio::awaitable<api_response> remove(api_client& c, const resource_path& r,
                                            const std::string& ns, const std::string& name,
                                            std::string_view fence_key) {
    return call(c, "DELETE", r.path(ns, name), "", "application/json", fence_key);
}

namespace {

// Parses `json` into `doc` and checks it is an object of `kind` (an absent kind counts as
// `absent_kind`).
bool parse_object(rapidjson::Document& doc, const std::string& json, std::string_view kind,
                  std::string_view absent_kind) {
    if (parse_json(doc, json, "") || !doc.IsObject()) return false;
    const auto it = doc.FindMember("kind");
    if (it == doc.MemberEnd()) return kind == absent_kind;
    return it->value.IsString() && kind == it->value.GetString();
}

} // namespace

std::optional<scale_info> parse_scale(const std::string& json) {
    rapidjson::Document doc;
    if (!parse_object(doc, json, "Scale", "")) return std::nullopt;
    json_decoder d;
    const json_node root{&doc, ""};
    scale_info s;
    s.spec_replicas = d.opt_int32(root["spec"]["replicas"], 0).value_or(0);
    s.status_replicas = d.opt_int32(root["status"]["replicas"], 0).value_or(0);
    s.selector = d.opt_string(root["status"]["selector"]).value_or("");
    s.resource_version = d.opt_string(root["metadata"]["resourceVersion"]).value_or("");
    if (!d.ok()) return std::nullopt;
    return s;
}

std::string scale_body(const std::string& name, const std::string& ns, std::int32_t replicas,
                       const std::string& resource_version) {
    rapidjson::Document doc(rapidjson::kObjectType);
    object_header(doc, "autoscaling/v1", "Scale", name, ns, resource_version);
    auto& a = doc.GetAllocator();
    rapidjson::Value spec(rapidjson::kObjectType);
    spec.AddMember("replicas", replicas, a);
    doc.AddMember("spec", spec, a);
    return to_json_text(doc);
}

std::string event_body(const std::string& ns, const std::string& kind, const std::string& name,
                       const std::string& uid, const std::string& api_version,
                       const std::string& type, const std::string& reason,
                       const std::string& message, const event_source& source,
                       const std::string& now) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("apiVersion", "v1", a);
    doc.AddMember("kind", "Event", a);
    rapidjson::Value meta(rapidjson::kObjectType);
    meta.AddMember("generateName", str(name + ".", a), a); // the API server makes the name unique
    meta.AddMember("namespace", str(ns, a), a);
    doc.AddMember("metadata", meta, a);
    rapidjson::Value involved(rapidjson::kObjectType);
    involved.AddMember("kind", str(kind, a), a);
    involved.AddMember("name", str(name, a), a);
    involved.AddMember("namespace", str(ns, a), a);
    if (!uid.empty()) involved.AddMember("uid", str(uid, a), a);
    if (!api_version.empty()) involved.AddMember("apiVersion", str(api_version, a), a);
    doc.AddMember("involvedObject", involved, a);
    doc.AddMember("type", str(type, a), a);
    doc.AddMember("reason", str(reason, a), a);
    doc.AddMember("message", str(message, a), a);
    doc.AddMember("firstTimestamp", str(now, a), a);
    doc.AddMember("lastTimestamp", str(now, a), a);
    doc.AddMember("count", 1, a);
    rapidjson::Value src(rapidjson::kObjectType);
    src.AddMember("component", str(source.component, a), a);
    if (!source.host.empty()) src.AddMember("host", str(source.host, a), a);
    doc.AddMember("source", src, a);
    doc.AddMember("reportingComponent", str(source.component, a), a);
    if (!source.host.empty()) doc.AddMember("reportingInstance", str(source.host, a), a);
    return to_json_text(doc);
}

namespace {
std::optional<lease_info> decode_lease(const json_node& root) {
    json_decoder d;
    lease_info l;
    l.name = d.opt_string(root["metadata"]["name"]).value_or("");
    const json_node spec = root["spec"];
    l.holder = d.opt_string(spec["holderIdentity"]).value_or("");
    l.duration_seconds = d.opt_int32(spec["leaseDurationSeconds"], 0).value_or(0);
    l.acquire_time = d.opt_string(spec["acquireTime"]).value_or("");
    l.renew_time = d.opt_string(spec["renewTime"]).value_or("");
    l.transitions = d.opt_int32(spec["leaseTransitions"], 0).value_or(0);
    l.resource_version = d.opt_string(root["metadata"]["resourceVersion"]).value_or("");
    const auto shards =
        d.opt_string(root["metadata"]["annotations"][lease_shards_annotation]).value_or("");
    // A decimal count of at most six digits; anything else is "not recorded".
    if (!shards.empty() && shards.size() <= 6 && shards[0] != '0' &&
        shards.find_first_not_of("0123456789") == std::string::npos)
        l.shards = static_cast<std::size_t>(std::stoul(shards));
    if (!d.ok()) return std::nullopt;
    return l;
}
} // namespace

std::optional<lease_info> parse_lease(const std::string& json) {
    rapidjson::Document doc;
    if (!parse_object(doc, json, "Lease", "Lease")) return std::nullopt;
    return decode_lease(json_node{&doc, ""});
}

std::optional<std::vector<lease_info>> parse_lease_list(const std::string& json) {
    rapidjson::Document doc;
    if (!parse_object(doc, json, "LeaseList", "LeaseList")) return std::nullopt;
    const auto items = doc.FindMember("items");
    std::vector<lease_info> out;
    if (items == doc.MemberEnd() || items->value.IsNull()) return out;
    if (!items->value.IsArray()) return std::nullopt;
    out.reserve(items->value.Size());
    for (const auto& item : items->value.GetArray()) {
        if (!item.IsObject()) return std::nullopt;
        auto lease = decode_lease(json_node{&item, "items[]"});
        if (!lease) return std::nullopt;
        out.push_back(std::move(*lease));
    }
    return out;
}

std::string lease_body(const std::string& ns, const std::string& name, const lease_info& l) {
    rapidjson::Document doc(rapidjson::kObjectType);
    object_header(doc, "coordination.k8s.io/v1", "Lease", name, ns, l.resource_version);
    auto& a = doc.GetAllocator();
    if (l.shards > 0) {
        rapidjson::Value annotations(rapidjson::kObjectType);
        annotations.AddMember(rapidjson::StringRef(lease_shards_annotation),
                              str(std::to_string(l.shards), a), a);
        doc["metadata"].AddMember("annotations", annotations, a);
    }
    rapidjson::Value spec(rapidjson::kObjectType);
    spec.AddMember("holderIdentity", str(l.holder, a), a);
    spec.AddMember("leaseDurationSeconds", l.duration_seconds, a);
    if (!l.acquire_time.empty()) spec.AddMember("acquireTime", str(l.acquire_time, a), a);
    if (!l.renew_time.empty()) spec.AddMember("renewTime", str(l.renew_time, a), a);
    spec.AddMember("leaseTransitions", l.transitions, a);
    doc.AddMember("spec", spec, a);
    return to_json_text(doc);
}

kube::resource_path target_resource(const core::object_reference& ref) {
    std::string group;
    std::string version = ref.api_version;
    if (const auto slash = ref.api_version.find('/'); slash != std::string::npos) {
        group = ref.api_version.substr(0, slash);
        version = ref.api_version.substr(slash + 1);
    }
    if (ref.kind == "Deployment" || ref.kind == "StatefulSet" || ref.kind == "ReplicaSet") {
        if (group.empty()) group = "apps";
        if (version.empty()) version = "v1";
    }
    if (version.empty()) version = "v1";
    std::string plural = ref.kind;
    std::transform(plural.begin(), plural.end(), plural.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    plural += !plural.empty() && plural.back() == 's' ? "es" : "s";
    return {group, version, plural, true};
}

} // namespace hpaplus::kube
