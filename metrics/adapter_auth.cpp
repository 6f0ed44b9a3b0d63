// metrics/adapter_auth.cpp — request-header and client-certificate authentication.
#include "metrics/adapter_auth.hpp"

#include "kube/config.hpp"
#include "net/x509_identity.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>

namespace hpaplus::metrics {
namespace {

std::unique_ptr<net::client_ca> load_ca(const std::string& path, const char* flag) {
    if (path.empty()) return nullptr;
    const auto pem = kube::read_file(path);
    if (!pem) throw std::runtime_error(std::string("--") + flag + ": cannot read " + path);
    try {
        return std::make_unique<net::client_ca>(*pem);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("--") + flag + ": " + path + ": " + e.what());
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
    adapter_auth_options options;
    std::unique_ptr<net::client_ca> front_proxy;
    std::unique_ptr<net::client_ca> clients;

    // The front proxy's user, when its certificate verifies; an error when it verifies but is not
    // an allowed name; nullopt when it is not the front proxy's at all.
    std::optional<core::outcome<user_info>> from_front_proxy(const net::http_request& r) const {
        if (!front_proxy) return std::nullopt;
        auto id = front_proxy->verify(r.peer_certificates);
        if (!id) return std::nullopt;
        const auto& allowed = options.requestheader_allowed_names;
        if (!allowed.empty() &&
            std::find(allowed.begin(), allowed.end(), id->common_name) == allowed.end())
            return core::outcome<user_info>(core::error_message(
                "the front-proxy certificate's common name \"" + id->common_name +
                "\" is not in --requestheader-allowed-names"));
        user_info u;
        for (const auto& name : values_of(r, options.requestheader_username_headers)) {
            u.name = name;
            break;
        }
        if (u.name.empty()) return std::nullopt; // as upstream: then other ways are tried
        u.groups = values_of(r, options.requestheader_group_headers);
        for (const auto& [key, value] : r.headers)
            for (const auto& prefix : options.requestheader_extra_headers_prefix)
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

adapter_authenticator::adapter_authenticator(adapter_auth_options options)
    : impl_(std::make_unique<impl>()) {
    impl_->front_proxy =
        load_ca(options.requestheader_client_ca_file, "requestheader-client-ca-file");
    impl_->clients = load_ca(options.client_ca_file, "client-ca-file");
    impl_->options = std::move(options);
}

adapter_authenticator::~adapter_authenticator() = default;

bool adapter_authenticator::enabled() const {
    return impl_->front_proxy || impl_->clients;
}

bool adapter_authenticator::always_allowed(std::string_view path) const {
    const auto& paths = impl_->options.always_allow_paths;
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
                                       ? "no client certificate (bearer tokens are not accepted)"
                                       : "the client certificate is signed by no trusted CA");
    if (*user) (*user)->groups.push_back("system:authenticated");
    return *user;
}

net::http_response unauthorized_status() {
    return {401,
            "application/json",
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"Unauthorized","reason":"Unauthorized","code":401})",
            {}};
}

} // namespace hpaplus::metrics
