// adapter/auth.cpp — request-header and client-certificate authentication, request
// attributes, and the Status answers.
#include "adapter/auth.hpp"

#include "net/json_parse.hpp"
#include "net/x509_identity.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>

namespace hpaplus::adapter {
namespace {

std::shared_ptr<const net::client_ca> load_ca(const std::string& pem, const char* what) {
    if (pem.empty()) return nullptr;
    try {
        return std::make_shared<const net::client_ca>(pem);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string(what) + ": " + e.what());
    }
}

// Every value of the headers named in `names`, in request order.
std::vector<std::string> values_of(const net::http_request& r,
                                   const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (const auto& [key, value] : r.headers)
        for (const auto& name : names)
            if (net::iequals(key, name) && !value.empty()) out.push_back(value);
    return out;
}

} // namespace

struct adapter_authenticator::impl {
    std::vector<std::string> always_allow_paths;
    request_header_settings options;
    std::shared_ptr<const net::client_ca> front_proxy;
    std::shared_ptr<const net::client_ca> clients;

    // The front proxy's user, when its certificate verifies; an error when it verifies but is not
    // an allowed name; nullopt when it is not the front proxy's at all.
    std::optional<core::outcome<user_info>> from_front_proxy(const net::http_request& r) const {
        if (!front_proxy) return std::nullopt;
        auto id = front_proxy->verify(r.peer_certificates);
        if (!id) return std::nullopt;
        const auto& allowed = options.allowed_names;
        if (!allowed.empty() &&
            std::find(allowed.begin(), allowed.end(), id->common_name) == allowed.end())
            return core::outcome<user_info>(core::error_message(
                "the front-proxy certificate's common name \"" + id->common_name +
                "\" is not one of the allowed names (requestheader-allowed-names)"));
        user_info u;
        for (const auto& name : values_of(r, options.username_headers)) {
            u.name = name;
            break;
        }
        if (u.name.empty()) return std::nullopt; // as upstream: then other ways are tried
        u.groups = values_of(r, options.group_headers);
        for (const auto& [key, value] : r.headers)
            for (const auto& prefix : options.extra_headers_prefix)
                if (key.size() > prefix.size() &&
                    net::iequals(std::string_view(key).substr(0, prefix.size()), prefix)) {
                    std::string extra = key.substr(prefix.size());
                    for (auto& c : extra)
                        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                    u.extra[net::percent_decode(extra, false)].push_back(value);
                }
        return core::success(std::move(u));
    }
};

adapter_authenticator::adapter_authenticator(std::vector<std::string> always_allow_paths)
    : impl_(std::make_unique<impl>()) {
    impl_->always_allow_paths = std::move(always_allow_paths);
}

void adapter_authenticator::configure(const authentication_settings& settings) {
    auto front_proxy =
        load_ca(settings.request_header.client_ca_pem, "the request-header client CA");
    auto clients = load_ca(settings.client_ca_pem, "the client CA");
    impl_->front_proxy = std::move(front_proxy);
    impl_->clients = std::move(clients);
    impl_->options = settings.request_header;
}

adapter_authenticator::~adapter_authenticator() = default;

bool adapter_authenticator::enabled() const {
    return impl_->front_proxy || impl_->clients;
}

bool adapter_authenticator::always_allowed(std::string_view path) const {
    const auto& paths = impl_->always_allow_paths;
    return std::find(paths.begin(), paths.end(), path) != paths.end();
}

core::outcome<user_info> adapter_authenticator::authenticate(const net::http_request& r) const {
    std::optional<core::outcome<user_info>> user = impl_->from_front_proxy(r);
    if (!user && impl_->clients) {
        auto id = impl_->clients->verify(r.peer_certificates);
        if (id) user = core::success(user_info{id->common_name, id->organizations, {}});
    }
    if (!user)
        return core::error_message(r.peer_certificates.empty()
                                       ? "no client certificate"
                                       : "the client certificate is signed by no trusted CA");
    if (*user) (*user)->groups.push_back("system:authenticated");
    return *user;
}

