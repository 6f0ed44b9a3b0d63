// sim/apiserver/aggregation.cpp — who calls the simulated cluster (bearer tokens), TokenReview and
// SubjectAccessReview answered from a simple policy (allow unless a deny rule matches), and the
// aggregation layer: requests for a registered APIService's group and version go to its Service's
// endpoint with the front-proxy client certificate and the caller in X-Remote-* headers, as
// kube-apiserver (with --enable-aggregator-routing) sends them.
#include "sim/apiserver/server.hpp"

#include "net/base64.hpp"
#include "net/http_client.hpp"

#include <algorithm>

namespace hpaplus::sim {
namespace {

constexpr const char* admin_token = "hpaplus-sim"; // the kubeconfig's (sim/cluster.cpp)

json string_array(const std::vector<std::string>& values, json_alloc& a) {
    json out(rapidjson::kArrayType);
    for (const auto& v : values)
        out.PushBack(json(v.c_str(), a), a);
    return out;
}

std::vector<std::string> strings_at(const json& root, std::string_view path) {
    std::vector<std::string> out;
    if (const json* v = find_path(root, path); v && v->IsArray())
        for (const auto& s : v->GetArray())
            if (s.IsString()) out.emplace_back(s.GetString());
    return out;
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

// The Service port's endpoint: "host:port" from the EndpointSlices labelled with the Service's
// name, else from its Endpoints; "" when there is none.
std::string endpoint_of(object_store& store, const stored_object& service, std::int64_t port) {
    std::string port_name;
    std::int64_t target_port = port;
    bool found = false;
    if (const json* ports = find_path(service.doc, "spec.ports"); ports && ports->IsArray())
        for (const auto& p : ports->GetArray())
            if (int_at(p, "port", -1) == port) {
                port_name = string_at(p, "name");
                target_port = int_at(p, "targetPort", port);
                found = true;
            }
    if (!found) return "";
    auto pick = [&](const json* addresses_holder, const char* addresses_key,
                    const json* ports) -> std::string {
        std::string host;
        if (const json* list =
                addresses_holder ? find_path(*addresses_holder, addresses_key) : nullptr;
            list && list->IsArray() && !list->Empty()) {
            const json& first = (*list)[0];
            host = first.IsString() ? first.GetString() : string_at(first, "ip");
        }
        if (host.empty() || !ports || !ports->IsArray()) return "";
        for (const auto& p : ports->GetArray())
            if (string_at(p, "name") == port_name || ports->Size() == 1) {
                const auto number = int_at(p, "port", target_port);
                return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                       std::to_string(number);
            }
        return "";
    };
    if (collection* slices = store.find("discovery.k8s.io", "v1", "endpointslices"))
        for (const auto& [key, slice] : slices->objects) {
            if (slice->namespace_ != service.namespace_) continue;
            const auto owner = slice->labels.find("kubernetes.io/service-name");
            if (owner == slice->labels.end() || owner->second != service.name) continue;
            const json* endpoints = find_path(slice->doc, "endpoints");
            if (!endpoints || !endpoints->IsArray()) continue;
            for (const auto& e : endpoints->GetArray()) {
                const json* ready = find_path(e, "conditions.ready");
                if (ready && ready->IsFalse()) continue;
                auto where = pick(&e, "addresses", find_path(slice->doc, "ports"));
                if (!where.empty()) return where;
            }
        }
    if (collection* endpoints = store.find("", "v1", "endpoints"))
        if (auto e = store.get(*endpoints, service.namespace_, service.name))
            if (const json* subsets = find_path(e->doc, "subsets"); subsets && subsets->IsArray())
                for (const auto& s : subsets->GetArray()) {
                    auto where = pick(&s, "addresses", find_path(s, "ports"));
                    if (!where.empty()) return where;
                }
    return "";
}

api_error service_unavailable(std::string why) {
    api_error e;
    e.code = 503;
    e.reason = "ServiceUnavailable";
    e.message = "service unavailable: " + std::move(why);
    return e;
}

} // namespace

void api_server::impl::bootstrap_authentication() {
    front_proxy = net::issue_client_certificate(net::make_self_signed({"front-proxy-ca"}),
                                                "front-proxy-client");
    tokens[admin_token] = {admin_token, {"system:masters", "system:authenticated"}};
    collection* configmaps = store.find("", "v1", "configmaps");
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    json metadata(rapidjson::kObjectType);
    metadata.AddMember("name", "extension-apiserver-authentication", a);
    metadata.AddMember("namespace", "kube-system", a);
    doc.AddMember("metadata", metadata, a);
    json data(rapidjson::kObjectType);
    data.AddMember("requestheader-client-ca-file", json(front_proxy.ca_cert_pem.c_str(), a), a);
    data.AddMember("requestheader-allowed-names", R"(["front-proxy-client"])", a);
    data.AddMember("requestheader-username-headers", R"(["X-Remote-User"])", a);
    data.AddMember("requestheader-group-headers", R"(["X-Remote-Group"])", a);
    data.AddMember("requestheader-extra-headers-prefix", R"(["X-Remote-Extra-"])", a);
    doc.AddMember("data", data, a);
    (void)store.create(*configmaps, "kube-system", std::move(doc));
}

sim_user api_server::impl::caller(const http_request& r) const {
    const std::string_view authorization = r.header("authorization");
    constexpr std::string_view bearer = "Bearer ";
    if (authorization.size() > bearer.size() &&
        net::iequals(authorization.substr(0, bearer.size()), bearer))
        if (auto it = tokens.find(std::string(authorization.substr(bearer.size())));
            it != tokens.end())
            return it->second;
    return tokens.at(admin_token);
}

http_response api_server::impl::review(const http_request& r, const target& t) {
    if (r.method != "POST" || !t.name.empty())
        return error_response(method_not_supported(store.find(t.group, t.version, t.plural)->type,
                                                   r.method == "GET" ? "get" : "update"));
    json_doc body;
    if (auto e = parse_body(r, body)) return error_response(*e);
    if (!body.IsObject()) return error_response(bad_request("the review is not a JSON object"));
    auto& a = body.GetAllocator();
    json status(rapidjson::kObjectType);
    if (t.plural == "tokenreviews") {
        const auto it = tokens.find(string_at(body, "spec.token"));
        status.AddMember("authenticated", it != tokens.end(), a);
        if (it != tokens.end()) {
            json user(rapidjson::kObjectType);
            user.AddMember("username", json(it->second.name.c_str(), a), a);
            user.AddMember("groups", string_array(it->second.groups, a), a);
            status.AddMember("user", user, a);
        }
        if (const json* audiences = find_path(body, "spec.audiences"))
            status.AddMember("audiences", json(*audiences, a), a);
    } else {
        const std::string user = string_at(body, "spec.user");
        const auto groups = strings_at(body, "spec.groups");
        const json* resource = find_path(body, "spec.resourceAttributes");
        const json* other = find_path(body, "spec.nonResourceAttributes");
        const json& attributes = resource ? *resource : other ? *other : body;
        auto matches = [&](const deny_rule& d) {
            auto same = [](const std::string& want, const std::string& have) {
                return want.empty() || want == have;
            };
            return same(d.user, user) && (d.group.empty() || contains(groups, d.group)) &&
                   same(d.verb, string_at(attributes, "verb")) &&
                   same(d.api_group, resource ? string_at(attributes, "group") : "") &&
                   same(d.resource, resource ? string_at(attributes, "resource") : "") &&
                   same(d.ns, resource ? string_at(attributes, "namespace") : "") &&
                   same(d.path, resource ? "" : string_at(attributes, "path"));
        };
        const auto rule = std::find_if(deny_rules.begin(), deny_rules.end(), matches);
        const bool denied = rule != deny_rules.end();
        status.AddMember("allowed", !denied, a);
        if (denied) status.AddMember("denied", true, a);
        const std::string reason =
            denied ? "denied by the simulated cluster's deny rule " +
                         std::to_string(rule - deny_rules.begin())
                   : std::string("allowed by the simulated cluster's default policy");
        status.AddMember("reason", json(reason.c_str(), a), a);
    }
    body.RemoveMember("status");
    body.AddMember("status", status, a);
    if (!body.HasMember("metadata")) body.AddMember("metadata", json(rapidjson::kObjectType), a);
    return ok(to_string(body), 201);
}

object_ptr api_server::impl::aggregated(const std::string& group, const std::string& version) {
    collection* apiservices = store.find("apiregistration.k8s.io", "v1", "apiservices");
    if (!apiservices) return nullptr;
    auto s = store.get(*apiservices, "", version + "." + group);
    if (!s || !find_path(s->doc, "spec.service") || !find_path(s->doc, "spec.service")->IsObject())
        return nullptr; // absent, or Local (served by this server)
    return s;
}

std::vector<std::pair<std::string, std::string>> api_server::impl::aggregated_group_versions() {
    std::vector<std::pair<std::string, std::string>> out;
    if (collection* apiservices = store.find("apiregistration.k8s.io", "v1", "apiservices"))
        for (const auto& [key, s] : apiservices->objects) {
            const json* service = find_path(s->doc, "spec.service");
            if (service && service->IsObject())
                out.emplace_back(string_at(s->doc, "spec.group"),
                                 string_at(s->doc, "spec.version"));
        }
    return out;
}

asio::awaitable<http_response> api_server::impl::proxy(const http_request& r,
                                                       const stored_object& apiservice) {
    const json& spec = *find_path(apiservice.doc, "spec");
    const std::string ns = string_at(spec, "service.namespace");
    const std::string name = string_at(spec, "service.name");
    collection* services = store.find("", "v1", "services");
    const auto service = store.get(*services, ns, name);
    if (!service)
        co_return error_response(service_unavailable("service " + ns + "/" + name + " not found"));
    const std::string endpoint = endpoint_of(store, *service, int_at(spec, "service.port", 443));
    if (endpoint.empty())
        co_return error_response(
            service_unavailable("no endpoints for service " + ns + "/" + name));
    net::client_request request;
    request.url = "https://" + endpoint + r.target;
    request.method = r.method;
    request.body = r.body;
    request.content_type = std::string(r.header("content-type"));
    if (request.content_type.empty()) request.content_type = json_type;
    request.accept = std::string(r.header("accept"));
    if (request.accept.empty()) request.accept = "*/*";
    const sim_user user = caller(r);
    request.headers.emplace_back("X-Remote-User", user.name);
    for (const auto& g : user.groups)
        request.headers.emplace_back("X-Remote-Group", g);
    if (auto ca = net::base64_decode(string_at(spec, "caBundle"))) request.ca_pem = std::move(*ca);
    request.insecure_skip_verify = find_path(spec, "insecureSkipTLSVerify") &&
                                   find_path(spec, "insecureSkipTLSVerify")->IsTrue();
    if (request.ca_pem.empty() && !request.insecure_skip_verify)
        co_return error_response(service_unavailable(
            "APIService " + apiservice.name + " has neither caBundle nor insecureSkipTLSVerify"));
    request.server_name = name + "." + ns + ".svc"; // the name kube-apiserver verifies
    request.client_cert_pem = front_proxy.cert_pem;
    request.client_key_pem = front_proxy.key_pem;
    request.timeout = std::chrono::seconds(30);
    const auto answer = co_await net::send_once(executor, std::move(request));
    if (!answer.error.empty())
        co_return error_response(
            service_unavailable("error trying to reach service: " + answer.error));
    co_return http_response{answer.status,
                            answer.content_type.empty() ? json_type : answer.content_type,
                            answer.body,
                            {}};
}

std::optional<http_response> api_server::impl::auth_control(const http_request& r,
                                                            const std::string& what) {
    if (what == "tokens" && r.method == "POST") {
        json_doc body;
        if (auto e = parse_body(r, body)) return error_response(*e);
        const std::string token = body.IsObject() ? string_at(body, "token") : "";
        const std::string user = body.IsObject() ? string_at(body, "user") : "";
        if (token.empty() || user.empty())
            return error_response(bad_request("a token needs \"token\" and \"user\""));
        auto groups = strings_at(body, "groups");
        if (!contains(groups, "system:authenticated")) groups.emplace_back("system:authenticated");
        tokens[token] = {user, std::move(groups)};
        return ok(R"({"added":true})");
    }
    if (what != "authorization") return std::nullopt;
    if (r.method == "DELETE") deny_rules.clear();
    if (r.method == "PUT") {
        json_doc body;
        if (auto e = parse_body(r, body)) return error_response(*e);
        const json* deny = body.IsObject() ? find_path(body, "deny") : nullptr;
        if (!deny || !deny->IsArray())
            return error_response(bad_request("the policy is {\"deny\":[rule, ...]}"));
        deny_rules.clear();
        for (const auto& d : deny->GetArray())
            deny_rules.push_back({string_at(d, "user"), string_at(d, "group"), string_at(d, "verb"),
                                  string_at(d, "apiGroup"), string_at(d, "resource"),
                                  string_at(d, "namespace"), string_at(d, "path")});
    }
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    json list(rapidjson::kArrayType);
    for (const auto& d : deny_rules) {
        json rule(rapidjson::kObjectType);
        for (const auto& [key, value] : {std::pair{"user", &d.user},
                                         {"group", &d.group},
                                         {"verb", &d.verb},
                                         {"apiGroup", &d.api_group},
                                         {"resource", &d.resource},
                                         {"namespace", &d.ns},
                                         {"path", &d.path}})
            if (!value->empty()) rule.AddMember(json(key, a), json(value->c_str(), a), a);
        list.PushBack(rule, a);
    }
    doc.AddMember("deny", list, a);
    return ok(to_string(doc));
}

} // namespace hpaplus::sim
