// YAML to JSON (manifests, `evaluate` and `replay` inputs, --metric-backends): never crashes,
// recurses or expands aliases without bound, and what it writes is JSON our parser accepts.
#include "kube/yaml_json.hpp"
#include "fuzz/fuzz.hpp"
#include "net/json_parse.hpp"

#include <rapidjson/document.h>

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto documents =
        hpaplus::kube::yaml_documents_to_json(std::string(hpaplus::fuzz::text(data, size)));
    if (!documents) return 0;
    for (const auto& json : *documents) {
        rapidjson::Document doc;
        hpaplus::fuzz::require(hpaplus::net::parse_json(doc, json).empty(),
                               "YAML becomes JSON that parses");
    }
    return 0;
}
