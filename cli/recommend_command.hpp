// cli/recommend_command.hpp — `hpaplus recommend`: the VPAPlus recommender run once, offline, on
// a recorded history (DESIGN §4.4c). It feeds the samples through the controller's container
// windows and histograms and recommends with the controller's estimator.
#pragma once

#include <string>
#include <string_view>

namespace hpaplus::cli {

struct recommend_result {
    int exit_code = 0;  ///< 0, or 2 for bad input
    std::string output; ///< the recommendation document (exit 0)
    std::string error;  ///< one line naming the field (exit 2)
};

/// Recommends from one input document (JSON or YAML).
recommend_result recommend_document(std::string_view input);

/// The `recommend` subcommand: `hpaplus recommend FILE|-`.
int run_recommend(int argc, char** argv);

} // namespace hpaplus::cli
