// kinds/metric_status.hpp — an autoscaling/v2 MetricStatus in its JSON form.
#pragma once

#include "kube/encode.hpp"
#include "policy/types.hpp"

namespace hpaplus::kube {

/// autoscaling/v2 MetricStatus.
rapidjson::Value encode_metric_status(const policy::metric_status& s, json_allocator& a);

} // namespace hpaplus::kube
