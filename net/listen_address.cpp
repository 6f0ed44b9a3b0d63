// net/listen_address.cpp — ADDR:PORT parsing.
#include "net/listen_address.hpp"

#include <charconv>

namespace hpaplus::net {

bool split_listen(std::string_view text, std::string& address, unsigned short& port) {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return false;
    address = std::string(text.substr(0, colon));
    if (address.size() > 1 && address.front() == '[' && address.back() == ']')
        address = address.substr(1, address.size() - 2);
    if (address.empty()) address = "0.0.0.0";
    const std::string_view p = text.substr(colon + 1);
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), value);
    if (p.empty() || ec != std::errc{} || end != p.data() + p.size() || value > 65535) return false;
    port = static_cast<unsigned short>(value);
    return true;
}

} // namespace hpaplus::net
