// metrics/backends/monitor.hpp — type monitor: a generic HTTP/JSON adapter for a company
// monitor (InfluxDB is the one the tests run): the request is a URL and body template with
// `{{query}}` and the query's values, escaped for its `queryLanguage` (PromQL, InfluxQL or None);
// the answer is read through `response`'s JSON pointers (items, value, pod, error, timestamp).
// No range queries. The readers of its answers are here for tests and fuzzing.
#pragma once

#include "metrics/backend_answer.hpp"

#include <string>
#include <string_view>

namespace hpaplus::metrics {

/// A monitor's JSON answer, read through `mapping`; values are multiplied by `scale`.
backend_answer parse_monitor(std::string_view body, const response_mapping& mapping,
                             double scale = 1);

/// The text at `pointer` of a monitor's error answer, or "".
std::string monitor_error(std::string_view body, const std::string& pointer);

} // namespace hpaplus::metrics
