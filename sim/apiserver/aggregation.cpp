// sim/apiserver/aggregation.cpp — the aggregation layer: requests for a registered APIService's
// group and version go to its Service's endpoint with the front-proxy client certificate and the
// caller in X-Remote-* headers, as kube-apiserver (with --enable-aggregator-routing) sends them.
#include "sim/apiserver/server.hpp"

#include "net/base64.hpp"
#include "net/http_client.hpp"

namespace hpaplus::sim {
namespace {

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
                                                       const stored_object& apiservice,
                                                       const sim_user& user) {
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

} // namespace hpaplus::sim
