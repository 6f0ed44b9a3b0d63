// metrics/adapter_auth.hpp — who is calling `hpaplus adapter`, decided the way an aggregated API
// server decides it (k8s.io/apiserver's request-header and x509 authenticators, with their flag
// names): the API server's front-proxy client certificate, signed by the request-header CA and
// with an allowed common name, vouches for the user in X-Remote-User / X-Remote-Group /
// X-Remote-Extra-*; a client certificate signed by the client CA is its common name and
// organizations. Anything else is unauthenticated (401), except on the always-allowed paths.
#pragma once

#include "core/outcome.hpp"
#include "net/http_message.hpp"

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::metrics {

struct adapter_auth_options {
    std::string requestheader_client_ca_file;             ///< "" = no front-proxy authentication
    std::vector<std::string> requestheader_allowed_names; ///< empty = any name the CA signed
    std::vector<std::string> requestheader_username_headers{"X-Remote-User"};
    std::vector<std::string> requestheader_group_headers{"X-Remote-Group"};
    std::vector<std::string> requestheader_extra_headers_prefix{"X-Remote-Extra-"};
    std::string client_ca_file; ///< "" = no client-certificate authentication
    std::vector<std::string> always_allow_paths{"/healthz", "/readyz", "/livez"};
};

struct user_info {
    std::string name;
    std::vector<std::string> groups; ///< with system:authenticated
    std::map<std::string, std::vector<std::string>> extra;
};

class adapter_authenticator {
  public:
    /// Reads the CA files; throws std::runtime_error naming the flag and what is wrong.
    explicit adapter_authenticator(adapter_auth_options options);
    ~adapter_authenticator();

    /// Some way of authenticating is configured.
    bool enabled() const;
    /// `path` needs no credentials (health probes).
    bool always_allowed(std::string_view path) const;
    /// The caller, or why it is not authenticated (for the log, never for the caller).
    core::outcome<user_info> authenticate(const net::http_request& request) const;

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// The 401 Status an API server answers an unauthenticated request with.
net::http_response unauthorized_status();

} // namespace hpaplus::metrics
