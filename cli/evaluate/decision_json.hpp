// cli/evaluate/decision_json.hpp — the decision record `hpaplus evaluate` prints
// (docs/evaluate.md).
#pragma once

#include "kube/encode.hpp"
#include "policy/decision.hpp"

#include <string>

namespace hpaplus::cli {

/// The pretty-printed JSON of every stage of one decision, newline-terminated.
std::string encode_decision(const policy::decision& dec);

/// `v` indented by two spaces, newline-terminated (what evaluate and replay write).
std::string pretty_json(const rapidjson::Value& v);

/// The autoscaler's history in the shape `evaluate` reads and prints.
rapidjson::Value encode_history(const policy::history& h, kube::json_allocator& a);

} // namespace hpaplus::cli
