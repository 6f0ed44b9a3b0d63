// cli/evaluate/decision_json.hpp — the decision record `hpaplus evaluate` prints
// (docs/evaluate.md).
#pragma once

#include "kinds/evaluate_input.hpp"
#include "kube/encode.hpp"
#include "policy/decision.hpp"

#include <string>

namespace hpaplus::cli {

/// The pretty-printed JSON of every stage of one decision, newline-terminated.
std::string encode_decision(const policy::decision& dec);

using kinds::encode_history; // the history in the shape evaluate reads and prints
using kinds::pretty_json;

} // namespace hpaplus::cli
