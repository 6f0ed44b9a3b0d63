// metrics/backend_answer.hpp — what a Prometheus or monitor backend answered, decoded: values
// (per pod when the answer names pods) or why there are none. "Backend down", "no data" and a
// value of 0 are different outcomes, so conditions and fallbacks can tell them apart.
#pragma once

#include "core/time.hpp"
#include "metrics/backend_config.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::metrics {

enum class answer_kind {
    values,      ///< at least one value (0 is a value)
    no_data,     ///< the query matched nothing
    unavailable, ///< unreachable, timed out, 5xx, circuit open: the backend is down
    bad_answer,  ///< the backend rejected the query, or its answer is unreadable
};

struct backend_value {
    std::string pod; ///< "" when the answer does not name pods
    double value = 0;
    std::optional<core::time_point> timestamp;
};

struct backend_answer {
    answer_kind kind = answer_kind::values;
    std::string error; ///< for every kind but values
    std::vector<backend_value> values;
};

/// A Prometheus /api/v1/query answer (instant vector or scalar). `pod_label` names the label
/// that holds pod names; values are multiplied by `scale`.
backend_answer parse_prometheus(std::string_view body, const std::string& pod_label,
                                double scale = 1);

/// One series of a Prometheus range query: its labels and [time, value] points in time order.
struct range_series {
    std::map<std::string, std::string, std::less<>> labels;
    std::vector<std::pair<core::time_point, double>> points;
};

struct range_answer {
    std::string error; ///< "" when the answer is a matrix (possibly empty)
    std::vector<range_series> series;
};

/// A Prometheus /api/v1/query_range answer (a matrix).
range_answer parse_prometheus_matrix(std::string_view body);

/// A monitor's JSON answer, read through `mapping`; values are multiplied by `scale`.
backend_answer parse_monitor(std::string_view body, const response_mapping& mapping,
                             double scale = 1);

/// The error text of a Prometheus error answer (`{"status":"error","error":...}`), or "".
std::string prometheus_error(std::string_view body);

/// The text at `pointer` of a monitor's error answer, or "".
std::string monitor_error(std::string_view body, const std::string& pointer);

const char* to_string(answer_kind kind);

} // namespace hpaplus::metrics
