// cli/evaluate_command.hpp — `hpaplus evaluate`: one reconcile, offline (DESIGN §4.2).
// Reads a snapshot of what the controller would read and prints the decision, running the same
// policy code as the controller.
#pragma once

#include "core/time.hpp"

#include <string>
#include <string_view>

namespace hpaplus::cli {

struct evaluate_result {
    int exit_code = 0;  ///< 0, or 2 for bad input
    std::string output; ///< the decision document (exit 0)
    std::string error;  ///< one line naming the field (exit 2)
};

enum class evaluate_output { decision_json, explanation };

/// Evaluates one input document. `now` is used when the document has no "now".
evaluate_result evaluate_document(std::string_view input, core::time_point now,
                                  evaluate_output form = evaluate_output::decision_json);

/// The `evaluate` subcommand: `hpaplus evaluate [--explain] FILE|-`.
int run_evaluate(int argc, char** argv);

} // namespace hpaplus::cli
