// YAML manifests to JSON the way kubectl sends them: typing of plain and quoted scalars, anchors,
// several documents, and a clear error for broken YAML.
#include "kube/yaml_json.hpp"

#include <gtest/gtest.h>

namespace hpaplus::kube {
namespace {

TEST(YamlToJson, TypesPlainScalarsAndKeepsQuotedOnesAsStrings) {
    const auto docs = yaml_documents_to_json(
        "a: 12\nb: \"12\"\nc: 1.5\nd: true\ne: 'false'\nf: null\ng: ~\nh: 500m\ni: -3\n"
        "j: .5\nk: 1e3\nl: 0.05\nm: [x, 2]\nn: {}\no: ''\np: 1.2.3\n");
    ASSERT_TRUE(docs) << docs.error().text;
    ASSERT_EQ(docs->size(), 1u);
    EXPECT_EQ(docs->front(),
              R"({"a":12,"b":"12","c":1.5,"d":true,"e":"false","f":null,"g":null,"h":"500m",)"
              R"("i":-3,"j":0.5,"k":1000.0,"l":0.05,"m":["x",2],"n":{},"o":"","p":"1.2.3"})");
}

TEST(YamlToJson, ResolvesAnchorsAndSplitsDocuments) {
    const auto docs = yaml_documents_to_json(
        "---\nbase: &b {x: 1}\nuse: *b\n---\n# only a comment\n---\nkind: Second\n");
    ASSERT_TRUE(docs) << docs.error().text;
    ASSERT_EQ(docs->size(), 2u);
    EXPECT_EQ((*docs)[0], R"({"base":{"x":1},"use":{"x":1}})");
    EXPECT_EQ((*docs)[1], R"({"kind":"Second"})");
}

TEST(YamlToJson, BrokenYamlNamesTheLine) {
    const auto docs = yaml_documents_to_json("a: 1\nb: [unclosed\nc: 2\n");
    ASSERT_FALSE(docs);
    EXPECT_EQ(docs.error().text.rfind("line ", 0), 0u) << docs.error().text;
}

// From fuzz/yaml_json: yaml-cpp's LoadAll never returned on a stray top-level comma (the same
// empty document, forever, with memory growing).
TEST(YamlToJson, InputThatStallsTheParserIsAnError) {
    for (const char* stalls : {",", "a: 1\n---\n,\n", "- x\n,"}) {
        const auto docs = yaml_documents_to_json(stalls);
        ASSERT_FALSE(docs) << stalls;
        EXPECT_NE(docs.error().text.find("makes no progress"), std::string::npos)
            << docs.error().text;
    }
    // also from the fuzzer: a number beyond a double's range threw out of the converter
    const auto huge = yaml_documents_to_json("a: 2e2202\n");
    ASSERT_FALSE(huge);
    EXPECT_NE(huge.error().text.find("the number 2e2202 is out of range"), std::string::npos)
        << huge.error().text;
    EXPECT_EQ(yaml_documents_to_json("a: 1e-400\n").value().size(), 1u); // underflow is 0
    // empty documents are fine, however many
    EXPECT_EQ(yaml_documents_to_json("---\n---\n---\na: 1\n").value().size(), 1u);
}

TEST(YamlToJson, BoundsNestingAndAliasExpansion) {
    // yaml-cpp itself refuses about 500 levels ("bad file"); ours is a second bound at 512.
    EXPECT_TRUE(yaml_documents_to_json(std::string(400, '[') + std::string(400, ']')));
    const auto deep = yaml_documents_to_json(std::string(600, '[') + std::string(600, ']'));
    ASSERT_FALSE(deep);
    EXPECT_EQ(deep.error().text.rfind("line 1: ", 0), 0u) << deep.error().text;
    // "Billion laughs": each level repeats the one before ten times, 10^7 values in a few lines.
    std::string bomb = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i <= 7; ++i) {
        const std::string prev = "*l" + std::to_string(i - 1);
        bomb += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
        for (int k = 0; k < 10; ++k)
            bomb += (k ? ", " : "") + prev;
        bomb += "]\n";
    }
    const auto laughs = yaml_documents_to_json(bomb);
    ASSERT_FALSE(laughs);
    EXPECT_NE(laughs.error().text.find("more than 1000000 values"), std::string::npos)
        << laughs.error().text;
}

} // namespace
} // namespace hpaplus::kube
