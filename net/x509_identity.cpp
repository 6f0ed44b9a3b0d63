// net/x509_identity.cpp — client certificate verification with OpenSSL's X509_STORE.
#include "net/x509_identity.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <stdexcept>

namespace hpaplus::net {
namespace {

struct certificate_deleter {
    void operator()(X509* x) const { X509_free(x); }
};
using certificate_ptr = std::unique_ptr<X509, certificate_deleter>;

certificate_ptr from_der(const std::string& der) {
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    return certificate_ptr(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
}

std::vector<std::string> entries(X509_NAME* name, int nid) {
    std::vector<std::string> out;
    for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0;
         i = X509_NAME_get_index_by_NID(name, nid, i)) {
        const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
        unsigned char* utf8 = nullptr;
        const int length = ASN1_STRING_to_UTF8(&utf8, data);
        if (length >= 0) out.emplace_back(reinterpret_cast<char*>(utf8), std::size_t(length));
        OPENSSL_free(utf8);
    }
    return out;
}

} // namespace

struct client_ca::impl {
    X509_STORE* store = X509_STORE_new();
    ~impl() { X509_STORE_free(store); }
};

client_ca::client_ca(std::string_view pem) : impl_(std::make_unique<impl>()) {
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    int added = 0;
    while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
        X509_STORE_add_cert(impl_->store, cert);
        X509_free(cert);
        ++added;
    }
    BIO_free(bio);
    ERR_clear_error(); // the end of the bundle reads as an error
    if (added == 0) throw std::runtime_error("no PEM certificate in the CA bundle");
}

client_ca::~client_ca() = default;

core::outcome<x509_identity> client_ca::verify(const std::vector<std::string>& chain) const {
    if (chain.empty()) return core::error_message("no client certificate");
    const certificate_ptr leaf = from_der(chain.front());
    if (!leaf) return core::error_message("the client certificate is not DER X.509");
    STACK_OF(X509)* untrusted = sk_X509_new_null();
    std::vector<certificate_ptr> held;
    for (std::size_t i = 1; i < chain.size(); ++i)
        if (auto c = from_der(chain[i])) {
            sk_X509_push(untrusted, c.get());
            held.push_back(std::move(c));
        }
    X509_STORE_CTX* ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, impl_->store, leaf.get(), untrusted);
    X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT);
    const bool ok = X509_verify_cert(ctx) == 1;
    const int error = X509_STORE_CTX_get_error(ctx);
    X509_STORE_CTX_free(ctx);
    sk_X509_free(untrusted);
    ERR_clear_error();
    if (!ok)
        return core::error_message(std::string("the client certificate does not verify: ") +
                                   X509_verify_cert_error_string(error));
    X509_NAME* subject = X509_get_subject_name(leaf.get());
    x509_identity id;
    const auto names = entries(subject, NID_commonName);
    if (!names.empty()) id.common_name = names.front();
    id.organizations = entries(subject, NID_organizationName);
    return core::success(std::move(id));
}

} // namespace hpaplus::net
