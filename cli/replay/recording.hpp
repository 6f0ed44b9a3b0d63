// cli/replay/recording.hpp — `hpaplus replay`'s inputs decoded: the autoscaler files (HPAPlus or
// autoscaling/v2 HPA, YAML or JSON) and the recorded-load file (docs/replay.md).
#pragma once

#include "core/outcome.hpp"
#include "policy/replay.hpp"
#include "policy/types.hpp"

#include <string>
#include <string_view>

namespace hpaplus::cli {

/// The longest recording replay accepts (it steps through it second by second).
inline constexpr std::chrono::hours max_recording{24 * 35};

/// One autoscaler: its object decoded, defaulted and validated, and its JSON text (for the
/// evaluate snapshots). Errors name the field.
struct replay_autoscaler {
    policy::autoscaler hpa;
    std::string json;                 ///< the object as JSON
    policy::controller_config config; ///< an HPAPlus runs with the HPAScaleToZero gate on
};
core::outcome<replay_autoscaler> decode_replay_autoscaler(std::string_view text);

/// The metrics file: `{"start", "stepSeconds", "initialReplicas", "podResources": {"requests",
/// "limits"}, "series": {"<spec.metrics index>": [number | null, ...]}}`. Errors name the field.
core::outcome<policy::recorded_load> decode_recording(std::string_view text);

} // namespace hpaplus::cli
