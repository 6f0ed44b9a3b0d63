// kinds/prediction_checkpoint.hpp — HPAPlusCheckpoint: the history a spec.prediction with
// `source: Recorded` has recorded, kept in an object so that a restart keeps it (as
// VPAPlusCheckpoint keeps a VPAPlus's histograms). One per HPAPlus, of the same name; its status
// holds one value per step: {"metric", "step", "start", "values": [number | null, ...],
// "lastUpdateTime"}.
#pragma once

#include "core/outcome.hpp"
#include "forecast/forecast.hpp"

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::kinds {

/// Values one checkpoint holds at most (the newest are kept): about 1 MiB of JSON, under etcd's
/// object limit.
inline constexpr std::size_t max_checkpoint_values = std::size_t{1} << 17;

struct prediction_history {
    std::string metric;
    std::chrono::nanoseconds step{0};
    std::vector<forecast::sample> samples; ///< in time order, at the start of their step
    /// The uids of the HPAPlus objects in its metadata.ownerReferences (decoded; never encoded:
    /// the object is created with its owner).
    std::vector<std::string> owner_uids = {};
};

/// The status of the checkpoint of `h` (samples in time order, at most one per step).
std::string encode_prediction_checkpoint_status(const prediction_history& h, core::time_point now);

/// The history in an HPAPlusCheckpoint object as the API server returns it; an error says why it
/// cannot be used (it is then started afresh). Hostile text is an error, never a crash.
core::outcome<prediction_history> decode_prediction_checkpoint(std::string_view object);

} // namespace hpaplus::kinds
