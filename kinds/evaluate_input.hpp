// kinds/evaluate_input.hpp — one reconcile's input written as the document `hpaplus evaluate`
// reads (docs/evaluate.md): from a replayed step (cli/replay) or from a live object's pass (the
// controller's /debug/objects), so that any decision can be run again and explained on its own.
#pragma once

#include "kube/encode.hpp"
#include "policy/decision.hpp"

#include <optional>
#include <string>

namespace hpaplus::kinds {

/// What the controller did with the input, beside it in the document (`decided`): evaluate
/// compares its own decision with it.
struct decided_outcome {
    std::int32_t current_replicas = 0;
    std::int32_t desired_replicas = 0;
    bool scale_updated = false;
    std::optional<std::string> error;
};

/// The evaluate input (docs/evaluate.md) that gives `in`: `hpa_json` is the autoscaler object as
/// given (its status is replaced by the one decided from). `scale_write_error`: the /scale write
/// failed (a failure `updateScale`).
std::string encode_evaluate_input(const policy::reconcile_input& in, const std::string& hpa_json,
                                  const std::optional<decided_outcome>& decided = std::nullopt,
                                  bool scale_write_failed = false);

/// The autoscaler's history in the shape `evaluate` reads and prints.
rapidjson::Value encode_history(const policy::history& h, kube::json_allocator& a);

/// `v` indented by two spaces, newline-terminated (what evaluate and replay write).
std::string pretty_json(const rapidjson::Value& v);

} // namespace hpaplus::kinds
