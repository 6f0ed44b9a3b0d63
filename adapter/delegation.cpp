// adapter/delegation.cpp — TokenReview, SubjectAccessReview and the authentication
// ConfigMap through kube::api_client, with the answer caches.
#include "adapter/delegation.hpp"

#include "kube/api_client.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <unordered_map>

namespace hpaplus::adapter {
namespace {

using clock = std::chrono::steady_clock;
using writer = rapidjson::Writer<rapidjson::StringBuffer>;

// Answers by request, each until its expiry; never more than `max` (expired ones go first, then
// everything: a flood of distinct requests costs reviews, never memory).
template <class Value> class answer_cache {
  public:
    const Value* find(const std::string& key, clock::time_point now) const {
        const auto it = entries_.find(key);
        return it != entries_.end() && it->second.second > now ? &it->second.first : nullptr;
    }
    void put(std::string key, Value value, clock::time_point expires, std::size_t max) {
        if (entries_.size() >= max) {
            const auto now = clock::now();
            std::erase_if(entries_, [&](const auto& e) { return e.second.second <= now; });
            if (entries_.size() >= max) entries_.clear();
        }
        entries_.insert_or_assign(std::move(key), std::make_pair(std::move(value), expires));
    }

  private:
    std::unordered_map<std::string, std::pair<Value, clock::time_point>> entries_;
};

void string_list(writer& w, const std::vector<std::string>& values) {
    w.StartArray();
    for (const auto& v : values)
        w.String(v);
    w.EndArray();
}

std::string sar_body(const user_info& user, const request_attributes& a) {
    rapidjson::StringBuffer b;
    writer w(b);
    w.StartObject();
    w.Key("apiVersion"), w.String("authorization.k8s.io/v1");
    w.Key("kind"), w.String("SubjectAccessReview");
    w.Key("spec"), w.StartObject();
    if (a.resource_request) {
        w.Key("resourceAttributes"), w.StartObject();
        w.Key("namespace"), w.String(a.ns);
        w.Key("verb"), w.String(a.verb);
        w.Key("group"), w.String(a.api_group);
        w.Key("version"), w.String(a.api_version);
        w.Key("resource"), w.String(a.resource);
        w.Key("subresource"), w.String(a.subresource);
        w.Key("name"), w.String(a.name);
        w.EndObject();
    } else {
        w.Key("nonResourceAttributes"), w.StartObject();
        w.Key("path"), w.String(a.path);
        w.Key("verb"), w.String(a.verb);
        w.EndObject();
    }
    w.Key("user"), w.String(user.name);
    w.Key("groups"), string_list(w, user.groups);
    if (!user.extra.empty()) {
        w.Key("extra"), w.StartObject();
        for (const auto& [key, values] : user.extra)
            w.Key(key.c_str(), static_cast<rapidjson::SizeType>(key.size())),
                string_list(w, values);
        w.EndObject();
    }
    w.EndObject();
    w.EndObject();
    return {b.GetString(), b.GetSize()};
}

std::string token_review_body(const std::string& token) {
    rapidjson::StringBuffer b;
    writer w(b);
    w.StartObject();
    w.Key("apiVersion"), w.String("authentication.k8s.io/v1");
    w.Key("kind"), w.String("TokenReview");
    w.Key("spec"), w.StartObject(), w.Key("token"), w.String(token), w.EndObject();
    w.EndObject();
    return {b.GetString(), b.GetSize()};
}

} // namespace

struct adapter_delegation::impl {
    kube::api_client client;
    delegation_options options;
    answer_cache<core::outcome<user_info>> tokens;
    answer_cache<authorization_decision> decisions;
    std::uint64_t sent = 0;

    impl(boost::asio::any_io_executor ex, kube::cluster_config cluster, delegation_options o)
        : client(ex, std::move(cluster)), options(o) {}

    boost::asio::awaitable<kube::api_response> create(const char* target, std::string body) {
        ++sent;
        kube::api_request request;
        request.method = "POST";
        request.target = target;
        request.body = std::move(body);
        co_return co_await client.send(std::move(request));
    }
};

adapter_delegation::adapter_delegation(boost::asio::any_io_executor executor,
                                       kube::cluster_config cluster, delegation_options options)
    : impl_(std::make_unique<impl>(executor, std::move(cluster), options)) {}

adapter_delegation::~adapter_delegation() = default;

std::uint64_t adapter_delegation::reviews_sent() const {
    return impl_->sent;
}

boost::asio::awaitable<core::outcome<user_info>>
adapter_delegation::review_token(std::string token) {
    if (const auto* cached = impl_->tokens.find(token, clock::now())) co_return *cached;
    auto body = token_review_body(token);
    const auto answer =
        co_await impl_->create("/apis/authentication.k8s.io/v1/tokenreviews", std::move(body));
    if (!answer) // not cached: the API server may answer the next request
        co_return core::error_message("TokenReview failed: " + answer.message());
    auto result = token_review_user(answer.body);
    impl_->tokens.put(std::move(token), result, clock::now() + impl_->options.token_ttl,
                      impl_->options.max_cached);
    co_return result;
}

boost::asio::awaitable<core::outcome<authorization_decision>>
adapter_delegation::authorize(const user_info& user, const request_attributes& attributes) {
    std::string body = sar_body(user, attributes);
    if (const auto* cached = impl_->decisions.find(body, clock::now())) co_return *cached;
    std::string request_body = body;
    const auto answer = co_await impl_->create("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                                               std::move(request_body));
    if (!answer) co_return core::error_message("SubjectAccessReview failed: " + answer.message());
    auto decision = access_review_decision(answer.body);
    if (!decision) co_return decision.error();
    authorization_decision d = std::move(*decision);
    const auto ttl = d.allowed ? impl_->options.allow_ttl : impl_->options.deny_ttl;
    impl_->decisions.put(std::move(body), d, clock::now() + ttl, impl_->options.max_cached);
    co_return d;
}

boost::asio::awaitable<core::outcome<authentication_settings>>
adapter_delegation::read_authentication_settings() {
    kube::api_request request;
    request.target = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";
    const auto answer = co_await impl_->client.send(std::move(request));
    if (!answer) {
        std::string why =
            "reading kube-system/extension-apiserver-authentication: " + answer.message();
        if (answer.ec == kube::make_error_code(kube::errc::forbidden))
            why += " (bind the adapter's service account to the Role "
                   "extension-apiserver-authentication-reader, or give "
                   "--requestheader-client-ca-file)";
        co_return core::error_message(why);
    }
    auto settings = settings_from_configmap(answer.body);
    if (!settings)
        co_return core::error_message("kube-system/extension-apiserver-authentication: " +
                                      settings.error().text);
    co_return settings;
}

} // namespace hpaplus::adapter
