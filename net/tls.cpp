// net/tls.cpp — a throwaway CA and serving certificate made with OpenSSL (EC P-256, 1 year).
#include "net/tls.hpp"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>

#include <memory>
#include <stdexcept>

namespace hpaplus::net {
namespace {

template <class T, void (*Free)(T*)> struct deleter {
    void operator()(T* p) const { Free(p); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, deleter<EVP_PKEY, EVP_PKEY_free>>;
using x509_ptr = std::unique_ptr<X509, deleter<X509, X509_free>>;
using bio_ptr = std::unique_ptr<BIO, deleter<BIO, BIO_free_all>>;

void check(bool ok, const char* what) {
    if (!ok) throw std::runtime_error(std::string("TLS setup failed: ") + what);
}

pkey_ptr make_key() {
    pkey_ptr key(EVP_EC_gen("P-256"));
    check(key != nullptr, "EC key generation");
    return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const char* value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    check(ext != nullptr, "certificate extension");
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
}

x509_ptr make_cert(EVP_PKEY* key, const char* cn, X509* issuer) {
    x509_ptr cert(X509_new());
    check(cert != nullptr, "X509_new");
    X509_set_version(cert.get(), 2);
    unsigned char serial[16];
    RAND_bytes(serial, sizeof serial);
    serial[0] &= 0x7f;
    BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
    BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
    BN_free(bn);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
    X509_set_pubkey(cert.get(), key);
    X509_NAME* name = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn),
                               -1, -1, 0);
    X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name);
    return cert;
}

std::string pem_of(X509* cert) {
    bio_ptr bio(BIO_new(BIO_s_mem()));
    PEM_write_bio_X509(bio.get(), cert);
    char* data = nullptr;
    const long len = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(len));
}

std::string pem_of(EVP_PKEY* key) {
    bio_ptr bio(BIO_new(BIO_s_mem()));
    PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    const long len = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(len));
}

bool is_ip(const std::string& host) {
    unsigned char buf[16];
    return inet_pton(AF_INET, host.c_str(), buf) == 1 ||
           inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

} // namespace

tls_material make_self_signed(const std::vector<std::string>& hosts) {
    const pkey_ptr ca_key = make_key();
    const x509_ptr ca = make_cert(ca_key.get(), "hpaplus-sim-ca", nullptr);
    add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE");
    add_extension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
    add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
    check(X509_sign(ca.get(), ca_key.get(), EVP_sha256()) > 0, "signing the CA");

    const pkey_ptr key = make_key();
    const x509_ptr cert = make_cert(key.get(), "hpaplus-sim", ca.get());
    std::string san;
    for (const auto& h : hosts)
        san += (san.empty() ? "" : ",") + std::string(is_ip(h) ? "IP:" : "DNS:") + h;
    add_extension(cert.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
    add_extension(cert.get(), ca.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment");
    add_extension(cert.get(), ca.get(), NID_ext_key_usage, "serverAuth");
    if (!san.empty()) add_extension(cert.get(), ca.get(), NID_subject_alt_name, san.c_str());
    check(X509_sign(cert.get(), ca_key.get(), EVP_sha256()) > 0, "signing the serving certificate");

    return {pem_of(ca.get()), pem_of(cert.get()), pem_of(key.get()), pem_of(ca_key.get())};
}

tls_material issue_client_certificate(const tls_material& ca, const std::string& common_name,
                                      const std::vector<std::string>& organizations) {
    bio_ptr cert_bio(
        BIO_new_mem_buf(ca.ca_cert_pem.data(), static_cast<int>(ca.ca_cert_pem.size())));
    const x509_ptr ca_cert(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
    bio_ptr key_bio(BIO_new_mem_buf(ca.ca_key_pem.data(), static_cast<int>(ca.ca_key_pem.size())));
    const pkey_ptr ca_key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
    check(ca_cert && ca_key, "reading the CA certificate and key");

    const pkey_ptr key = make_key();
    const x509_ptr cert = make_cert(key.get(), common_name.c_str(), ca_cert.get());
    X509_NAME* name = X509_get_subject_name(cert.get());
    for (const auto& o : organizations)
        X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1, 0);
    add_extension(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE");
    add_extension(cert.get(), ca_cert.get(), NID_key_usage, "critical,digitalSignature");
    add_extension(cert.get(), ca_cert.get(), NID_ext_key_usage, "clientAuth");
    check(X509_sign(cert.get(), ca_key.get(), EVP_sha256()) > 0, "signing the client certificate");
    return {ca.ca_cert_pem, pem_of(cert.get()), pem_of(key.get()), ca.ca_key_pem};
}

} // namespace hpaplus::net
