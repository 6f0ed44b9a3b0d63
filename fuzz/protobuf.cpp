// Kubernetes protobuf request bodies (client-go's and kubectl's typed writes to the simulated
// cluster): never crashes, reads past the body or overflows a time, and what it decodes is JSON
// our parser accepts.
#include "sim/apiserver/protobuf.hpp"
#include "fuzz/fuzz.hpp"
#include "net/json_parse.hpp"

#include <rapidjson/document.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto decoded = hpaplus::sim::protobuf_to_json(hpaplus::fuzz::text(data, size));
    if (!decoded) return 0;
    rapidjson::Document doc;
    hpaplus::fuzz::require(hpaplus::net::parse_json(doc, *decoded).empty(),
                           "a decoded body is JSON that parses");
    return 0;
}
