// core/names.hpp — Kubernetes object names as the API server validates them (apimachinery's
// IsDNS1123Label / IsDNS1123Subdomain): what a name that reached us from a URL or a spec must be
// before it goes anywhere else (a query, a path, a message).
#pragma once

#include <string_view>

namespace hpaplus::core {

/// At most 63 of a-z, 0-9 and '-', starting and ending with a letter or digit (namespaces,
/// most names).
bool is_dns1123_label(std::string_view s) noexcept;

/// At most 253 characters: DNS-1123 labels joined by '.' (object names such as pods).
bool is_dns1123_subdomain(std::string_view s) noexcept;

} // namespace hpaplus::core
