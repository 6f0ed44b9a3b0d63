// kinds/metric_status.hpp — an autoscaling/v2 MetricStatus in its JSON form, and spec.prediction's
// forecast in the form status.prediction and `evaluate` share.
#pragma once

#include "kube/encode.hpp"
#include "policy/decision.hpp"

namespace hpaplus::kinds {

/// autoscaling/v2 MetricStatus.
rapidjson::Value encode_metric_status(const policy::metric_status& s, kube::json_allocator& a);

/// The forecast's vote: value, replicas, voting, and period and nextPeak when known.
rapidjson::Value encode_prediction(const policy::decision_stages::prediction_stage& p,
                                   kube::json_allocator& a);

} // namespace hpaplus::kinds
