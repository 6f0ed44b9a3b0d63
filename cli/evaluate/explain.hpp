// cli/evaluate/explain.hpp — one decision told in words: each metric's proposal and which pods
// counted, the tolerance band, the stabilization window's entries, the rate-limit arithmetic,
// min/max, gates and fallbacks (`hpaplus evaluate --explain`, `hpaplus why`).
#pragma once

#include "kinds/evaluate_input.hpp"
#include "policy/decision.hpp"

#include <optional>
#include <string>

namespace hpaplus::cli {

/// The explanation of `d`, decided from `in`. With `decided` (what the controller decided from the
/// same input), it also says whether the two agree.
std::string explain_decision(const policy::reconcile_input& in, const policy::decision& d,
                             const std::optional<kinds::decided_outcome>& decided);

} // namespace hpaplus::cli
