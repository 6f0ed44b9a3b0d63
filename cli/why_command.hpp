// cli/why_command.hpp — `hpaplus why NAMESPACE/NAME`: the input a live object's next pass decides
// from, fetched from the controller's /debug/objects, and its decision explained.
#pragma once

namespace hpaplus::cli {

int run_why(int argc, char** argv);

} // namespace hpaplus::cli
