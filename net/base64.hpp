// net/base64.hpp — standard base64 (RFC 4648, with padding), as Kubernetes carries certificates,
// admission patches and basic-auth credentials.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hpaplus::net {

std::string base64_encode(std::string_view data);
/// Whitespace is ignored; nullopt when the text is not valid base64.
std::optional<std::string> base64_decode(std::string_view text);

} // namespace hpaplus::net
