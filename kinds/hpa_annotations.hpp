// kinds/hpa_annotations.hpp — the HPAPlus fields a plain HorizontalPodAutoscaler carries as
// annotations under autoscaling.hpaplus.io/, each checked like its HPAPlus spec field. A bad value
// is reported and left out, so the HPA keeps working with the default.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::kinds {

inline constexpr const char* sync_period_annotation = "autoscaling.hpaplus.io/sync-period-seconds";
inline constexpr const char* mode_annotation = "autoscaling.hpaplus.io/mode";
inline constexpr const char* rollout_policy_annotation = "autoscaling.hpaplus.io/rollout-policy";
inline constexpr const char* pod_selection_annotation = "autoscaling.hpaplus.io/pod-selection";
inline constexpr const char* unready_pods_annotation = "autoscaling.hpaplus.io/unready-pods";

struct hpa_annotations {
    std::optional<std::int32_t> sync_period_seconds; ///< 1..86400
    std::optional<std::string> mode;                 ///< Auto | DryRun | Off
    std::optional<std::string> rollout_policy;       ///< Continue | Freeze | FreezeScaleDown
    std::optional<std::string> pod_selection;        ///< LabelSelector | OwnerReferences
    std::optional<std::string> unready_pods;         ///< Ignore | Count
    /// One text per bad or unknown autoscaling.hpaplus.io/ annotation, naming it.
    std::vector<std::string> problems;
};

/// Reads the autoscaling.hpaplus.io/ annotations of `annotations` (metadata.annotations).
hpa_annotations read_hpa_annotations(const std::map<std::string, std::string>& annotations);

} // namespace hpaplus::kinds
