// What a TLS client presents as its certificate chain reaches net::client_ca::verify (the
// adapter's authentication): any bytes are an identity or an error, never a crash — and bytes no
// trusted CA signed never verify. The input is split at 0xFF 0x00 into at most 10 DER
// certificates, leaf first, as http_request::peer_certificates carries them.
#include "fuzz/fuzz.hpp"
#include "net/tls.hpp"
#include "net/x509_identity.hpp"

#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const hpaplus::net::client_ca trusted(
        hpaplus::net::make_self_signed({"127.0.0.1"}).ca_cert_pem); // its key is never seen
    const std::string_view input = hpaplus::fuzz::text(data, size);
    std::vector<std::string> chain;
    for (std::size_t at = 0; at <= input.size() && chain.size() < 10;) {
        const auto end = std::min(input.find(std::string_view("\xff\x00", 2), at), input.size());
        chain.emplace_back(input.substr(at, end - at));
        at = end + 2;
    }
    const auto identity = trusted.verify(chain);
    hpaplus::fuzz::require(!identity, "a certificate no trusted CA signed never verifies");
    return 0;
}