std::string_view bearer_token(const net::http_request& request) {
    const std::string_view value = request.header("authorization");
    constexpr std::string_view scheme = "Bearer ";
    if (value.size() <= scheme.size() || !net::iequals(value.substr(0, scheme.size()), scheme))
        return {};
    return value.substr(scheme.size());
}

core::outcome<authentication_settings> settings_from_configmap(std::string_view configmap_json) {
    rapidjson::Document doc;
    if (auto e = net::parse_json(doc, configmap_json, {16, 4u << 20}); !e.empty())
        return core::error_message("the ConfigMap is not JSON: " + e);
    const auto data = doc.IsObject() ? doc.FindMember("data") : doc.MemberEnd();
    if (!doc.IsObject() || data == doc.MemberEnd() || !data->value.IsObject())
        return core::error_message("the ConfigMap has no data");
    auto text = [&](const char* key) -> std::string {
        const auto m = data->value.FindMember(key);
        return m != data->value.MemberEnd() && m->value.IsString() ? m->value.GetString() : "";
    };
    // A list is stored as a JSON array of strings; absent keeps the default.
    auto list = [&](const char* key, std::vector<std::string>& out) -> std::string {
        const std::string value = text(key);
        if (value.empty()) return "";
        rapidjson::Document array;
        if (!net::parse_json(array, value, {4, 1u << 20}).empty() || !array.IsArray())
            return std::string(key) + " is not a JSON array of strings";
        out.clear();
        for (const auto& v : array.GetArray()) {
            if (!v.IsString()) return std::string(key) + " is not a JSON array of strings";
            out.emplace_back(v.GetString());
        }
        return "";
    };
    authentication_settings s;
    s.client_ca_pem = text("client-ca-file");
    s.request_header.client_ca_pem = text("requestheader-client-ca-file");
    for (const auto& [key, out] :
         {std::pair{"requestheader-allowed-names", &s.request_header.allowed_names},
          {"requestheader-username-headers", &s.request_header.username_headers},
          {"requestheader-group-headers", &s.request_header.group_headers},
          {"requestheader-extra-headers-prefix", &s.request_header.extra_headers_prefix}})
        if (auto e = list(key, *out); !e.empty()) return core::error_message(e);
    return s;
}

namespace {

// A review's `status` object, or an error saying what is wrong with the answer.
core::outcome<const rapidjson::Value*> status_of(rapidjson::Document& doc, std::string_view body) {
    if (auto e = net::parse_json(doc, body, {32, 1u << 20}); !e.empty())
        return core::error_message("the review answer is not JSON: " + e);
    const auto status = doc.IsObject() ? doc.FindMember("status") : doc.MemberEnd();
    if (!doc.IsObject() || status == doc.MemberEnd() || !status->value.IsObject())
        return core::error_message("the review answer has no status");
    return &status->value;
}

std::string string_member(const rapidjson::Value& o, const char* key) {
    const auto m = o.FindMember(key);
    return m != o.MemberEnd() && m->value.IsString() ? m->value.GetString() : "";
}

std::vector<std::string> strings_of(const rapidjson::Value& v) {
    std::vector<std::string> out;
    if (v.IsArray())
        for (const auto& s : v.GetArray())
            if (s.IsString()) out.emplace_back(s.GetString());
    return out;
}

} // namespace

core::outcome<user_info> token_review_user(std::string_view answer) {
    rapidjson::Document doc;
    const auto status = status_of(doc, answer);
    if (!status) return status.error();
    const rapidjson::Value& s = **status;
    const auto authenticated = s.FindMember("authenticated");
    const auto user = s.FindMember("user");
    if (authenticated == s.MemberEnd() || !authenticated->value.IsTrue() || user == s.MemberEnd() ||
        !user->value.IsObject()) {
        const auto why = string_member(s, "error");
        return core::error_message(why.empty() ? "the token is not valid"
                                               : "the token is not valid: " + why);
    }
    user_info u;
    u.name = string_member(user->value, "username");
    if (const auto g = user->value.FindMember("groups"); g != user->value.MemberEnd())
        u.groups = strings_of(g->value);
    if (const auto e = user->value.FindMember("extra");
        e != user->value.MemberEnd() && e->value.IsObject())
        for (const auto& m : e->value.GetObject())
            u.extra[m.name.GetString()] = strings_of(m.value);
    if (u.name.empty()) return core::error_message("the token's user has no name");
    return u;
}

