// sim/apiserver/access.cpp — who calls the simulated cluster and what they may do: bearer tokens
// (the admin's, /sim/v1/tokens, TokenRequest), impersonation, RBAC on every request, and the
// reviews that ask about it (TokenReview, SubjectAccessReview and its local and self forms,
// SelfSubjectRulesReview, SelfSubjectReview), as kube-apiserver answers them.
#include "sim/apiserver/server.hpp"

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

bool contains(const std::vector<std::string>& list, const std::string& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

api_error unauthorized() {
    return {401, "Unauthorized", "Unauthorized", {}, {}, {}, {}, std::nullopt};
}

// What a review's spec asks about; nullopt when it names neither kind of attributes.
std::optional<access_request> review_attributes(const json& body) {
    access_request a;
    if (const json* resource = find_path(body, "spec.resourceAttributes");
        resource && resource->IsObject()) {
        a.resource_request = true;
        a.verb = string_at(*resource, "verb");
        a.api_group = string_at(*resource, "group");
        a.resource = string_at(*resource, "resource");
        a.subresource = string_at(*resource, "subresource");
        a.ns = string_at(*resource, "namespace");
        a.name = string_at(*resource, "name");
        return a;
    }
    if (const json* other = find_path(body, "spec.nonResourceAttributes");
        other && other->IsObject()) {
        a.verb = string_at(*other, "verb");
        a.path = string_at(*other, "path");
        return a;
    }
    return std::nullopt;
}

json rule_json(const policy_rule& rule, json_alloc& a) {
    json out(rapidjson::kObjectType);
    out.AddMember("verbs", string_array(rule.verbs, a), a);
    if (!rule.non_resource_urls.empty()) {
        out.AddMember("nonResourceURLs", string_array(rule.non_resource_urls, a), a);
        return out;
    }
    out.AddMember("apiGroups", string_array(rule.api_groups, a), a);
    out.AddMember("resources", string_array(rule.resources, a), a);
    if (!rule.resource_names.empty())
        out.AddMember("resourceNames", string_array(rule.resource_names, a), a);
    return out;
}

// A UserInfo's `extra` (a pod-bound token's pod), when the user has any.
void add_extra(json& info, const sim_user& user, json_alloc& a) {
    if (user.extra.empty()) return;
    json extra(rapidjson::kObjectType);
    for (const auto& [key, values] : user.extra)
        extra.AddMember(json(key.c_str(), a), string_array(values, a), a);
    info.AddMember("extra", extra, a);
}

} // namespace

void api_server::impl::bootstrap_authentication() {
    front_proxy = net::issue_client_certificate(net::make_self_signed({"front-proxy-ca"}),
                                                "front-proxy-client");
    tokens[admin_token] = {admin_token, {"system:masters", "system:authenticated"}, {}, {}};
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
    for (const std::string& text : bootstrap_rbac_objects()) {
        json_doc object;
        object.Parse(text.c_str());
        const std::string kind = string_at(object, "kind");
        std::string plural = kind == "ClusterRole"          ? "clusterroles"
                             : kind == "ClusterRoleBinding" ? "clusterrolebindings"
                                                            : "roles";
        collection* c = store.find("rbac.authorization.k8s.io", "v1", plural);
        const std::string ns = string_at(object, "metadata.namespace");
        (void)store.create(*c, ns, std::move(object));
    }
}

api_result<sim_user> api_server::impl::authenticate(const http_request& r) const {
    const std::string_view authorization = r.header("authorization");
    if (authorization.empty()) return tokens.at(admin_token);
    constexpr std::string_view bearer = "Bearer ";
    if (authorization.size() > bearer.size() &&
        net::iequals(authorization.substr(0, bearer.size()), bearer))
        if (auto it = tokens.find(std::string(authorization.substr(bearer.size())));
            it != tokens.end())
            return it->second;
    return unauthorized();
}

