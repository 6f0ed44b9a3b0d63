// cli/replay/snapshot_json.hpp — one replayed decision's input as an `hpaplus evaluate` document,
// so that any step of a replay can be run again and explained on its own.
#pragma once

#include "policy/decision.hpp"

#include <string>

namespace hpaplus::cli {

/// The evaluate input (docs/evaluate.md) that gives `in`: `hpa_json` is the autoscaler object as
/// given (its status is replaced by the replayed one).
std::string encode_snapshot(const policy::reconcile_input& in, const std::string& hpa_json);

} // namespace hpaplus::cli
