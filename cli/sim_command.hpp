// cli/sim_command.hpp — `hpaplus sim`: the simulated cluster alone (DESIGN §4.5).
#pragma once

namespace hpaplus::cli {

/// `hpaplus sim [--listen ADDR:PORT] [--tls] [--kubeconfig-out FILE]`; runs until SIGINT/SIGTERM.
int run_sim(int argc, char** argv);

} // namespace hpaplus::cli
