// cli/dispatch.hpp — the hpaplus command line: subcommand dispatch and help.
#pragma once

namespace hpaplus::cli {

/// Runs `hpaplus ARGS...`; returns the process exit code (0 ok, 1 runtime failure, 2 bad usage or
/// input).
int run_cli(int argc, char** argv);

} // namespace hpaplus::cli
