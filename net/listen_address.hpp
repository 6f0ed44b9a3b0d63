// net/listen_address.hpp — the ADDR:PORT form of every --*-listen flag (controller, adapter,
// webhook, sim, demo).
#pragma once

#include <string>
#include <string_view>

namespace hpaplus::net {

/// Splits `ADDR:PORT` (`:8080` = all addresses, `[::1]:80`); false when malformed.
bool split_listen(std::string_view text, std::string& address, unsigned short& port);

} // namespace hpaplus::net
