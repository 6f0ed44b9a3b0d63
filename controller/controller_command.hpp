// controller/controller_command.hpp — `hpaplus controller`: run the autoscaler against a cluster.
#pragma once

#include <map>
#include <string>

namespace hpaplus::controller {

int run_controller(int argc, char** argv);

/// `hpaplus demo` (DESIGN §4.4).
int run_demo(int argc, char** argv);

/// The process environment as a map (for kube::load_config).
std::map<std::string, std::string> environment();

/// Log lines as `TIME LEVEL message` on stderr (the object key leads every per-object message).
void configure_logging();

} // namespace hpaplus::controller
