// sim/apiserver/admission.cpp — matching, calling and applying mutating admission webhooks.
#include "sim/apiserver/admission.hpp"

#include "net/base64.hpp"
#include "net/http_client.hpp"
#include "net/json_parse.hpp"

#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <atomic>

namespace hpaplus::sim {
namespace {

namespace asio = boost::asio;

constexpr const char* configurations_group = "admissionregistration.k8s.io";

bool contains(const json* list, std::string_view value) {
    if (!list || !list->IsArray()) return false;
    for (const auto& v : list->GetArray())
        if (v.IsString() && (v.GetString() == value || std::string_view(v.GetString()) == "*"))
            return true;
    return false;
}

// A rule matches a CREATE of the main resource (not a subresource) of `type`.
bool rule_matches(const json& rule, const resource_type& type) {
    if (!contains(find_path(rule, "operations"), "CREATE")) return false;
    if (!contains(find_path(rule, "apiGroups"), type.group)) return false;
    if (!contains(find_path(rule, "apiVersions"), type.version)) return false;
    const json* resources = find_path(rule, "resources");
    bool resource = false;
    if (resources && resources->IsArray())
        for (const auto& r : resources->GetArray())
            if (r.IsString() &&
                (std::string_view(r.GetString()) == "*/*" || r.GetString() == type.plural ||
                 std::string_view(r.GetString()) == "*"))
                resource = true;
    if (!resource) return false;
    const std::string scope = string_at(rule, "scope");
    if (scope == "Namespaced") return type.namespaced;
    if (scope == "Cluster") return !type.namespaced;
    return true;
}

json group_version_member(const resource_type& type, const char* last_key, const std::string& last,
                          json_alloc& a) {
    json o(rapidjson::kObjectType);
    o.AddMember("group", json(type.group.c_str(), a), a);
    o.AddMember("version", json(type.version.c_str(), a), a);
    o.AddMember(json(last_key, a), json(last.c_str(), a), a);
    return o;
}

std::string review_request(const resource_type& type, const std::string& ns, const json& object,
                           const std::string& uid) {
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("apiVersion", "admission.k8s.io/v1", a);
    doc.AddMember("kind", "AdmissionReview", a);
    json request(rapidjson::kObjectType);
    request.AddMember("uid", json(uid.c_str(), a), a);
    request.AddMember("kind", group_version_member(type, "kind", type.kind, a), a);
    request.AddMember("resource", group_version_member(type, "resource", type.plural, a), a);
    request.AddMember("requestKind", group_version_member(type, "kind", type.kind, a), a);
    request.AddMember("requestResource", group_version_member(type, "resource", type.plural, a), a);
    request.AddMember("name", json(string_at(object, "metadata.name").c_str(), a), a);
    if (type.namespaced) request.AddMember("namespace", json(ns.c_str(), a), a);
    request.AddMember("operation", "CREATE", a);
    json user(rapidjson::kObjectType);
    user.AddMember("username", "system:admin", a);
    request.AddMember("userInfo", user, a);
    request.AddMember("object", json(object, a), a);
    request.AddMember("oldObject", json(rapidjson::kNullType), a);
    request.AddMember("dryRun", false, a);
    json options(rapidjson::kObjectType);
    options.AddMember("kind", "CreateOptions", a);
    options.AddMember("apiVersion", "meta.k8s.io/v1", a);
    request.AddMember("options", options, a);
    doc.AddMember("request", request, a);
    return to_string(doc);
}

// apiserver's webhook errors.ToStatusErr: a denial is at least a 400 and says who denied it.
api_error denial(const std::string& webhook, const json* status) {
    api_error e{400, "", "", {}, {}, {}, {}, std::nullopt};
    std::string message, reason;
    if (status && status->IsObject()) {
        if (const json* c = find_path(*status, "code"); c && c->IsInt() && c->GetInt() >= 400)
            e.code = c->GetInt();
        message = string_at(*status, "message");
        reason = string_at(*status, "reason");
    }
    e.reason = reason;
    const std::string by = "admission webhook \"" + webhook + "\" denied the request";
    e.message = !message.empty()  ? by + ": " + message
                : !reason.empty() ? by + ": " + reason
                                  : by + " without explanation";
    return e;
}

} // namespace

struct admission::impl {
    // Not in the anonymous namespace: the coroutine frame of call() holds one.
    struct webhook_ref {
        object_ptr configuration; ///< keeps `spec` alive
        const json* spec = nullptr;
    };

