// kinds/migrate.hpp — a HorizontalPodAutoscaler as the equivalent HPAPlus, for teams that want
// the HPAPlus-only fields (`hpaplus migrate`).
#pragma once

#include "core/outcome.hpp"

#include <rapidjson/document.h>

#include <string>
#include <vector>

namespace hpaplus::kinds {

struct migrated_object {
    rapidjson::Document object; ///< the HPAPlus
    std::vector<std::string> warnings;
};

/// `hpa` is an autoscaling/v2 (or v2beta2, or v1) HorizontalPodAutoscaler as `kubectl get -o json`
/// prints it. The spec is kept field for field (v1's targetCPUUtilizationPercentage becomes its
/// autoscaling/v2 CPU metric); the autoscaling.hpaplus.io/ annotations become the spec fields they
/// stand for (a bad one is a warning and left out); what the API server sets (status, uid,
/// resourceVersion, managedFields, ...) and kubectl's last-applied-configuration are left out.
core::outcome<migrated_object> migrate_hpa(const rapidjson::Value& hpa);

} // namespace hpaplus::kinds