api_result<sim_user> api_server::impl::impersonate(const http_request& r, sim_user caller) {
    std::string user;
    std::vector<std::string> groups;
    std::vector<std::pair<std::string, std::string>> extra;
    std::string uid;
    for (const auto& [name, value] : r.headers) {
        if (net::iequals(name, "impersonate-user")) user = value;
        if (net::iequals(name, "impersonate-group")) groups.push_back(value);
        if (net::iequals(name, "impersonate-uid")) uid = value;
        constexpr std::string_view extra_prefix = "impersonate-extra-";
        if (name.size() > extra_prefix.size() &&
            net::iequals(std::string_view(name).substr(0, extra_prefix.size()), extra_prefix))
            extra.emplace_back(net::percent_decode(name.substr(extra_prefix.size()), false), value);
    }
    if (user.empty()) {
        if (groups.empty() && uid.empty() && extra.empty()) return caller;
        return internal_error("requested impersonation of groups, a uid or extra fields without "
                              "impersonating a user");
    }
    auto check = [&](access_request a) -> std::optional<api_error> {
        a.verb = "impersonate";
        a.resource_request = true;
        const access_decision d = rbac.authorize(caller, a);
        if (d.allowed) return std::nullopt;
        return forbidden(caller, a, d.reason);
    };
    sim_user acting{user, groups, uid, {}};
    for (const auto& [key, value] : extra)
        acting.extra[key].push_back(value);
    if (const auto account = service_account_of(user)) {
        const auto& [ns, name] = *account;
        if (auto e = check({"", true, "", "serviceaccounts", "", ns, name, ""})) return *e;
        if (groups.empty())
            acting.groups = {"system:serviceaccounts", "system:serviceaccounts:" + ns};
    } else if (auto e = check({"", true, "", "users", "", "", user, ""})) {
        return *e;
    }
    for (const auto& g : groups)
        if (auto e = check({"", true, "", "groups", "", "", g, ""})) return *e;
    if (!uid.empty())
        if (auto e = check({"", true, "authentication.k8s.io", "uids", "", "", uid, ""})) return *e;
    for (const auto& [key, value] : extra)
        if (auto e = check({"", true, "authentication.k8s.io", "userextras", key, "", value, ""}))
            return *e;
    if (user != "system:anonymous" && !contains(acting.groups, "system:authenticated"))
        acting.groups.emplace_back("system:authenticated");
    return acting;
}

api_result<sim_user> api_server::impl::admit_caller(const http_request& r) {
    auto caller = authenticate(r);
    if (!caller) return caller.error();
    auto user = impersonate(r, std::move(*caller));
    if (!user) return user.error();
    const access_request a = access_of(r);
    const access_decision d = rbac.authorize(*user, a);
    if (!d.allowed) {
        api_error e = forbidden(*user, a, d.reason);
        rbac.note_refusal(user->name, e.message);
        return e;
    }
    return user;
}