    asio::any_io_executor executor;
    object_store& store;
    std::atomic<std::uint64_t> calls{0};

    impl(asio::any_io_executor ex, object_store& s) : executor(std::move(ex)), store(s) {}

    bool namespace_matches(const json& webhook, const resource_type& type,
                           const std::string& ns) const {
        const json* selector = find_path(webhook, "namespaceSelector");
        const auto parsed = label_selector_of(selector);
        if (!parsed) return false;
        if (!type.namespaced || parsed->empty()) return true;
        collection* namespaces = store.find("", "v1", "namespaces");
        const object_ptr n = namespaces ? store.get(*namespaces, "", ns) : nullptr;
        return n && parsed->matches(n->labels);
    }

    std::vector<webhook_ref> matching(const resource_type& type, const std::string& ns,
                                      const json& object) const {
        std::vector<webhook_ref> out;
        collection* configurations =
            store.find(configurations_group, "v1", "mutatingwebhookconfigurations");
        if (!configurations) return out;
        const auto labels = labels_at(object, "metadata.labels");
        // The map is keyed "/name": configurations come in name order, as the real server calls
        // them.
        for (const auto& [key, c] : configurations->objects) {
            const json* webhooks = find_path(c->doc, "webhooks");
            if (!webhooks || !webhooks->IsArray()) continue;
            for (const auto& w : webhooks->GetArray()) {
                const json* rules = find_path(w, "rules");
                bool any = false;
                if (rules && rules->IsArray())
                    for (const auto& r : rules->GetArray())
                        any = any || rule_matches(r, type);
                if (!any || !namespace_matches(w, type, ns)) continue;
                const auto object_selector = label_selector_of(find_path(w, "objectSelector"));
                if (!object_selector || !object_selector->matches(labels)) continue;
                out.push_back({c, &w});
            }
        }
        return out;
    }

