// sim/apiserver/protobuf.hpp — Kubernetes' protobuf wire format ("k8s\0" + runtime.Unknown):
// request bodies of the built-in kinds typed clients write (kubectl's create commands, client-go's
// typed clientsets) decoded into JSON, and answers encoded for a client that asks for protobuf
// first, when the tables (protobuf_schema) describe the answer entirely — else it is JSON, which
// every client also reads.
#pragma once

#include "core/outcome.hpp"
#include "sim/json_util.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace hpaplus::sim {

/// Decodes a protobuf-encoded request body; the error names what could not be decoded. A field
/// the decoder does not know is refused unless it carries a zero value (nothing is dropped); an
/// object's status is ignored unless `status_write` (a write of the status subresource), where it
/// is refused.
core::outcome<std::string> protobuf_to_json(std::string_view body, bool status_write = false);

/// Encodes a JSON answer (an object, a list of objects, a Status) as protobuf; nullopt when a
/// member is not in the tables (an object's status the tables do not describe, a field not
/// decoded) or the JSON is not such an answer.
std::optional<std::string> json_to_protobuf(std::string_view json_text);

} // namespace hpaplus::sim
