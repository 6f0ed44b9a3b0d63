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

TEST(YamlToJson, JsonInputReadsAsTheSameYamlDoes) {
    // JSON is read by RapidJSON directly; a flow document that is not JSON is YAML.
    const auto json = yaml_documents_to_json(R"({"a": [1, "2", 1.5, true, null], "b": {}})");
    const auto yaml = yaml_documents_to_json("a: [1, '2', 1.5, true, null]\nb: {}\n");
    ASSERT_TRUE(json && yaml);
    EXPECT_EQ(*json, *yaml);
    const auto flow = yaml_documents_to_json("{a: 1, b: [x]}");
    ASSERT_TRUE(flow) << flow.error().text;
    EXPECT_EQ(flow->front(), R"({"a":1,"b":["x"]})");
    // anchors on keys and scalars, aliases as keys and values
    const auto keys = yaml_documents_to_json("&k name: &v 3\nother: *k\n*k : *v\n");
    ASSERT_TRUE(keys) << keys.error().text;
    EXPECT_EQ(keys->front(), R"({"name":3,"other":"name","name":3})");
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

TEST(YamlToJson, RefusesAFileOverTheBoundBeforeBuildingIt) {
    // The bound is on the whole file: values spread over documents count together (the node
    // tree of every document is built at once), and a long flat list is refused as a deep one is.
    std::string many = "[0";
    for (int i = 0; i < 1'000'000; ++i)
        many += ",0";
    many += "]";
    const auto flat = yaml_documents_to_json(many);
    ASSERT_FALSE(flat);
    EXPECT_EQ(flat.error().text.rfind("more than 1000000 values", 0), 0u) << flat.error().text;
    std::string spread;
    for (int d = 0; d < 3; ++d) {
        spread += "---\n[0";
        for (int i = 0; i < 400'000; ++i)
            spread += ",0";
        spread += "]\n";
    }
    const auto documents = yaml_documents_to_json(spread);
    ASSERT_FALSE(documents);
    EXPECT_EQ(documents.error().text.rfind("more than 1000000 values", 0), 0u)
        << documents.error().text;
    // Just under the bound converts.
    std::string under = "[0";
    for (int i = 0; i < 999'998; ++i)
        under += ",0";
    under += "]";
    EXPECT_TRUE(yaml_documents_to_json(under));
}

} // namespace
} // namespace hpaplus::kube
