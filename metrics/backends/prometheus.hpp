// metrics/backends/prometheus.hpp — type prometheus: PromQL over /api/v1/query (POST, with
// Prometheus's own `timeout`), values per pod by a label (`podLabel`), range queries over
// /api/v1/query_range for history. The readers of its answers are here for tests and fuzzing.
#pragma once

#include "metrics/backend_answer.hpp"

#include <string>
#include <string_view>

namespace hpaplus::metrics {

/// A Prometheus /api/v1/query answer (instant vector or scalar). `pod_label` names the label
/// that holds pod names; values are multiplied by `scale`.
backend_answer parse_prometheus(std::string_view body, const std::string& pod_label,
                                double scale = 1);

/// A Prometheus /api/v1/query_range answer (a matrix).
range_answer parse_prometheus_matrix(std::string_view body);

/// The error text of a Prometheus error answer (`{"status":"error","error":...}`), or "".
std::string prometheus_error(std::string_view body);

} // namespace hpaplus::metrics
