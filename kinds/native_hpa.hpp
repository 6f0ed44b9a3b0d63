// kinds/native_hpa.hpp — what a plain autoscaling/v2 HorizontalPodAutoscaler carries for
// HPAPlus besides its spec: the autoscaling.hpaplus.io/ annotations applied to the spec, whether
// it asks for HPAPlus by name, and who else wrote its status (metadata.managedFields).
#pragma once

#include "core/time.hpp"
#include "kinds/hpa_annotations.hpp"
#include "policy/types.hpp"

#include <rapidjson/fwd.h>

#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::kinds {

inline constexpr const char* controller_annotation = "autoscaling.hpaplus.io/controller";
/// The field manager HPAPlus writes as (its User-Agent, as the API server derives it).
inline constexpr const char* hpaplus_field_manager = "hpaplus";

/// The autoscaling.hpaplus.io/ annotations of an HPA object (metadata.annotations), checked.
hpa_annotations hpa_annotations_of(const rapidjson::Value& object);

/// Sets the spec fields the annotations carry (sync period, mode, rollout policy).
void apply_hpa_annotations(const hpa_annotations& a, policy::autoscaler_spec& spec);

/// True when the object is annotated `autoscaling.hpaplus.io/controller: hpaplus`.
bool asks_for_hpaplus(const rapidjson::Value& object);

/// The autoscaling.hpaplus.io/ annotations of an object, as `key=value` lines in key order ("" when
/// none): compare two to see whether they changed.
std::string hpaplus_annotations_text(const rapidjson::Value& object);

/// One manager's last write of the status subresource.
struct status_write {
    std::string manager;
    core::time_point time;
};

/// The status writes metadata.managedFields records (entries with `subresource: status` and a
/// readable time), other managers' and ours alike.
std::vector<status_write> status_writes(const rapidjson::Value& object);

} // namespace hpaplus::kinds
