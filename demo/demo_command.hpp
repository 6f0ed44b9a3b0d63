// demo/demo_command.hpp — `hpaplus demo` (DESIGN §4.4): the simulated cluster and the real
// controller in one process, a load scenario, a live view and the report.
#pragma once

namespace hpaplus::demo {

int run_demo(int argc, char** argv);

} // namespace hpaplus::demo
