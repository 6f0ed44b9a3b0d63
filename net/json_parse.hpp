// net/json_parse.hpp — the one way bytes from outside become a JSON document: a size limit, a
// nesting limit checked in one linear pass before parsing (so nothing that later walks the
// document — copies, writers, decoders — recurses without bound), and RapidJSON's iterative
// parser, which keeps its own stack on the heap instead of recursing.
#pragma once

#include <rapidjson/fwd.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace hpaplus::net {

struct json_limits {
    std::size_t max_depth = 512;                   ///< nested arrays and objects
    std::size_t max_bytes = std::size_t{64} << 20; ///< 64 MiB
};

/// How deep `text` nests arrays and objects (brackets inside strings do not count), stopping
/// early once the depth passes `stop_after`. Linear in the length of `text`.
std::size_t json_depth(std::string_view text, std::size_t stop_after);

/// Parses `text` into `doc`. Returns "" on success, else what is wrong — "nesting deeper than 512
/// levels", "70000000 bytes, more than the 67108864 allowed", "malformed JSON at offset 17: Missing
/// a comma or ']' after an array element." — and leaves `doc` null.
std::string parse_json(rapidjson::Document& doc, std::string_view text,
                       const json_limits& limits = {});

} // namespace hpaplus::net
