// cli/replay/report.hpp — `hpaplus replay --report`: the recorded load, each variant's capacity at
// its target and each variant's replicas on one time axis (SVG, or HTML with the summary table).
#pragma once

#include "cli/replay/requests.hpp"
#include "policy/replay.hpp"

#include <string>
#include <vector>

namespace hpaplus::cli {

struct replayed_variant {
    policy::autoscaler hpa;
    policy::replay_result result;
};

std::string render_replay_svg(const policy::recorded_load& load,
                              const std::vector<replayed_variant>& variants);
/// Without variants the horizontal part is left out; `requests` (replay --vertical) adds its
/// section when given.
std::string render_replay_html(const policy::recorded_load& load,
                               const std::vector<replayed_variant>& variants,
                               const requests_replay* requests = nullptr);

/// The summary table `hpaplus replay` prints (a FORECASTUPS column, and the comparison below,
/// when a variant has a spec.prediction).
std::string summary_table(const std::vector<replayed_variant>& variants);
/// Each predicting variant against the first (the autoscaler run today, without prediction):
/// "NAME: N seconds fewer above target than BASE, for M replica-seconds more (+x %); the forecast
/// scaled up K times", one line each; "" when there is nothing to compare.
std::string prediction_comparison(const std::vector<replayed_variant>& variants);
/// `{"variants": [{"name", "rescales", "scaleUps", "scaleDowns", "maxReplicas", "replicaSeconds",
/// "secondsAboveTarget"[, "forecastUps"]}]}` (and `"requests": {...}` with replay --vertical),
/// newline-terminated.
std::string summary_json(const std::vector<replayed_variant>& variants,
                         const requests_replay* requests = nullptr);

} // namespace hpaplus::cli
