// net/base64.cpp — base64 through OpenSSL's block coder.
#include "net/base64.hpp"

#include <openssl/evp.h>

#include <cctype>

namespace hpaplus::net {

std::string base64_encode(std::string_view data) {
    std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(data.data()),
                                  static_cast<int>(data.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    std::string clean;
    clean.reserve(text.size());
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c))) clean.push_back(c);
    if (clean.size() % 4 != 0) return std::nullopt;
    std::string out(clean.size() / 4 * 3, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(clean.data()),
                                  static_cast<int>(clean.size()));
    if (n < 0) return std::nullopt;
    // EVP_DecodeBlock counts the padding as zero bytes.
    std::size_t len = static_cast<std::size_t>(n);
    if (!clean.empty() && clean.back() == '=') --len;
    if (clean.size() > 1 && clean[clean.size() - 2] == '=') --len;
    out.resize(len);
    return out;
}

} // namespace hpaplus::net