core::outcome<authorization_decision> access_review_decision(std::string_view answer) {
    rapidjson::Document doc;
    const auto status = status_of(doc, answer);
    if (!status) return status.error();
    const rapidjson::Value& s = **status;
    const auto allowed = s.FindMember("allowed");
    return authorization_decision{allowed != s.MemberEnd() && allowed->value.IsTrue(),
                                  string_member(s, "reason")};
}

request_attributes attributes_of(const net::http_request& request) {
    request_attributes a;
    const bool watch = request.query_param("watch").value_or("") == "true";
    std::vector<std::string_view> parts;
    for (std::string_view rest = request.path; !rest.empty();) {
        const auto slash = rest.find('/');
        if (slash != 0) parts.push_back(rest.substr(0, slash));
        if (slash == std::string_view::npos) break;
        rest.remove_prefix(slash + 1);
    }
    if (parts.size() < 4 || parts[0] != "apis") {
        for (const char c : request.method)
            a.verb += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        a.path = request.path;
        return a;
    }
    a.resource_request = true;
    a.api_group = parts[1];
    a.api_version = parts[2];
    std::size_t at = 3;
    if (parts[at] == "namespaces" && parts.size() > at + 1) {
        a.ns = parts[at + 1];
        at += 2;
        if (parts.size() == at) { // the namespace object itself
            a.resource = "namespaces";
            a.name = a.ns;
        }
    }
    if (a.resource.empty()) {
        if (parts.size() > at) a.resource = parts[at];
        if (parts.size() > at + 1) a.name = parts[at + 1];
        if (parts.size() > at + 2) a.subresource = parts[at + 2];
    }
    const std::string& m = request.method;
    if (m == "POST")
        a.verb = "create";
    else if (m == "PUT")
        a.verb = "update";
    else if (m == "PATCH")
        a.verb = "patch";
    else if (m == "DELETE")
        a.verb = a.name.empty() ? "deletecollection" : "delete";
    else
        a.verb = watch ? "watch" : a.name.empty() ? "list" : "get";
    return a;
}

net::http_response status_response(int code, const char* reason, const std::string& message) {
    rapidjson::StringBuffer b;
    rapidjson::Writer<rapidjson::StringBuffer> w(b);
    w.StartObject();
    w.Key("kind"), w.String("Status");
    w.Key("apiVersion"), w.String("v1");
    w.Key("metadata"), w.StartObject(), w.EndObject();
    w.Key("status"), w.String("Failure");
    w.Key("message"), w.String(message);
    w.Key("reason"), w.String(reason);
    w.Key("code"), w.Int(code);
    w.EndObject();
    return {code, "application/json", std::string(b.GetString(), b.GetSize()), {}};
}

net::http_response unauthorized_status() {
    return status_response(401, "Unauthorized", "Unauthorized");
}

net::http_response authorization_error_status(const std::string& why) {
    return status_response(500, "InternalError",
                           "Internal error occurred: the request could not be authorized: " + why);
}

net::http_response forbidden_status(const user_info& user, const request_attributes& attributes,
                                    const std::string& reason) {
    // k8s.io/apiserver's forbiddenMessage, then its Forbidden Status.
    std::string message;
    if (!attributes.resource_request) {
        message = "forbidden: User \"" + user.name + "\" cannot " + attributes.verb + " path \"" +
                  attributes.path + "\"";
    } else {
        const std::string resource = attributes.subresource.empty()
                                         ? attributes.resource
                                         : attributes.resource + "/" + attributes.subresource;
        message = attributes.resource + "." + attributes.api_group;
        if (!attributes.name.empty()) message += " \"" + attributes.name + "\"";
        message += " is forbidden: User \"" + user.name + "\" cannot " + attributes.verb +
                   " resource \"" + resource + "\" in API group \"" + attributes.api_group + "\"";
        message += attributes.ns.empty() ? " at the cluster scope"
                                         : " in the namespace \"" + attributes.ns + "\"";
    }
    if (!reason.empty()) message += ": " + reason;
    return status_response(403, "Forbidden", message);
}

} // namespace hpaplus::adapter
