// sim/apiserver/protobuf.hpp — Kubernetes' protobuf wire format ("k8s\0" + runtime.Unknown)
// turned into JSON for the built-in kinds kubectl's typed commands send (create deployment,
// namespace, configmap, ...). Only requests are decoded; the simulated server always answers JSON,
// which clients accept.
#pragma once

#include "core/outcome.hpp"
#include "sim/json_util.hpp"

#include <string_view>

namespace hpaplus::sim {

/// Decodes a protobuf-encoded request body; the error names what could not be decoded. A field
/// the decoder does not know is refused unless it carries a zero value (nothing is dropped); an
/// object's status is ignored unless `status_write` (a write of the status subresource), where it
/// is refused.
core::outcome<std::string> protobuf_to_json(std::string_view body, bool status_write = false);

} // namespace hpaplus::sim
