// cli/demo_command.hpp — `hpaplus demo`: its flags; demo/ runs it.
#pragma once

namespace hpaplus::cli {

int run_demo(int argc, char** argv);

} // namespace hpaplus::cli
