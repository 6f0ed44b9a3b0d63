// cli/evaluate_command.cpp — `hpaplus evaluate`: decode a snapshot (cli/evaluate/snapshot), run
// policy::decide and policy::finish exactly as the controller does, and print the decision record
// (cli/evaluate/decision_json).
#include "cli/evaluate_command.hpp"

#include "cli/evaluate/decision_json.hpp"
#include "cli/evaluate/explain.hpp"
#include "cli/evaluate/snapshot.hpp"
#include "cli/read_input.hpp"

#include <cstdio>

namespace hpaplus::cli {
namespace {

constexpr const char* evaluate_usage =
    "Usage: hpaplus evaluate [--explain] FILE|-\n"
    "\n"
    "Runs one reconcile offline: reads a JSON snapshot of what the controller would read (an "
    "HPAPlus or\n"
    "autoscaling/v2 HorizontalPodAutoscaler, its scale, pods, pod metrics, custom/external metric "
    "values,\n"
    "failures to inject and the autoscaler's history) and prints the decision it would take, stage "
    "by\n"
    "stage. The same code runs in the controller. See docs/evaluate.md for the format.\n"
    "\n"
    "  --explain  print the decision in words instead: each metric's proposal and which pods "
    "counted,\n"
    "             the tolerance band, the stabilization window, the rate-limit arithmetic, "
    "min/max\n"
    "\n"
    "Exit codes: 0 decided, 2 bad usage or bad input (one line on stderr naming the field).\n";

} // namespace

evaluate_result evaluate_document(std::string_view input, core::time_point now,
                                  evaluate_output form) {
    snapshot s;
    if (auto error = decode_snapshot(input, now, s)) return {2, {}, std::move(*error)};
    policy::decision dec = policy::decide(s.input);
    std::optional<std::string> write_error;
    if (dec.rescale) write_error = s.scale_write_error;
    policy::finish(dec, s.input, write_error);
    if (form == evaluate_output::explanation)
        return {0, explain_decision(s.input, dec, s.decided), {}};
    return {0, encode_decision(dec), {}};
}

int run_evaluate(int argc, char** argv) {
    if (argc >= 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
        std::fputs(evaluate_usage, stdout);
        return 0;
    }
    const bool explain = argc == 3 && std::string_view(argv[1]) == "--explain";
    if (argc != 2 && !explain) {
        std::fputs(evaluate_usage, stderr);
        return 2;
    }
    const char* file = argv[argc - 1];
    const auto text = read_input(file);
    if (!text) {
        std::fprintf(stderr, "hpaplus evaluate: %s: %s\n", file, text.error().text.c_str());
        return 2;
    }
    const auto now = core::wall_now();
    const evaluate_result result = evaluate_document(
        *text, now, explain ? evaluate_output::explanation : evaluate_output::decision_json);
    if (result.exit_code != 0) {
        std::fprintf(stderr, "hpaplus evaluate: %s: %s\n", file, result.error.c_str());
        return result.exit_code;
    }
    std::fwrite(result.output.data(), 1, result.output.size(), stdout);
    return 0;
}

} // namespace hpaplus::cli
