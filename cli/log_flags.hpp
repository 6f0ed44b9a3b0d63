// cli/log_flags.hpp — --log-level, --log-format and klog's -v, shared by the long-running
// subcommands (controller, adapter): the values are checked when parsed and resolved against the
// environment when the process starts (controller/runtime/logging.hpp).
#pragma once

#include "cli/flags.hpp"

#include <string>

namespace hpaplus::cli {

/// Adds --log-level, --v (also -v=N) and --log-format, setting `level` and `format` to the text
/// given (a -v value as the level name it maps to); both stay "" when not given.
void add_log_flags(flag_table& flags, std::string& level, std::string& format);

/// Configures logging from the flags' `level` and `format` and the environment. false, with a
/// usage error on stderr naming `command`, when a value is not a level or a format.
bool start_logging(const char* command, const std::string& level, const std::string& format);

} // namespace hpaplus::cli
