// cli/replay_command.hpp — `hpaplus replay`: the decision core over recorded load, for one
// autoscaler and its variants (DESIGN §4.4b, docs/replay.md).
#pragma once

namespace hpaplus::cli {

int run_replay(int argc, char** argv);

} // namespace hpaplus::cli
