// sim/apiserver/conversion.hpp — objects served in another group-version than the one they are
// stored in, as the real server converts them through its internal type: HorizontalPodAutoscalers
// (stored autoscaling/v2, also served as autoscaling/v1: sim/apiserver/hpa_versions) and Events
// (stored core/v1, also served as events.k8s.io/v1, with its own field names).
#pragma once

#include "sim/json_util.hpp"
#include "sim/resource_type.hpp"

#include <optional>
#include <string_view>

namespace hpaplus::sim {

struct api_error;

/// The form of `obj` (stored as `stored`'s group-version) that `group`/`version` serves.
json_doc converted_from_stored(const resource_type& stored, std::string_view group,
                               std::string_view version, const json& obj);

/// Converts `obj`, sent as `group`/`version`, to `stored`'s group-version (in place).
void convert_to_stored(const resource_type& stored, std::string_view group,
                       std::string_view version, json_doc& obj);

/// What the served version's own validation refuses in a create (events.k8s.io/v1 Events need
/// eventTime, reportingController, reportingInstance, action, reason and a known type); checked
/// on what the client sent, before conversion.
std::optional<api_error> validate_served_create(const resource_type& stored, std::string_view group,
                                                std::string_view version, const json& obj);

} // namespace hpaplus::sim