http_response api_server::impl::review(const http_request& r, const target& t,
                                       const sim_user& user) {
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
            json info(rapidjson::kObjectType);
            info.AddMember("username", json(it->second.name.c_str(), a), a);
            if (!it->second.uid.empty()) info.AddMember("uid", json(it->second.uid.c_str(), a), a);
            info.AddMember("groups", string_array(it->second.groups, a), a);
            add_extra(info, it->second, a);
            status.AddMember("user", info, a);
        }
        if (const json* audiences = find_path(body, "spec.audiences"))
            status.AddMember("audiences", json(*audiences, a), a);
    } else if (t.plural == "selfsubjectreviews") {
        json info(rapidjson::kObjectType);
        info.AddMember("username", json(user.name.c_str(), a), a);
        if (!user.uid.empty()) info.AddMember("uid", json(user.uid.c_str(), a), a);
        info.AddMember("groups", string_array(user.groups, a), a);
        add_extra(info, user, a);
        status.AddMember("userInfo", info, a);
    } else if (t.plural == "selfsubjectrulesreviews") {
        const std::string ns = string_at(body, "spec.namespace");
        std::vector<std::string> errors;
        json resource_rules(rapidjson::kArrayType), other_rules(rapidjson::kArrayType);
        for (const granted_rule& g : rbac.rules_for(user, ns, &errors))
            (g.rule->non_resource_urls.empty() ? resource_rules : other_rules)
                .PushBack(rule_json(*g.rule, a), a);
        status.AddMember("resourceRules", resource_rules, a);
        status.AddMember("nonResourceRules", other_rules, a);
        status.AddMember("incomplete", !errors.empty(), a);
        if (!errors.empty()) {
            std::string text = errors.front();
            for (std::size_t i = 1; i < errors.size(); ++i)
                text += ", " + errors[i];
            status.AddMember("evaluationError", json(text.c_str(), a), a);
        }
    } else {
        auto attributes = review_attributes(body);
        if (!attributes)
            return error_response(bad_request(
                "spec.resourceAttributes: Required value: exactly one of nonResourceAttributes "
                "or resourceAttributes must be specified"));
        sim_user subject = user;
        if (t.plural != "selfsubjectaccessreviews")
            subject = {string_at(body, "spec.user"),
                       strings_at(body, "spec.groups"),
                       string_at(body, "spec.uid"),
                       {}};
        if (t.plural == "localsubjectaccessreviews") {
            if (!body.HasMember("metadata"))
                body.AddMember("metadata", json(rapidjson::kObjectType), a);
            if (string_at(body, "metadata.namespace").empty())
                body["metadata"].AddMember("namespace", json(t.ns.c_str(), a), a);
            if (string_at(body, "metadata.namespace") != t.ns ||
                (attributes->resource_request && attributes->ns != t.ns))
                return error_response(
                    bad_request("spec.resourceAttributes.namespace must match namespace: " + t.ns));
        }
        // A SubjectAccessReview meets the test policy's deny rules before RBAC.
        auto denied_by = [&](const deny_rule& d) {
            auto same = [](const std::string& want, const std::string& have) {
                return want.empty() || want == have;
            };
            const access_request& x = *attributes;
            return same(d.user, subject.name) &&
                   (d.group.empty() || contains(subject.groups, d.group)) && same(d.verb, x.verb) &&
                   same(d.api_group, x.api_group) && same(d.resource, x.resource) &&
                   same(d.ns, x.ns) && same(d.path, x.resource_request ? "" : x.path);
        };
        const auto rule = t.plural == "subjectaccessreviews"
                              ? std::find_if(deny_rules.begin(), deny_rules.end(), denied_by)
                              : deny_rules.end();
        if (rule != deny_rules.end()) {
            status.AddMember("allowed", false, a);
            status.AddMember("denied", true, a);
            const std::string reason = "denied by the simulated cluster's deny rule " +
                                       std::to_string(rule - deny_rules.begin());
            status.AddMember("reason", json(reason.c_str(), a), a);
        } else {
            const access_decision d = rbac.authorize(subject, *attributes, false);
            status.AddMember("allowed", d.allowed, a);
            if (!d.reason.empty()) status.AddMember("reason", json(d.reason.c_str(), a), a);
        }
    }
    body.RemoveMember("status");
    body.AddMember("status", status, a);
    if (!body.HasMember("metadata")) body.AddMember("metadata", json(rapidjson::kObjectType), a);
    return ok(to_string(body), 201);
}

