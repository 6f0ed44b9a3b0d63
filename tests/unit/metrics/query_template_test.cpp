// Tests for placeholder expansion and the PromQL forms of selectors.
#include "metrics/query_template.hpp"

#include <gtest/gtest.h>

namespace hpaplus::metrics {
namespace {

struct expand_case {
    const char* name;
    const char* text;
    value_encoding encoding;
    const char* expected; // nullptr: an error containing `error`
    const char* error;
};

class Expand : public ::testing::TestWithParam<expand_case> {};

TEST_P(Expand, Table) {
    const template_values values{{"namespace", "shop"}, {"query", "a b&c=\"d\""}, {"pods", ""}};
    auto out = expand(GetParam().text, values, GetParam().encoding);
    if (GetParam().expected) {
        ASSERT_TRUE(out) << out.error().text;
        EXPECT_EQ(*out, GetParam().expected);
    } else {
        ASSERT_FALSE(out);
        EXPECT_NE(out.error().text.find(GetParam().error), std::string::npos) << out.error().text;
    }
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Cases, Expand, ::testing::Values(
    expand_case{"NoPlaceholder", "up", value_encoding::raw, "up", nullptr},
    expand_case{"Raw", "x{ns=\"{{namespace}}\"}", value_encoding::raw, "x{ns=\"shop\"}", nullptr},
    expand_case{"SpacesInside", "{{ namespace }}/{{namespace}}", value_encoding::raw, "shop/shop", nullptr},
    expand_case{"EmptyValue", "[{{pods}}]", value_encoding::raw, "[]", nullptr},
    expand_case{"Percent", "/q?q={{query}}", value_encoding::percent, "/q?q=a%20b%26c%3D%22d%22", nullptr},
    expand_case{"Json", "{\"q\":\"{{query}}\"}", value_encoding::json, "{\"q\":\"a b&c=\\\"d\\\"\"}", nullptr},
    expand_case{"SingleBraces", "{a} {{namespace}} }", value_encoding::raw, "{a} shop }", nullptr},
    expand_case{"Unknown", "{{nmespace}}", value_encoding::raw, nullptr, "unknown placeholder {{nmespace}} (known: namespace, query, pods)"},
    expand_case{"Unterminated", "a {{namespace", value_encoding::raw, nullptr, "unterminated \"{{\" at offset 2"}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

struct matcher_case {
    const char* name;
    const char* selector;
    const char* expected; // nullptr: an error
};

class PromqlMatchers : public ::testing::TestWithParam<matcher_case> {};

TEST_P(PromqlMatchers, Table) {
    auto selector = core::parse_label_selector(GetParam().selector);
    ASSERT_TRUE(selector) << selector.error().text;
    auto out = promql_matchers(*selector);
    if (GetParam().expected) {
        ASSERT_TRUE(out) << out.error().text;
        EXPECT_EQ(*out, GetParam().expected);
    } else {
        EXPECT_FALSE(out);
    }
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Cases, PromqlMatchers, ::testing::Values(
    matcher_case{"Empty", "", ""},
    matcher_case{"Equals", "app=web", R"(app="web")"},
    matcher_case{"NotEquals", "app!=web", R"(app!="web")"},
    matcher_case{"In", "tier in (a,b.c)", R"(tier=~"a|b\\.c")"},
    matcher_case{"NotIn", "tier notin (a)", R"(tier!~"a")"},
    matcher_case{"Exists", "canary", R"(canary!="")"},
    matcher_case{"DoesNotExist", "!canary", R"(canary="")"},
    matcher_case{"PrefixedKey", "app.kubernetes.io/name=web", R"(app_kubernetes_io_name="web")"},
    matcher_case{"Several", "app=web,tier in (x)", R"(app="web",tier=~"x")"},
    matcher_case{"GreaterThan", "replicas>3", nullptr}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

TEST(QueryTemplate, CheckPlaceholders) {
    EXPECT_TRUE(check_placeholders("{{query}}", {"query"}));
    EXPECT_FALSE(check_placeholders("{{querry}}", {"query"}));
    EXPECT_FALSE(check_placeholders("{{query", {"query"}));
}

TEST(QueryTemplate, RegexAlternationEscapes) {
    EXPECT_EQ(regex_alternation({"web-1", "a.b", "c+d"}), R"(web-1|a\.b|c\+d)");
    EXPECT_EQ(regex_alternation({}), "");
}

TEST(QueryTemplate, EscapeString) {
    EXPECT_EQ(escape_string("a\"b\\c\nd\x01"), "a\\\"b\\\\c\\nd\\u0001");
    EXPECT_EQ(escape_influxql("a'b\\c\nd\""), "a\\'b\\\\c\\nd\"");
}

// A query's values are escaped for its language, so none can end a string literal early and
// add query text; `{{selector}}` and `{{window}}` are query text already and stay as they are.
TEST(QueryTemplate, ExpandQueryEscapesValuesForTheLanguage) {
    const template_values values{{"namespace", R"(a"}) or vector(1)#)"},
                                 {"name", "o'brien"},
                                 {"pods", R"(web\.1|web-2)"},
                                 {"selector", R"(app="web")"},
                                 {"window", "5m"}};
    EXPECT_EQ(
        expand_query(R"(x{namespace="{{namespace}}",pod=~"{{pods}}",{{selector}}}[{{window}}])",
                     values, value_encoding::promql)
            .value(),
        R"(x{namespace="a\"}) or vector(1)#",pod=~"web\\.1|web-2",app="web"}[5m])");
    EXPECT_EQ(expand_query(R"(SELECT v FROM m WHERE "name" = '{{name}}')", values,
                           value_encoding::influxql)
                  .value(),
              R"(SELECT v FROM m WHERE "name" = 'o\'brien')");
    EXPECT_EQ(expand_query("{{name}}", values, value_encoding::raw).value(), "o'brien");
    EXPECT_FALSE(expand_query("{{nope}}", values, value_encoding::promql));
}

} // namespace
} // namespace hpaplus::metrics
