// metrics/backend_answer.hpp — what a metric backend answered, decoded (by its type, in
// metrics/backends/): values (per pod when the answer names pods) or why there are none; and a
// range query's series. "Backend down", "no data" and a
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

/// One series of a Prometheus range query: its labels and [time, value] points in time order.
struct range_series {
    std::map<std::string, std::string, std::less<>> labels;
    std::vector<std::pair<core::time_point, double>> points;
};

struct range_answer {
    std::string error; ///< "" when the answer is a matrix (possibly empty)
    std::vector<range_series> series;
};

const char* to_string(answer_kind kind);

} // namespace hpaplus::metrics
