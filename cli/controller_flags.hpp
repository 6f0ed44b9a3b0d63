// cli/controller_flags.hpp — the flags of `hpaplus controller` (one table: parser and help text).
#pragma once

#include "controller/runtime/options.hpp"
#include "core/outcome.hpp"

#include <string>
#include <vector>

namespace hpaplus::cli {

/// Parses `hpaplus controller` arguments (argv[0] is the subcommand). `help` is set for --help.
core::outcome<controller::controller_options>
parse_controller_flags(const std::vector<std::string>& args, bool& help);

/// The --help text, defaults included.
std::string controller_flags_help();

} // namespace hpaplus::cli
