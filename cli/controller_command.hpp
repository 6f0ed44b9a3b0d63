// cli/controller_command.hpp — `hpaplus controller`: run the autoscaler against a cluster.
#pragma once

namespace hpaplus::cli {

int run_controller(int argc, char** argv);

} // namespace hpaplus::cli
