// kube/yaml_json.hpp — YAML manifests (one or more documents) as the JSON the API server takes,
// with YAML 1.2 core-schema typing as kubectl applies it: plain `true`, `12`, `1.5`, `null` are
// typed, quoted scalars stay strings; anchors and aliases are resolved.
#pragma once

#include "core/outcome.hpp"

#include <string>
#include <vector>

namespace hpaplus::kube {

/// Each non-empty document of `yaml` as compact JSON; an error names the line.
core::outcome<std::vector<std::string>> yaml_documents_to_json(const std::string& yaml);

} // namespace hpaplus::kube
