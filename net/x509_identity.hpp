// net/x509_identity.hpp — who a client certificate says its holder is, once it verifies against a
// set of certificate authorities for client authentication (as Kubernetes' x509 authenticator
// does: the common name is the user, the organizations are the groups).
#pragma once

#include "core/outcome.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::net {

struct x509_identity {
    std::string common_name;
    std::vector<std::string> organizations;
};

/// The certificate authorities one kind of client certificate must chain to (a PEM bundle).
class client_ca {
  public:
    /// Throws std::runtime_error naming what is wrong (no certificate in `pem`, a bad one).
    explicit client_ca(std::string_view pem);
    ~client_ca();
    client_ca(const client_ca&) = delete;
    client_ca& operator=(const client_ca&) = delete;

    /// The identity in `chain` (DER, leaf first, as http_request::peer_certificates) when the leaf
    /// verifies against these CAs, through the chain's other certificates, for client
    /// authentication and now; otherwise what is wrong.
    core::outcome<x509_identity> verify(const std::vector<std::string>& chain) const;

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace hpaplus::net