http_response api_server::impl::token_request(const http_request& r, const target& t) {
    collection* accounts = store.find("", "v1", "serviceaccounts");
    if (r.method != "POST") return error_response(method_not_supported(accounts->type, r.method));
    const object_ptr account = store.get(*accounts, t.ns, t.name);
    if (!account) return error_response(not_found(accounts->type, t.name));
    json_doc body;
    if (!r.body.empty())
        if (auto e = parse_body(r, body)) return error_response(*e);
    const std::int64_t seconds =
        body.IsObject() ? int_at(body, "spec.expirationSeconds", 3600) : 3600;
    if (seconds < 600)
        return error_response(invalid(
            accounts->type, t.name,
            {{"spec.expirationSeconds", "may not specify a duration less than 10 minutes"}}));
    sim_user user = service_account(t.ns, t.name);
    user.uid = string_at(account->doc, "metadata.uid");
    // A token bound to a pod (what the kubelet's projected tokens are) names it in user.extra, so
    // the audit log tells the replicas of one ServiceAccount apart; it is refused for a pod that
    // is not there, or not the one the uid names.
    json bound(rapidjson::kNullType);
    if (const json* ref = body.IsObject() ? find_path(body, "spec.boundObjectRef") : nullptr;
        ref && ref->IsObject()) {
        const std::string kind = string_at(*ref, "kind");
        const std::string version = string_at(*ref, "apiVersion");
        if (kind != "Pod" || version != "v1")
            return error_response(bad_request(
                "cannot bind token to object of type " +
                (version.empty() ? std::string("/") : version + ", ") + "Kind=" + kind));
        collection* pods = store.find("", "v1", "pods");
        const std::string pod_name = string_at(*ref, "name");
        const object_ptr pod = pods ? store.get(*pods, t.ns, pod_name) : nullptr;
        if (!pod)
            return error_response(pods ? not_found(pods->type, pod_name)
                                       : bad_request("this cluster serves no pods"));
        const std::string pod_uid = string_at(pod->doc, "metadata.uid");
        if (const std::string want = string_at(*ref, "uid"); !want.empty() && want != pod_uid)
            return error_response(api_error{
                409,
                "Conflict",
                "Operation cannot be fulfilled on Pod \"" + pod_name +
                    "\": the UID in the bound object reference (" + want +
                    ") does not match the UID in record. The object might have been deleted and "
                    "then recreated",
                pod_name,
                "",
                "Pod",
                {},
                std::nullopt});
        user.extra["authentication.kubernetes.io/pod-name"] = {pod_name};
        user.extra["authentication.kubernetes.io/pod-uid"] = {pod_uid};
        if (const std::string node = string_at(pod->doc, "spec.nodeName"); !node.empty())
            user.extra["authentication.kubernetes.io/node-name"] = {node};
        bound.SetObject();
        auto& ba = body.GetAllocator();
        bound.AddMember("kind", "Pod", ba);
        bound.AddMember("apiVersion", "v1", ba);
        bound.AddMember("name", json(pod_name.c_str(), ba), ba);
        bound.AddMember("uid", json(pod_uid.c_str(), ba), ba);
    }
    const std::string token = "sim-sa-" + new_uid();
    tokens[token] = user;
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("kind", "TokenRequest", a);
    doc.AddMember("apiVersion", "authentication.k8s.io/v1", a);
    json metadata(rapidjson::kObjectType);
    metadata.AddMember("name", json(t.name.c_str(), a), a);
    metadata.AddMember("namespace", json(t.ns.c_str(), a), a);
    const core::time_point now = now_time();
    metadata.AddMember("creationTimestamp", json(core::format_rfc3339(now).c_str(), a), a);
    doc.AddMember("metadata", metadata, a);
    json spec(rapidjson::kObjectType);
    const json* audiences = body.IsObject() ? find_path(body, "spec.audiences") : nullptr;
    spec.AddMember("audiences",
                   audiences && audiences->IsArray() && !audiences->Empty()
                       ? json(*audiences, a)
                       : string_array({"https://kubernetes.default.svc.cluster.local"}, a),
                   a);
    spec.AddMember("expirationSeconds", seconds, a);
    spec.AddMember("boundObjectRef", json(bound, a), a);
    doc.AddMember("spec", spec, a);
    json status(rapidjson::kObjectType);
    status.AddMember("token", json(token.c_str(), a), a);
    status.AddMember("expirationTimestamp",
                     json(core::format_rfc3339(now + std::chrono::seconds(seconds)).c_str(), a), a);
    doc.AddMember("status", status, a);
    return ok(to_string(doc), 201);
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
        // A ServiceAccount's user has its groups, as its tokens authenticate it.
        if (const auto account = service_account_of(user))
            for (const auto& g : service_account(account->first, account->second).groups)
                if (!contains(groups, g)) groups.push_back(g);
        if (!contains(groups, "system:authenticated")) groups.emplace_back("system:authenticated");
        tokens[token] = {user, std::move(groups), {}, {}};
        return ok(R"({"added":true})");
    }
    if (what == "rbac-usage") {
        if (r.method == "DELETE") rbac.clear_usage();
        json_doc doc(rapidjson::kObjectType);
        auto& a = doc.GetAllocator();
        json rules(rapidjson::kObjectType);
        for (const auto& [key, use] : rbac.usage()) {
            json entry(rapidjson::kObjectType);
            entry.AddMember("sole", use.sole, a);
            entry.AddMember("any", use.any, a);
            entry.AddMember("verbs", string_array(use.verbs, a), a);
            entry.AddMember("example", json(use.example.c_str(), a), a);
            rules.AddMember(json(key.c_str(), a), entry, a);
        }
        doc.AddMember("rules", rules, a);
        json refused(rapidjson::kObjectType);
        for (const auto& [user, refusal] : rbac.refusals()) {
            json entry(rapidjson::kObjectType);
            entry.AddMember("count", refusal.count, a);
            entry.AddMember("first", json(refusal.first.c_str(), a), a);
            refused.AddMember(json(user.c_str(), a), entry, a);
        }
        doc.AddMember("refused", refused, a);
        return ok(to_string(doc));
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
