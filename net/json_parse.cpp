// net/json_parse.cpp — see the header.
#include "net/json_parse.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

namespace hpaplus::net {

std::size_t json_depth(std::string_view text, std::size_t stop_after) {
    std::size_t depth = 0;
    std::size_t deepest = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i; // the escaped character cannot end the string
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > deepest && (deepest = depth) > stop_after) break;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

std::string parse_json(rapidjson::Document& doc, std::string_view text, const json_limits& limits) {
    doc.SetNull();
    if (text.size() > limits.max_bytes)
        return std::to_string(text.size()) + " bytes, more than the " +
               std::to_string(limits.max_bytes) + " allowed";
    if (json_depth(text, limits.max_depth) > limits.max_depth)
        return "nesting deeper than " + std::to_string(limits.max_depth) + " levels";
    doc.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
    if (!doc.HasParseError()) return "";
    std::string error = "malformed JSON at offset " + std::to_string(doc.GetErrorOffset()) + ": " +
                        rapidjson::GetParseError_En(doc.GetParseError());
    doc.SetNull();
    return error;
}

} // namespace hpaplus::net
