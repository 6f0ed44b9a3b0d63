// metrics/backends/types.hpp — the backend types there are; find_backend_type lists them.
#pragma once

#include "metrics/backends/backend_type.hpp"

namespace hpaplus::metrics {

const backend_type& metrics_api_type();
const backend_type& prometheus_type();
const backend_type& monitor_type();

} // namespace hpaplus::metrics
