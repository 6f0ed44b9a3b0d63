// Kubernetes protobuf request bodies (client-go's and kubectl's typed writes to the simulated
// cluster): never crashes, reads past the body or overflows a time, and what it decodes is JSON
// our parser accepts; encoded again (as an answer would be), it decodes to the same JSON.
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
    if (const auto encoded = hpaplus::sim::json_to_protobuf(*decoded)) {
        const auto again = hpaplus::sim::protobuf_to_json(*encoded);
        rapidjson::Document round_trip;
        // (Compared as JSON values: the encoder writes fields in number order, the body in any.)
        hpaplus::fuzz::require(again.has_value() &&
                                   hpaplus::net::parse_json(round_trip, *again).empty() &&
                                   round_trip == doc,
                               "what is encoded decodes to the same JSON");
    }
    return 0;
}
