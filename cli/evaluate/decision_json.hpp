// cli/evaluate/decision_json.hpp — the decision record `hpaplus evaluate` prints
// (docs/evaluate.md).
#pragma once

#include "policy/decision.hpp"

#include <string>

namespace hpaplus::cli {

/// The pretty-printed JSON of every stage of one decision, newline-terminated.
std::string encode_decision(const policy::decision& dec);

} // namespace hpaplus::cli
