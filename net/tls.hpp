// net/tls.hpp — TLS material for servers we run ourselves (the simulated cluster, tests): a
// self-signed certificate authority and a serving certificate it signs, all in PEM.
#pragma once

#include <string>
#include <vector>

namespace hpaplus::net {

struct tls_material {
    std::string ca_cert_pem; ///< the CA clients trust
    std::string cert_pem;    ///< the server's certificate, signed by the CA
    std::string key_pem;     ///< the server's private key
    std::string ca_key_pem;  ///< the CA's private key (to issue more certificates)
};

/// Makes a fresh CA and a serving certificate for `hosts` (DNS names or IP addresses as SANs).
/// Throws std::runtime_error when OpenSSL fails (a start-up error).
tls_material make_self_signed(const std::vector<std::string>& hosts);

/// A client certificate (extended key usage clientAuth) for `common_name`, with `organizations` as
/// its O entries (Kubernetes reads them as groups), signed by the CA of `ca`. The result's
/// ca_cert_pem and ca_key_pem are `ca`'s. Throws std::runtime_error when OpenSSL fails or `ca`
/// holds no CA key.
tls_material issue_client_certificate(const tls_material& ca, const std::string& common_name,
                                      const std::vector<std::string>& organizations = {});

} // namespace hpaplus::net
