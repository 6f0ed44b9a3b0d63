// bench/pod_metrics_decode.hpp — `hpaplus-bench pod-metrics` (see pod_metrics_decode.cpp).
#pragma once

namespace hpaplus::bench {

/// Decodes a `pods`-pod PodMetricsList and takes its CPU samples for about `seconds`, in slices
/// alternating with a RapidJSON document parse of the same text; prints one result line.
int pod_metrics_decode(int pods, double seconds);

} // namespace hpaplus::bench
