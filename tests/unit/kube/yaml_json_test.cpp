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

} // namespace
} // namespace hpaplus::kube
