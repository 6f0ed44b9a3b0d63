// cli/adapter_command.hpp — `hpaplus adapter`: serves external.metrics.k8s.io and
// custom.metrics.k8s.io from the configured metric backends over TLS, for the API server's
// aggregation layer (deploy/adapter.yaml registers it with an APIService).
#pragma once

namespace hpaplus::cli {

/// Runs until SIGINT/SIGTERM; returns the exit code (2 for bad usage or configuration).
int run_adapter(int argc, char** argv);

} // namespace hpaplus::cli
