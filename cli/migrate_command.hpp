// cli/migrate_command.hpp — `hpaplus migrate`: HorizontalPodAutoscalers in, equivalent HPAPlus
// objects out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::cli {

struct migrate_result {
    int exit_code = 0;                 ///< 0, or 2 for bad input
    std::string output;                ///< JSON: one HPAPlus, or a v1 List of them
    std::vector<std::string> warnings; ///< one line each (bad annotations, skipped objects)
    std::string error;                 ///< exit 2: what is wrong
};

/// Migrates every HorizontalPodAutoscaler in `input` (YAML or JSON, several documents, and `List`
/// objects as `kubectl get -o yaml` prints them). Other objects are skipped with a warning.
migrate_result migrate_documents(std::string_view input);

/// `hpaplus migrate [FILE|-]...`
int run_migrate(int argc, char** argv);

} // namespace hpaplus::cli
