// kinds/pod_metrics.hpp — metrics.k8s.io PodMetrics, both ways of reading them: one PodMetrics from
// a JSON document (decode_pod_metrics, which names what is wrong), and a PodMetricsList decoded in
// one pass with rapidjson's SAX reader, without building a document, parsed in place in a copy of
// the text the caller's scratch keeps (up to 4 MiB): the metrics lists are the biggest thing the
// controller parses. It takes the shape the metrics server sends and nothing else: a value of an
// unexpected type, a duplicate key it reads, a null, a missing pod or container name, a bad time,
// duration or quantity, nesting past 512 levels, a NUL byte or more than 64 MiB make it answer "not
// decoded", and the caller decodes that answer with the DOM decoder (decode_pod_metrics), which
// reports exactly what is wrong. Whenever it decodes, it gives what the DOM decoder gives (a
// differential fuzz harness and a unit test hold it to that).
#pragma once

#include "core/kubernetes.hpp"
#include "kube/json_decoder.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hpaplus::kinds {

/// A metrics.k8s.io/v1beta1 PodMetrics.
core::pod_metrics decode_pod_metrics(kube::json_decoder& d, const kube::json_node& n);

/// The `items` of a PodMetricsList (empty when it has none), or nullopt: decode it the slow way.
std::optional<std::vector<core::pod_metrics>> decode_pod_metrics_list(const std::string& json);

/// What decoding lists reuses from one to the next (one per thread that decodes them; a lane's
/// metric sources keep one): the copy of the text parsed in place, and how many bytes a pod took
/// in the last list (to reserve the next one's pods at once).
struct pod_metrics_scratch {
    std::string text;
    std::size_t bytes_per_item = 0;
};

/// The same, decoded into `items` with `scratch`: the pods it already holds (from an earlier list)
/// are reset and reused with their strings' storage, so a list read again and again allocates
/// nothing for its pods' names. False: not decoded (decode it the slow way; `items` then holds part
/// of the text).
bool decode_pod_metrics_list(const std::string& json, std::vector<core::pod_metrics>& items,
                             pod_metrics_scratch& scratch);
bool decode_pod_metrics_list(const std::string& json, std::vector<core::pod_metrics>& items);

} // namespace hpaplus::kinds
