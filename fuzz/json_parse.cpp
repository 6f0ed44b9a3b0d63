// net::parse_json, the door every byte of JSON from outside comes through: it never crashes or
// recurses, and whatever it accepts nests no deeper than its limit.
#include "net/json_parse.hpp"
#include "fuzz/fuzz.hpp"

#include <rapidjson/document.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input = hpaplus::fuzz::text(data, size);
    rapidjson::Document doc;
    const hpaplus::net::json_limits limits{64, 1u << 20};
    if (hpaplus::net::parse_json(doc, input, limits).empty())
        hpaplus::fuzz::require(hpaplus::net::json_depth(input, 1000) <= 64,
                               "an accepted document is within the depth limit");
    return 0;
}
