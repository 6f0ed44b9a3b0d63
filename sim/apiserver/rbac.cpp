// sim/apiserver/rbac.cpp — RBAC as kube-apiserver decides it (plugin/pkg/auth/authorizer/rbac):
// request attributes, rule matching with upstream's wildcards, bindings to users, groups and
// ServiceAccounts, the texts of allowed and refused decisions, and the bootstrap policy.
#include "sim/apiserver/rbac.hpp"

#include "sim/apiserver/request.hpp"

#include <algorithm>

namespace hpaplus::sim {
namespace {

bool has(const std::vector<std::string>& list, std::string_view value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

bool has_or_star(const std::vector<std::string>& list, std::string_view value) {
    return std::any_of(list.begin(), list.end(),
                       [&](const std::string& v) { return v == "*" || v == value; });
}

} // namespace

std::string service_account_user(const std::string& ns, const std::string& name) {
    return "system:serviceaccount:" + ns + ":" + name;
}

std::optional<std::pair<std::string, std::string>> service_account_of(const std::string& user) {
    constexpr std::string_view prefix = "system:serviceaccount:";
    const auto colon = user.find(':', prefix.size());
    if (user.compare(0, prefix.size(), prefix) != 0 || colon == std::string::npos)
        return std::nullopt;
    return std::pair{user.substr(prefix.size(), colon - prefix.size()), user.substr(colon + 1)};
}

sim_user service_account(const std::string& ns, const std::string& name) {
    return {service_account_user(ns, name),
            {"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
            {},
            {}};
}

access_request access_of(const net::http_request& r) {
    access_request a;
    a.path = r.path;
    a.verb = ascii_lower(r.method); // a non-resource request's verb is its method
    const auto parts = split(r.path);
    if (parts.size() < 3 || (parts[0] != "api" && parts[0] != "apis")) return a;
    std::size_t at = 2;
    if (parts[0] == "apis") {
        if (parts.size() < 4) return a;
        a.api_group = parts[1];
        at = 3;
    }
    a.resource_request = true;
    std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(at), parts.end());
    if ((rest[0] == "watch" || rest[0] == "proxy") && rest.size() >= 2) {
        a.verb = rest[0];
        rest.erase(rest.begin());
    } else if (r.method == "GET" || r.method == "HEAD") {
        a.verb = "get";
    } else if (r.method == "POST") {
        a.verb = "create";
    } else if (r.method == "PUT") {
        a.verb = "update";
    } else if (r.method == "PATCH") {
        a.verb = "patch";
    } else if (r.method == "DELETE") {
        a.verb = "delete";
    }
    if (rest[0] == "namespaces" && rest.size() > 1) {
        a.ns = rest[1];
        if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize")
            rest.erase(rest.begin(), rest.begin() + 2);
    }
    a.resource = rest[0];
    if (rest.size() >= 2) a.name = rest[1];
    if (rest.size() >= 3 && a.verb != "proxy") a.subresource = rest[2];
    if (a.name.empty() && a.verb == "get") {
        a.verb = query_flag(r, "watch") ? "watch" : "list";
        if (auto selector = r.query_param("fieldSelector"))
            if (auto fields = parse_field_selector(*selector))
                for (const auto& f : *fields)
                    if (f.equals && f.path == "metadata.name" && !f.value.empty() &&
                        f.value.find('/') == std::string::npos && f.value != "." && f.value != "..")
                        a.name = f.value;
    }
    if (a.name.empty() && a.verb == "delete") a.verb = "deletecollection";
    return a;
}

policy_rule rule_of(const json& rule) {
    return {strings_at(rule, "verbs"), strings_at(rule, "apiGroups"), strings_at(rule, "resources"),
            strings_at(rule, "resourceNames"), strings_at(rule, "nonResourceURLs")};
}

std::string rule_text(const policy_rule& rule) {
    std::string out;
    auto field = [&](const char* name, const std::vector<std::string>& values) {
        if (values.empty()) return;
        out += (out.empty() ? "" : " ") + std::string(name) + "=[";
        for (std::size_t i = 0; i < values.size(); ++i)
            out += (i ? "," : "") + values[i];
        out += "]";
    };
    field("apiGroups", rule.api_groups);
    field("resources", rule.resources);
    field("resourceNames", rule.resource_names);
    field("nonResourceURLs", rule.non_resource_urls);
    field("verbs", rule.verbs);
    return out;
}

bool rule_allows(const policy_rule& rule, const access_request& a) {
    if (!has_or_star(rule.verbs, a.verb)) return false;
    if (!a.resource_request)
        return std::any_of(rule.non_resource_urls.begin(), rule.non_resource_urls.end(),
                           [&](const std::string& url) {
                               if (url == "*" || url == a.path) return true;
                               return !url.empty() && url.back() == '*' &&
                                      a.path.compare(0, url.size() - 1, url, 0, url.size() - 1) ==
                                          0;
                           });
    if (!has_or_star(rule.api_groups, a.api_group)) return false;
    const std::string combined =
        a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
    const bool resource =
        std::any_of(rule.resources.begin(), rule.resources.end(), [&](const std::string& r) {
            if (r == "*" || r == combined) return true;
            return !a.subresource.empty() && r.size() == a.subresource.size() + 2 &&
                   r.compare(0, 2, "*/") == 0 && r.compare(2, r.npos, a.subresource) == 0;
        });
    if (!resource) return false;
    return rule.resource_names.empty() || has(rule.resource_names, a.name);
}

void rbac_authorizer::build() {
    cluster_roles_.clear();
    roles_.clear();
    cluster_bindings_.clear();
    role_bindings_.clear();
    restores_seen_ = store_.restores();
    constexpr std::string_view rbac = "rbac.authorization.k8s.io";
    auto rules_of = [](const stored_object& o) {
        role r;
        if (const json* rules = find_path(o.doc, "rules"); rules && rules->IsArray())
            for (const auto& rule : rules->GetArray())
                r.rules.push_back(rule_of(rule));
        return r;
    };
    if (collection* c = store_.find(rbac, "v1", "clusterroles")) {
        for (const auto& [key, o] : c->objects)
            cluster_roles_[o->name] = rules_of(*o);
        // An aggregated ClusterRole holds the rules of every ClusterRole its selectors match (the
        // aggregation controller writes them into it; here they are read through).
        for (const auto& [key, o] : c->objects) {
            const json* selectors = find_path(o->doc, "aggregationRule.clusterRoleSelectors");
            if (!selectors || !selectors->IsArray()) continue;
            role aggregated;
            for (const auto& entry : c->objects) {
                const object_ptr& other = entry.second; // a lambda below uses it
                if (other->name == o->name) continue;
                const bool selected =
                    std::any_of(selectors->Begin(), selectors->End(), [&](const json& s) {
                        auto selector = label_selector_of(&s);
                        return selector && !selector->empty() && selector->matches(other->labels);
                    });
                if (!selected) continue;
                for (const auto& rule : rules_of(*other).rules)
                    aggregated.rules.push_back(rule);
            }
            cluster_roles_[o->name] = std::move(aggregated);
        }
    }
    if (collection* c = store_.find(rbac, "v1", "roles"))
        for (const auto& [key, o] : c->objects)
            roles_[key] = rules_of(*o);
    auto binding_of = [](const stored_object& o) {
        binding b{o.name,
                  o.namespace_,
                  string_at(o.doc, "roleRef.kind"),
                  string_at(o.doc, "roleRef.name"),
                  {}};
        if (const json* subjects = find_path(o.doc, "subjects"); subjects && subjects->IsArray())
            for (const auto& s : subjects->GetArray())
                b.subjects.push_back(
                    {string_at(s, "kind"), string_at(s, "name"), string_at(s, "namespace")});
        return b;
    };
    if (collection* c = store_.find(rbac, "v1", "clusterrolebindings"))
        for (const auto& [key, o] : c->objects)
            cluster_bindings_.push_back(binding_of(*o));
    if (collection* c = store_.find(rbac, "v1", "rolebindings"))
        for (const auto& [key, o] : c->objects)
            role_bindings_[o->namespace_].push_back(binding_of(*o));
    built_ = true;
}

const rbac_authorizer::role* rbac_authorizer::role_of(const binding& b, std::string& error) const {
    if (b.role_kind == "ClusterRole") {
        if (auto it = cluster_roles_.find(b.role_name); it != cluster_roles_.end())
            return &it->second;
        error = "clusterrole.rbac.authorization.k8s.io " + go_quoted(b.role_name) + " not found";
        return nullptr;
    }
    if (b.role_kind == "Role" && !b.ns.empty()) {
        if (auto it = roles_.find(b.ns + "/" + b.role_name); it != roles_.end()) return &it->second;
        error = "role.rbac.authorization.k8s.io " + go_quoted(b.role_name) + " not found";
        return nullptr;
    }
    error = "unsupported role reference kind: " + go_quoted(b.role_kind);
    return nullptr;
}

// Calls visit(granted_rule) for every rule bound to `user`, cluster-wide first, then in `ns`,
// until it returns false; errors (missing roles) as visit(error text).
template <class Visit>
void rbac_authorizer::visit(const sim_user& user, const std::string& ns, Visit&& visit) {
    if (!built_ || restores_seen_ != store_.restores()) build();
    auto applies = [&](const subject& s, const std::string& binding_ns) {
        if (s.kind == "User") return s.name == user.name;
        if (s.kind == "Group") return has(user.groups, s.name);
        if (s.kind != "ServiceAccount") return false;
        const std::string& sa_ns = s.ns.empty() ? binding_ns : s.ns;
        return !sa_ns.empty() && user.name == service_account_user(sa_ns, s.name);
    };
    auto describe = [](const subject& s, const std::string& binding_ns) {
        if (s.kind == "ServiceAccount")
            return s.kind + " " + go_quoted(s.name + "/" + (s.ns.empty() ? binding_ns : s.ns));
        return s.kind + " " + go_quoted(s.name);
    };
    auto walk = [&](const std::vector<binding>& bindings) {
        for (const binding& b : bindings)
            for (const subject& s : b.subjects) {
                if (!applies(s, b.ns)) continue;
                std::string error;
                const role* r = role_of(b, error);
                if (!r) {
                    if (!visit(error)) return false;
                    break;
                }
                const std::string source =
                    b.ns.empty()
                        ? "ClusterRoleBinding " + go_quoted(b.name) + " of " + b.role_kind + " " +
                              go_quoted(b.role_name) + " to " + describe(s, b.ns)
                        : "RoleBinding " + go_quoted(b.name + "/" + b.ns) + " of " + b.role_kind +
                              " " + go_quoted(b.role_name) + " to " + describe(s, b.ns);
                const std::string role_key = b.role_kind == "ClusterRole"
                                                 ? "ClusterRole/" + b.role_name
                                                 : "Role/" + b.ns + "/" + b.role_name;
                for (const policy_rule& rule : r->rules)
                    if (!visit(granted_rule{role_key, source, &rule})) return false;
                break; // one subject of a binding is enough
            }
        return true;
    };
    if (!walk(cluster_bindings_)) return;
    if (ns.empty()) return;
    if (auto it = role_bindings_.find(ns); it != role_bindings_.end()) walk(it->second);
}

access_decision rbac_authorizer::authorize(const sim_user& user, const access_request& a,
                                           bool record) {
    if (has(user.groups, "system:masters")) return {true, ""};
    access_decision d;
    std::vector<std::string> errors;
    std::vector<std::string> allowing; // every rule that allows it, for the usage record
    struct visitor {
        access_decision& d;
        std::vector<std::string>& errors;
        std::vector<std::string>& allowing;
        const access_request& a;
        bool operator()(const std::string& error) {
            errors.push_back(error);
            return true;
        }
        bool operator()(const granted_rule& g) {
            if (!rule_allows(*g.rule, a)) return true;
            if (!d.allowed) d = {true, "RBAC: allowed by " + g.binding};
            const std::string key = g.role + ": " + rule_text(*g.rule);
            if (!has(allowing, key)) allowing.push_back(key);
            return true;
        }
    };
    visit(user, a.ns, visitor{d, errors, allowing, a});
    if (!d.allowed) {
        if (errors.size() == 1) d.reason = "RBAC: " + errors.front();
        if (errors.size() > 1) {
            d.reason = "RBAC: [";
            for (std::size_t i = 0; i < errors.size(); ++i)
                d.reason += (i ? ", " : "") + errors[i];
            d.reason += "]";
        }
        return d;
    }
    if (!record) return d;
    for (const auto& key : allowing) {
        rule_use& use = usage_[key];
        ++use.any;
        if (allowing.size() != 1) continue;
        if (!has(use.verbs, a.verb)) use.verbs.push_back(a.verb);
        if (use.sole++ == 0)
            use.example =
                a.verb + " " +
                (a.resource_request
                     ? (a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource) +
                           (a.api_group.empty() ? "" : "." + a.api_group) +
                           (a.ns.empty() ? "" : " in " + a.ns)
                     : a.path);
    }
    return d;
}

std::vector<granted_rule> rbac_authorizer::rules_for(const sim_user& user, const std::string& ns,
                                                     std::vector<std::string>* errors) {
    std::vector<granted_rule> out;
    struct collector {
        std::vector<granted_rule>& out;
        std::vector<std::string>* errors;
        bool operator()(const std::string& error) {
            if (errors) errors->push_back(error);
            return true;
        }
        bool operator()(const granted_rule& g) {
            out.push_back(g);
            return true;
        }
    };
    visit(user, ns, collector{out, errors});
    return out;
}

api_error forbidden(const sim_user& user, const access_request& a, const std::string& reason) {
    std::string why;
    if (!a.resource_request) {
        why = "User " + go_quoted(user.name) + " cannot " + a.verb + " path " + go_quoted(a.path);
    } else {
        const std::string resource =
            a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
        why = "User " + go_quoted(user.name) + " cannot " + a.verb + " resource " +
              go_quoted(resource) + " in API group " + go_quoted(a.api_group) +
              (a.ns.empty() ? " at the cluster scope" : " in the namespace " + go_quoted(a.ns));
    }
    if (!reason.empty()) why += ": " + reason;
    api_error e;
    e.code = 403;
    e.reason = "Forbidden";
    if (!a.resource_request) {
        e.message = "forbidden: " + why;
        return e;
    }
    const std::string qualified = a.api_group.empty() ? a.resource : a.resource + "." + a.api_group;
    e.message = (a.name.empty() ? qualified : qualified + " " + go_quoted(a.name)) +
                " is forbidden: " + why;
    e.group = a.api_group;
    e.kind = a.resource;
    e.name = a.name;
    return e;
}

std::vector<std::string> bootstrap_rbac_objects() {
    // Upstream's bootstrap policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy), the parts
    // clients and our manifests rely on.
    const std::string meta =
        R"("labels":{"kubernetes.io/bootstrapping":"rbac-defaults"},)"
        R"("annotations":{"rbac.authorization.kubernetes.io/autoupdate":"true"})";
    auto cluster_role = [&](const std::string& name, const std::string& rules) {
        return R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":")" +
               name + "\"," + meta + R"(},"rules":)" + rules + "}";
    };
    auto cluster_binding = [&](const std::string& name, const std::string& groups) {
        std::string subjects;
        std::string_view rest = groups;
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            subjects += std::string(subjects.empty() ? "" : ",") +
                        R"({"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":")" +
                        std::string(rest.substr(0, comma)) + "\"}";
            rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
        }
        return R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":")" +
               name + "\"," + meta +
               R"(},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":")" +
               name + R"("},"subjects":[)" + subjects + "]}";
    };
    return {
        cluster_role("cluster-admin", R"([{"apiGroups":["*"],"resources":["*"],"verbs":["*"]},)"
                                      R"({"nonResourceURLs":["*"],"verbs":["*"]}])"),
        cluster_binding("cluster-admin", "system:masters"),
        cluster_role("system:discovery",
                     R"([{"nonResourceURLs":["/api","/api/*","/apis","/apis/*","/healthz",)"
                     R"("/livez","/openapi","/openapi/*","/readyz","/version","/version/"],)"
                     R"("verbs":["get"]}])"),
        cluster_binding("system:discovery", "system:authenticated"),
        cluster_role("system:public-info-viewer",
                     R"([{"nonResourceURLs":["/healthz","/livez","/readyz","/version",)"
                     R"("/version/"],"verbs":["get"]}])"),
        cluster_binding("system:public-info-viewer", "system:authenticated,system:unauthenticated"),
        cluster_role(
            "system:basic-user",
            R"([{"apiGroups":["authorization.k8s.io"],"resources":)"
            R"(["selfsubjectaccessreviews","selfsubjectrulesreviews"],"verbs":["create"]},)"
            R"({"apiGroups":["authentication.k8s.io"],"resources":["selfsubjectreviews"],)"
            R"("verbs":["create"]}])"),
        cluster_binding("system:basic-user", "system:authenticated"),
        cluster_role("system:auth-delegator",
                     R"([{"apiGroups":["authentication.k8s.io"],"resources":["tokenreviews"],)"
                     R"("verbs":["create"]},{"apiGroups":["authorization.k8s.io"],)"
                     R"("resources":["subjectaccessreviews"],"verbs":["create"]}])"),
        R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":)"
        R"("extension-apiserver-authentication-reader","namespace":"kube-system",)" +
            meta +
            R"(},"rules":[{"apiGroups":[""],"resources":["configmaps"],)"
            R"("resourceNames":["extension-apiserver-authentication"],)"
            R"("verbs":["get","list","watch"]}]})",
    };
}

} // namespace hpaplus::sim
