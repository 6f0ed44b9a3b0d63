// sim/apiserver/protobuf.hpp — Kubernetes' protobuf wire format ("k8s\0" + runtime.Unknown)
// turned into JSON for the built-in kinds kubectl's typed commands send (create deployment,
// namespace, configmap, ...). Only requests are decoded; the simulated server always answers JSON,
// which clients accept.
#pragma once

#include "core/outcome.hpp"
#include "sim/json_util.hpp"

#include <string_view>

namespace hpaplus::sim {

/// Decodes a protobuf-encoded request body; the error names what could not be decoded.
core::outcome<std::string> protobuf_to_json(std::string_view body);

} // namespace hpaplus::sim
