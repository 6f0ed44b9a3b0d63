// controller/status.hpp — the HPAPlus status a reconcile writes: the autoscaling/v2 status fields,
// each metric's proposal, and the one-line summaries `kubectl get hpap` shows. Written only when
// it differs from what the object already says.
#pragma once

#include "kube/informer.hpp"
#include "kube/resources.hpp"
#include "policy/decision.hpp"

#include <boost/asio/awaitable.hpp>

#include <rapidjson/fwd.h>

#include <string>
#include <string_view>

namespace hpaplus::controller {

/// The `status` object (JSON) after decision `d` on `hpa`.
std::string encode_status(const policy::autoscaler& hpa, const policy::decision& d);

/// The `status` object for a spec that cannot be used: the object's status with the condition
/// `ScalingActive=False, reason InvalidSpec` and `message`.
std::string encode_invalid_status(const policy::autoscaler_status& current, std::int64_t generation,
                                  const std::string& message, core::time_point now);

/// `cpu: 45%/60%, qps: 120/100` — kubectl's TARGETS column for the metrics of `d`.
std::string targets_summary(const policy::autoscaler_spec& spec, const policy::decision& d);

/// `3 -> 5 (recommended 5, stabilized 5, limited 5: DesiredWithinRange)` — what the reconcile did.
std::string decision_summary(const policy::decision& d);

/// True when a field of `status_json` differs from the `status` of `object` (the parsed
/// HPAPlus); key order does not matter, and fields only the object has are what the merge patch
/// leaves alone; a null field (remove) counts as equal when the object does not have it.
bool status_differs(const rapidjson::Value& object, std::string_view status_json);

/// Merge-patches the status subresource of `object` (of `resource`) with `status` when it differs
/// from what `parsed` (the object, already parsed) says; true when written. A failure other than
/// 404 is logged. Runs on: the client's executor.
boost::asio::awaitable<bool> write_status(kube::api_client& client,
                                          const kube::resource_path& resource,
                                          const kube::cached_object& object,
                                          const rapidjson::Value& parsed,
                                          const std::string& status);

} // namespace hpaplus::controller
