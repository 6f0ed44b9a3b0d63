// cli/cron_command.hpp — `hpaplus cron next` (DESIGN §4.3): the next fire times of a
// schedule in a time zone.
#pragma once

namespace hpaplus::cli {

int run_cron(int argc, char** argv);

} // namespace hpaplus::cli
