// core/names.cpp — DNS-1123 names.
#include "core/names.hpp"

namespace hpaplus::core {
namespace {

bool lower_alnum(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

} // namespace

bool is_dns1123_label(std::string_view s) noexcept {
    if (s.empty() || s.size() > 63 || !lower_alnum(s.front()) || !lower_alnum(s.back()))
        return false;
    for (char c : s)
        if (!lower_alnum(c) && c != '-') return false;
    return true;
}

bool is_dns1123_subdomain(std::string_view s) noexcept {
    if (s.empty() || s.size() > 253) return false;
    while (true) {
        const auto dot = s.find('.');
        const std::string_view label = s.substr(0, dot);
        if (label.empty() || !lower_alnum(label.front()) || !lower_alnum(label.back()))
            return false;
        for (char c : label)
            if (!lower_alnum(c) && c != '-') return false;
        if (dot == std::string_view::npos) return true;
        s.remove_prefix(dot + 1);
    }
}

} // namespace hpaplus::core
