// kube/encode.hpp — autoscaler status parts in their autoscaling/v2 JSON form.
#pragma once

#include "policy/types.hpp"

#include <rapidjson/document.h>

#include <string>
#include <vector>

namespace hpaplus::kube {

using json_allocator = rapidjson::Document::AllocatorType;

/// Compact JSON text of a value.
std::string to_json_text(const rapidjson::Value& v);

/// A string value copied into the document.
rapidjson::Value json_string(std::string_view s, json_allocator& a);

/// autoscaling/v2 MetricStatus.
rapidjson::Value encode_metric_status(const policy::metric_status& s, json_allocator& a);

/// autoscaling/v2 HorizontalPodAutoscalerCondition list.
rapidjson::Value encode_conditions(const std::vector<policy::condition>& conditions,
                                   json_allocator& a);

/// metav1.LabelSelector.
rapidjson::Value encode_selector(const core::label_selector_spec& s, json_allocator& a);

} // namespace hpaplus::kube
