// kube/client_flags.hpp — the command-line flags that tune the API client (`client_options`),
// shared by every subcommand that talks to a cluster (`controller`, `adapter`).
#pragma once

#include "core/outcome.hpp"
#include "kube/api_client.hpp"

#include <string>
#include <string_view>

namespace hpaplus::kube {

/// Applies `--name=value` to `options` when `name` is a client flag (without the dashes).
/// Returns false when `name` is not a client flag; an error when the value is unusable.
core::outcome<bool> apply_client_flag(std::string_view name, std::string_view value,
                                      client_options& options);

/// One line per flag with its default, for `--help`.
std::string client_flags_help();

} // namespace hpaplus::kube
