// sim/apiserver/protobuf_schema.hpp — the k8s.io/api messages the simulated cluster reads and
// writes as protobuf, as tables: each field's number (from upstream's generated.proto files), its
// JSON name and its kind. The decoder (protobuf.cpp) and the encoder (protobuf_encode.cpp) walk
// the same tables.
#pragma once

#include <string_view>
#include <vector>

namespace hpaplus::sim::protobuf {

enum class kind {
    string,
    int32,
    int64,
    boolean,
    message,
    string_map,
    quantity_map,
    bytes_map,
    time,
    micro_time,
    quantity,
    int_or_string,
    /// A message whose fields are the parent's in JSON (a Go embedded struct, `json:",inline"`).
    inline_message,
    /// Known upstream and not kept: what the server sets itself (managedFields, which a write
    /// without them leaves as they are).
    ignored,
    /// The object's status: ignored by a write of the object (the server keeps its own), refused
    /// on a write of the status subresource, which would need it decoded. Encoded (answers) when
    /// `sub` describes it.
    status,
    /// bytes holding JSON text (metav1.FieldsV1): a JSON object in JSON.
    raw_json
};

struct message;
struct field {
    int number;
    const char* name;
    kind type;
    const message* sub = nullptr;
    bool repeated = false;
    /// A pointer field in Go (`*int32`): present means set, so a zero is kept. Plain scalars are
    /// always written by Go's encoder, and their zero values are what JSON's omitempty leaves out.
    bool pointer = false;
};
struct message {
    std::vector<field> fields;
};

/// The message of `group_version/Kind` ("v1/Pod", "apps/v1/Deployment"), or nullptr.
const message* schema_of(std::string_view api_version, std::string_view kind);

/// metav1.ListMeta, the metadata of every list.
extern const message list_meta;

} // namespace hpaplus::sim::protobuf
