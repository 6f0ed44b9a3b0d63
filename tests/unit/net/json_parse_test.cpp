// Bytes from outside become JSON only through net::parse_json: bounded depth and size, checked
// before the parser runs, and an error that says which limit was passed.
#include "net/json_parse.hpp"

#include <rapidjson/document.h>

#include <gtest/gtest.h>

#include <string>

namespace hpaplus::net {
namespace {

std::string nested(std::size_t depth, char open = '[', char close = ']') {
    return std::string(depth, open) + std::string(depth, close);
}

TEST(JsonDepth, CountsArraysAndObjectsButNotBracketsInStrings) {
    EXPECT_EQ(json_depth("1", 100), 0u);
    EXPECT_EQ(json_depth(R"({"a":[{"b":[]}]})", 100), 4u);
    EXPECT_EQ(json_depth(R"(["[[[[", "{{{"])", 100), 1u);
    // An escaped quote does not end the string; an escaped backslash does not escape the quote.
    EXPECT_EQ(json_depth(R"(["a\"[[[", "b\\", []])", 100), 2u);
}

TEST(JsonDepth, StopsOncePastTheLimit) {
    EXPECT_EQ(json_depth(nested(1000), 10), 11u);
}

TEST(ParseJson, AcceptsTheDeepestAllowedDocument) {
    rapidjson::Document doc;
    EXPECT_EQ(parse_json(doc, nested(512)), "");
    EXPECT_TRUE(doc.IsArray());
}

TEST(ParseJson, RejectsDeeperNestingWithoutRecursing) {
    rapidjson::Document doc;
    EXPECT_EQ(parse_json(doc, nested(513)), "nesting deeper than 512 levels");
    EXPECT_TRUE(doc.IsNull());
    // 200,000 levels (the crash of issue 19) and unclosed ones are the same error.
    EXPECT_EQ(parse_json(doc, std::string(200000, '[')), "nesting deeper than 512 levels");
    EXPECT_EQ(parse_json(doc, "{\"a\":" + nested(600, '[', ']') + "}", {.max_depth = 8}),
              "nesting deeper than 8 levels");
}

TEST(ParseJson, RejectsTooManyBytes) {
    rapidjson::Document doc;
    const std::string text = "\"" + std::string(100, 'x') + "\"";
    EXPECT_EQ(parse_json(doc, text, {.max_depth = 512, .max_bytes = 50}),
              "102 bytes, more than the 50 allowed");
    EXPECT_EQ(parse_json(doc, text, {.max_depth = 512, .max_bytes = 102}), "");
    EXPECT_TRUE(doc.IsString());
}

TEST(ParseJson, SaysWhereInvalidJsonBreaks) {
    rapidjson::Document doc;
    const auto why = parse_json(doc, R"({"a": [1, 2 3]})");
    EXPECT_EQ(why.rfind("malformed JSON at offset 12: ", 0), 0u) << why;
    EXPECT_TRUE(doc.IsNull());
    EXPECT_NE(parse_json(doc, ""), "");
    EXPECT_NE(parse_json(doc, "[1] trailing"), "");
}

} // namespace
} // namespace hpaplus::net
