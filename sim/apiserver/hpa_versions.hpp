// sim/apiserver/hpa_versions.hpp — HorizontalPodAutoscalers as the real API server serves them:
// stored as autoscaling/v2, also served as autoscaling/v1 by conversion (v2beta2 left with 1.26;
// the sim is a 1.33 server) (v1's targetCPUUtilizationPercentage is the v2 CPU Utilization metric;
// what v1 cannot hold travels in the `autoscaling.alpha.kubernetes.io/` annotations, both ways),
// v2's defaults (minReplicas 1, an 80% CPU metric, the behavior rules filled in), and the TARGETS
// column.
#pragma once

#include "sim/json_util.hpp"
#include "sim/resource_type.hpp"

#include <string>
#include <string_view>

namespace hpaplus::sim {

/// autoscaling/v2 horizontalpodautoscalers (what the other versions convert to).
bool is_hpa(const resource_type& t);

/// Converts an object (or its status only) sent as autoscaling/`version` to autoscaling/v2.
void hpa_to_v2(json_doc& obj, std::string_view version);

/// The autoscaling/`version` form of a stored autoscaling/v2 object.
json_doc hpa_from_v2(const json& obj, std::string_view version);

/// The API server's defaults for a v2 object, applied on every write of its spec.
void default_hpa(json_doc& obj);

/// Removes an empty status.currentMetrics or status.conditions (omitempty lists, which upstream's
/// round trip of every write drops), on writes of the object and of its status.
void drop_empty_status_lists(json_doc& obj);

/// The TARGETS cell `kubectl get hpa` prints: `cpu: 40%/50%`, `<unknown>/10 (avg)`, at most two
/// metrics then `+ N more...`; `<none>` without metrics.
std::string hpa_targets(const json& obj);

} // namespace hpaplus::sim
