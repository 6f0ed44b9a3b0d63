// cli/client_flags.hpp — the flags that tune the API client (`kube::client_options`), shared by
// every subcommand that talks to a cluster.
#pragma once

#include "cli/flags.hpp"
#include "kube/client_options.hpp"

namespace hpaplus::cli {

/// Adds --kube-api-qps, --kube-api-burst, ... bound to `options` (its values are the defaults).
void add_client_flags(flag_table& flags, kube::client_options& options);

} // namespace hpaplus::cli