    // One call; the error text is why the call failed (failurePolicy decides what that means),
    // a denial comes back in `denied`.
    asio::awaitable<std::optional<std::string>> call(const webhook_ref& w,
                                                     const resource_type& type,
                                                     const std::string& ns, json_doc& object,
                                                     std::optional<api_error>& denied) {
        ++calls;
        const json& spec = *w.spec;
        const std::string name = string_at(spec, "name");
        if (!contains(find_path(spec, "admissionReviewVersions"), "v1"))
            co_return std::string("the simulated API server sends admission.k8s.io/v1 reviews "
                                  "only; admissionReviewVersions does not list v1");
        const std::string url = string_at(spec, "clientConfig.url");
        if (url.empty())
            co_return std::string("clientConfig.service cannot be reached in the simulated "
                                  "cluster (no Service networking); use clientConfig.url");
        net::client_request request;
        request.url = url;
        const std::string ca = string_at(spec, "clientConfig.caBundle");
        if (!ca.empty()) {
            auto pem = net::base64_decode(ca);
            if (!pem) co_return std::string("clientConfig.caBundle is not valid base64");
            request.ca_pem = std::move(*pem);
        }
        const json* timeout = find_path(spec, "timeoutSeconds");
        request.timeout =
            std::chrono::seconds(timeout && timeout->IsInt() ? timeout->GetInt() : 10);
        const std::string uid = new_uid();
        request.body = review_request(type, ns, object, uid);
        const auto answer = co_await net::send_once(executor, std::move(request));
        const std::string where = "failed to call webhook: Post \"" + url + "\": ";
        if (!answer.error.empty()) co_return where + answer.error;
        if (answer.status != 200)
            co_return where + "the webhook answered HTTP " + std::to_string(answer.status);
        json_doc review;
        if (std::string e = net::parse_json(review, answer.body); !e.empty())
            co_return "received invalid webhook response: " + e;
        if (!review.IsObject())
            co_return std::string("received invalid webhook response: not JSON");
        const json* response = find_path(review, "response");
        if (!response || !response->IsObject())
            co_return std::string("received invalid webhook response: no response");
        if (string_at(*response, "uid") != uid)
            co_return "expected response.uid=\"" + uid + "\", got \"" +
                string_at(*response, "uid") + "\"";
        const json* allowed = find_path(*response, "allowed");
        if (!allowed || !allowed->IsBool() || !allowed->GetBool()) {
            denied = denial(name, find_path(*response, "status"));
            co_return std::nullopt;
        }
        const std::string patch = string_at(*response, "patch");
        if (patch.empty()) co_return std::nullopt;
        if (string_at(*response, "patchType") != "JSONPatch")
            co_return "unsupported patch type \"" + string_at(*response, "patchType") + "\"";
        const auto text = net::base64_decode(patch);
        json_doc operations;
        if (text) operations.Parse(text->c_str(), text->size());
        if (!text || operations.HasParseError())
            co_return std::string("the patch is not base64-encoded JSON");
        if (auto e = json_patch(object, operations)) co_return "applying the patch: " + *e;
        co_return std::nullopt;
    }
};

admission::admission(asio::any_io_executor executor, object_store& store)
    : impl_(std::make_shared<impl>(std::move(executor), store)) {}

admission::~admission() = default;

bool admission::wants(const resource_type& type, const std::string& ns, const json& object) const {
    return !impl_->matching(type, ns, object).empty();
}

std::uint64_t admission::calls() const {
    return impl_->calls;
}

asio::awaitable<std::optional<api_error>>
admission::admit_create(const resource_type& type, std::string ns, json_doc& object) {
    const auto self = impl_;
    const auto webhooks = self->matching(type, ns, object);
    for (const auto& w : webhooks) {
        const std::string name = string_at(*w.spec, "name");
        std::optional<api_error> denied;
        const auto failure = co_await self->call(w, type, ns, object, denied);
        if (denied) co_return denied;
        if (!failure) continue;
        // failurePolicy Ignore: the object goes on as if the webhook had not been configured.
        if (string_at(*w.spec, "failurePolicy") != "Ignore")
            co_return internal_error("failed calling webhook \"" + name + "\": " + *failure);
    }
    co_return std::nullopt;
}

namespace {

using causes = std::vector<std::pair<std::string, std::string>>;

void set_default(json& object, const char* key, json value, json_alloc& a) {
    if (!object.HasMember(key) || object[key].IsNull()) {
        object.RemoveMember(key);
        object.AddMember(json(key, a), value, a);
    }
}

bool one_of(const std::string& value, std::initializer_list<const char*> allowed) {
    return std::any_of(allowed.begin(), allowed.end(), [&](const char* x) { return value == x; });
}

std::string supported(const std::string& value, std::initializer_list<const char*> allowed) {
    std::string list;
    for (const char* x : allowed)
        list += std::string(list.empty() ? "" : ", ") + "\"" + x + "\"";
    return "Unsupported value: \"" + value + "\": supported values: " + list;
}

void check_webhook(json& w, const std::string& at, json_alloc& a, causes& out,
                   std::vector<std::string>& names) {
    const std::string name = string_at(w, "name");
    if (name.empty())
        out.emplace_back(at + ".name", "Required value");
    else if (std::count(name.begin(), name.end(), '.') < 2)
        out.emplace_back(at + ".name", "Invalid value: \"" + name +
                                           "\": should be a domain with at least three segments "
                                           "separated by dots");
    else if (std::find(names.begin(), names.end(), name) != names.end())
        out.emplace_back(at + ".name", "Duplicate value: \"" + name + "\"");
    names.push_back(name);

    const std::string url = string_at(w, "clientConfig.url");
    const bool service =
        find_path(w, "clientConfig.service") && find_path(w, "clientConfig.service")->IsObject();
    if (url.empty() == !service)
        out.emplace_back(at + ".clientConfig", "Required value: exactly one of url or service is "
                                               "required");
    else if (!url.empty() && url.rfind("https://", 0) != 0)
        out.emplace_back(at + ".clientConfig.url",
                         "Invalid value: \"" + url + "\": 'https' is the only allowed URL scheme");
    if (const std::string ca = string_at(w, "clientConfig.caBundle");
        !ca.empty() && !net::base64_decode(ca))
        out.emplace_back(at + ".clientConfig.caBundle", "Invalid value: not valid base64");

    const json* versions = find_path(w, "admissionReviewVersions");
    if (!contains(versions, "v1") && !contains(versions, "v1beta1"))
        out.emplace_back(at + ".admissionReviewVersions",
                         "Required value: must specify one of v1, v1beta1");
    const std::string side = string_at(w, "sideEffects");
    if (!one_of(side, {"None", "NoneOnDryRun"}))
        out.emplace_back(at + ".sideEffects", side.empty()
                                                  ? "Required value"
                                                  : supported(side, {"None", "NoneOnDryRun"}));

    set_default(w, "failurePolicy", json("Fail"), a);
    set_default(w, "matchPolicy", json("Equivalent"), a);
    set_default(w, "reinvocationPolicy", json("Never"), a);
    set_default(w, "timeoutSeconds", json(10), a);
    set_default(w, "namespaceSelector", json(rapidjson::kObjectType), a);
    set_default(w, "objectSelector", json(rapidjson::kObjectType), a);
    if (const auto p = string_at(w, "failurePolicy"); !one_of(p, {"Fail", "Ignore"}))
        out.emplace_back(at + ".failurePolicy", supported(p, {"Fail", "Ignore"}));
    if (const auto p = string_at(w, "reinvocationPolicy"); !one_of(p, {"Never", "IfNeeded"}))
        out.emplace_back(at + ".reinvocationPolicy", supported(p, {"Never", "IfNeeded"}));
    const json& timeout = w["timeoutSeconds"];
    if (!timeout.IsInt() || timeout.GetInt() < 1 || timeout.GetInt() > 30)
        out.emplace_back(at + ".timeoutSeconds",
                         "Invalid value: the timeout value must be between 1 and 30 seconds");
    for (const char* s : {"namespaceSelector", "objectSelector"})
        if (auto parsed = label_selector_of(&w[s]); !parsed)
            out.emplace_back(at + "." + s, "Invalid value: " + parsed.error().text);

    json* rules = w.HasMember("rules") ? &w["rules"] : nullptr;
    if (!rules || !rules->IsArray()) return;
    for (rapidjson::SizeType i = 0; i < rules->Size(); ++i) {
        json& r = (*rules)[i];
        const std::string rat = at + ".rules[" + std::to_string(i) + "]";
        if (!r.IsObject()) {
            out.emplace_back(rat, "Invalid value: must be an object");
            continue;
        }
        set_default(r, "scope", json("*"), a);
        const json* ops = find_path(r, "operations");
        if (ops && ops->IsArray())
            for (const auto& op : ops->GetArray())
                if (!op.IsString() ||
                    !one_of(op.GetString(), {"*", "CREATE", "UPDATE", "DELETE", "CONNECT"}))
                    out.emplace_back(rat + ".operations",
                                     supported(op.IsString() ? op.GetString() : "",
                                               {"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}));
        for (const char* list : {"apiGroups", "apiVersions", "resources", "operations"})
            if (!find_path(r, list) || !find_path(r, list)->IsArray() ||
                find_path(r, list)->Empty())
                out.emplace_back(rat + "." + list, "Required value");
        if (const auto s = string_at(r, "scope"); !one_of(s, {"*", "Cluster", "Namespaced"}))
            out.emplace_back(rat + ".scope", supported(s, {"*", "Cluster", "Namespaced"}));
    }
}

} // namespace

std::optional<api_error> prepare_webhook_configuration(const resource_type& type,
                                                       const std::string& name, json_doc& body) {
    if (type.group != configurations_group || type.plural != "mutatingwebhookconfigurations")
        return std::nullopt;
    causes problems;
    auto& a = body.GetAllocator();
    if (body.IsObject() && body.HasMember("webhooks") && !body["webhooks"].IsNull()) {
        json& webhooks = body["webhooks"];
        if (!webhooks.IsArray()) {
            problems.emplace_back("webhooks", "Invalid value: must be a list");
        } else {
            std::vector<std::string> names;
            for (rapidjson::SizeType i = 0; i < webhooks.Size(); ++i) {
                if (!webhooks[i].IsObject()) {
                    problems.emplace_back("webhooks[" + std::to_string(i) + "]",
                                          "Invalid value: must be an object");
                    continue;
                }
                check_webhook(webhooks[i], "webhooks[" + std::to_string(i) + "]", a, problems,
                              names);
            }
        }
    }
    if (problems.empty()) return std::nullopt;
    return invalid(type, name, std::move(problems));
}

} // namespace hpaplus::sim
