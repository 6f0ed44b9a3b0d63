// adapter/auth.hpp — who is calling `hpaplus adapter`, decided the way an aggregated API
// server decides it (k8s.io/apiserver's request-header and x509 authenticators, with their flag
// names): the API server's front-proxy client certificate, signed by the request-header CA and
// with an allowed common name, vouches for the user in X-Remote-User / X-Remote-Group /
// X-Remote-Extra-*; a client certificate signed by the client CA is its common name and
// organizations. Anything else is unauthenticated (401), except on the always-allowed paths.
// Bearer tokens and authorization are asked of the API server (metrics/adapter_delegation).
#pragma once

#include "core/outcome.hpp"
#include "net/http_message.hpp"

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::adapter {

/// How the front proxy (the API server's aggregator) is recognised and names its caller.
struct request_header_settings {
    std::string client_ca_pem;              ///< "" = no front-proxy authentication
    std::vector<std::string> allowed_names; ///< common names it may have; empty = any
    std::vector<std::string> username_headers{"X-Remote-User"};
    std::vector<std::string> group_headers{"X-Remote-Group"};
    std::vector<std::string> extra_headers_prefix{"X-Remote-Extra-"};
    bool operator==(const request_header_settings&) const = default;
};

/// Whom client certificates are trusted from: the flags' files, or what kube-apiserver publishes
/// in kube-system/extension-apiserver-authentication.
struct authentication_settings {
    request_header_settings request_header;
    std::string client_ca_pem; ///< "" = no client-certificate authentication
    bool operator==(const authentication_settings&) const = default;
};

/// The settings in the ConfigMap kube-system/extension-apiserver-authentication (a JSON object,
/// as the API server returns it): PEM bundles, lists as JSON arrays in strings. The error names
/// the key that is malformed.
core::outcome<authentication_settings> settings_from_configmap(std::string_view configmap_json);

struct user_info {
    std::string name;
    std::vector<std::string> groups; ///< with system:authenticated
    std::map<std::string, std::vector<std::string>> extra;
};

class adapter_authenticator {
  public:
    explicit adapter_authenticator(std::vector<std::string> always_allow_paths);
    ~adapter_authenticator();

    /// Trusts these CAs and header names from now on. Throws std::runtime_error saying what is
    /// wrong (a PEM that holds no certificate); the previous settings then stay.
    void configure(const authentication_settings& settings);
    /// Some way of authenticating certificates is configured.
    bool enabled() const;
    /// `path` needs neither credentials nor authorization (health probes).
    bool always_allowed(std::string_view path) const;
    /// The caller by its client certificate, or why it is not authenticated (for the log, never
    /// for the caller).
    core::outcome<user_info> authenticate(const net::http_request& request) const;

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

struct authorization_decision {
    bool allowed = false;
    std::string reason; ///< the authorizer's, shown in the 403 message
};

/// The user a TokenReview answer names; an error when the token is not authenticated (its
/// status.error, if any) or the answer is malformed ("the review answer ...").
core::outcome<user_info> token_review_user(std::string_view answer);
/// The decision a SubjectAccessReview answer carries; an error when it is malformed.
core::outcome<authorization_decision> access_review_decision(std::string_view answer);

/// The bearer token of an `Authorization: Bearer ...` header, or "".
std::string_view bearer_token(const net::http_request& request);

/// What a request asks for, in SubjectAccessReview's terms (k8s.io/apiserver's RequestInfo):
/// under /apis/GROUP/VERSION/ a resource request — `namespaces/NS/RESOURCE[/NAME[/SUB]]` or
/// `RESOURCE[/NAME[/SUB]]`, verb get with a name, list without (watch with ?watch) — and anything
/// else a non-resource request on its path with verb get.
struct request_attributes {
    bool resource_request = false;
    std::string verb;
    std::string api_group, api_version, ns, resource, subresource, name; ///< resource requests
    std::string path;                                                    ///< non-resource requests
};
request_attributes attributes_of(const net::http_request& request);

/// The 403 Status an API server answers a forbidden request with (its message names the user,
/// verb, resource and namespace, and the authorizer's reason).
net::http_response forbidden_status(const user_info& user, const request_attributes& attributes,
                                    const std::string& reason);

/// A `Status` error body with its HTTP code.
net::http_response status_response(int code, const char* reason, const std::string& message);
/// The 401 Status an API server answers an unauthenticated request with.
net::http_response unauthorized_status();
/// The 500 Status for a request that could not be authorized (the API server did not answer).
net::http_response authorization_error_status(const std::string& why);

} // namespace hpaplus::adapter
