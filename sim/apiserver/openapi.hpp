// sim/apiserver/openapi.hpp — the OpenAPI v2 document (`/openapi/v2`) as the real API server
// publishes it: the built-in kinds and every served CRD's structural schema converted to v2, in
// JSON and in the protobuf encoding kubectl asks for (gnostic's openapi.v2.Document), with an ETag
// per encoding.
#pragma once

#include "sim/json_util.hpp"
#include "sim/resource_type.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::sim {

/// One encoding of the document with its entity tag (quoted, as sent in `ETag`).
struct openapi_encoding {
    std::string body;
    std::string etag;
};

struct openapi_v2_document {
    openapi_encoding json;
    openapi_encoding protobuf;
};

/// Builds the document for the served custom kinds (`types` with `custom` set; others are
/// ignored: the built-in kinds always come from builtin_openapi_definitions()).
openapi_v2_document build_openapi_v2(const std::vector<const resource_type*>& types);

/// Encodes an OpenAPI v2 JSON document as gnostic's openapi.v2.Document protobuf message: the
/// fields kubectl reads (swagger, info, definitions with their schemas and vendor extensions).
/// Schemas nested deeper than a fixed limit are published untyped instead of recursing further.
std::string openapi_v2_protobuf(const json& document);

/// The CRD schema (openAPIV3Schema) as the real server publishes it in v2: junctors dropped,
/// nullable and x-kubernetes-preserve-unknown-fields values untyped, arrays without items untyped.
json openapi_v2_schema(const json& v3, json_alloc& a);

enum class openapi_format { none, json, protobuf };

/// kube-openapi's negotiation for `/openapi/v2`: the Accept clauses by quality (then by
/// specificity), each tried against JSON and the two protobuf media types kubectl has used
/// (`…spec.v2@v1.0+protobuf` and `…spec.v2.v1.0+protobuf`). An empty Accept means JSON.
openapi_format negotiate_openapi_v2(std::string_view accept);

/// True when an If-None-Match value (`*` or a comma list of entity tags, weak ones included)
/// names `etag`.
bool etag_matches(std::string_view if_none_match, std::string_view etag);

/// `autoscaling.hpaplus.io/v1alpha1/HPAPlus` → `io.hpaplus.autoscaling.v1alpha1.HPAPlus`.
std::string openapi_definition_name(std::string_view group, std::string_view version,
                                    std::string_view kind);

/// A built-in kind's schema in the document (apiVersion, kind and metadata included), or nullptr
/// for a kind it does not describe. Strategic merge patches read their patch metadata from it.
const json* builtin_kind_schema(std::string_view group, std::string_view version,
                                std::string_view kind);
/// Follows `$ref`s among the built-in definitions (nullptr in, or a dangling ref: nullptr out).
const json* resolve_builtin_ref(const json* schema);

/// The built-in kinds' definitions (sim/apiserver/openapi_builtin.cpp): `{"kinds": [...],
/// "definitions": {}}`.
std::string_view builtin_openapi_definitions();

} // namespace hpaplus::sim
