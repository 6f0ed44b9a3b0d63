// Table tests for label selectors (string and struct forms) and matching.
#include "core/label_interner.hpp"
#include "core/label_selector.hpp"

#include <gtest/gtest.h>

#include <map>

namespace hpaplus::core {
namespace {

struct match_case {
    const char* selector;
    label_map labels;
    bool expect;
};
void PrintTo(const match_case& c, std::ostream* os) {
    *os << '"' << c.selector << '"';
}

class SelectorMatch : public ::testing::TestWithParam<match_case> {};
TEST_P(SelectorMatch, AsKubernetes) {
    const auto s = parse_label_selector(GetParam().selector);
    ASSERT_TRUE(s) << GetParam().selector << ": " << s.error().text;
    EXPECT_EQ(s->matches(GetParam().labels), GetParam().expect) << GetParam().selector;
}

const label_map web{{"app", "web"}, {"tier", "front"}, {"version", "3"}};

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, SelectorMatch,
    ::testing::Values(match_case{"", web, true}, match_case{"app=web", web, true}, match_case{"app==web", web, true},
                      match_case{"app=api", web, false}, match_case{"app!=api", web, true},
                      match_case{"missing!=x", web, true}, match_case{"app=web,tier=front", web, true},
                      match_case{"app=web, tier=back", web, false}, match_case{"tier in (front,back)", web, true},
                      match_case{"tier in (back)", web, false}, match_case{"tier notin (back)", web, true},
                      match_case{"missing notin (x)", web, true}, match_case{"app", web, true},
                      match_case{"missing", web, false}, match_case{"!missing", web, true},
                      match_case{"!app", web, false}, match_case{"version>2", web, true},
                      match_case{"version<3", web, false}, match_case{" app = web ", web, true},
                      match_case{"app in (web),tier notin (a, b)", web, true},
                      match_case{"example.com/team=x", label_map{{"example.com/team", "x"}}, true}),
    [](const auto& info) { return "Row" + std::to_string(info.index); });
// clang-format on

// "t in()n()" came from fuzz/label_selector: it threw instead of failing to parse.
TEST(SelectorParse, RejectsBadSelectors) {
    for (const char* bad :
         {"app in (web", "t in()n()", "app in web)", "=web", "app=we b", "app in ()", "a b", ",",
          "app=web,", "-bad=x", "app=-bad", "version>x"}) {
        EXPECT_FALSE(parse_label_selector(bad)) << bad;
    }
}

TEST(SelectorStruct, MatchLabelsAndExpressions) {
    label_selector_spec spec;
    spec.match_labels = {{"app", "web"}};
    spec.match_expressions = {{"tier", "In", {"front", "back"}}, {"canary", "DoesNotExist", {}}};
    const auto s = to_label_selector(spec);
    ASSERT_TRUE(s) << s.error().text;
    EXPECT_TRUE(s->matches(web));
    EXPECT_FALSE(s->matches(label_map{{"app", "web"}, {"tier", "front"}, {"canary", "1"}}));
}

TEST(SelectorStruct, RejectsBadOperators) {
    label_selector_spec spec;
    spec.match_expressions = {{"tier", "Contains", {"x"}}};
    EXPECT_EQ(to_label_selector(spec).error().text,
              "\"Contains\" is not a valid label selector operator");
    spec.match_expressions = {{"tier", "In", {}}};
    EXPECT_FALSE(to_label_selector(spec));
    spec.match_expressions = {{"tier", "Exists", {"x"}}};
    EXPECT_FALSE(to_label_selector(spec));
}

// From fuzz/label_selector: requirements on one key kept no fixed order, so a selector's
// string form could parse back to another order (an unequal selector).
TEST(SelectorFormat, RequirementsOnOneKeyKeepTheirOrder) {
    const auto s = parse_label_selector("b,a=1,a,a!=2,a in (x),!a,c");
    ASSERT_TRUE(s);
    EXPECT_EQ(to_string(*s), "a=1,a,a!=2,a in (x),!a,b,c");
    EXPECT_EQ(parse_label_selector(to_string(*s)).value(), *s);
    // and a set holding only the empty value is written so that it reads back
    const auto empty_value = parse_label_selector("x in (,,)");
    ASSERT_TRUE(empty_value);
    EXPECT_EQ(to_string(*empty_value), "x in (,)");
    EXPECT_EQ(parse_label_selector(to_string(*empty_value)).value(), *empty_value);
}

TEST(SelectorFormat, StructFormPrintsAsKubernetesAndParsesBack) {
    label_selector_spec spec;
    spec.match_labels = {{"tier", "front"}, {"app", "web"}};
    spec.match_expressions = {
        {"zone", "NotIn", {"b", "a"}}, {"canary", "DoesNotExist", {}}, {"env", "Exists", {}}};
    const auto s = to_label_selector(spec);
    ASSERT_TRUE(s) << s.error().text;
    const std::string text = to_string(*s);
    EXPECT_EQ(text, "app=web,!canary,env,tier=front,zone notin (a,b)");
    const auto again = parse_label_selector(text);
    ASSERT_TRUE(again) << again.error().text;
    EXPECT_EQ(to_string(*again), text);
    EXPECT_EQ(to_string(label_selector{}), "");
}

// label_map keeps its labels in key order in one string: what std::map gave must still hold.
TEST(LabelMap, BehavesAsAMapInKeyOrder) {
    label_map labels = {{"tier", "front"}, {"app", "web"}, {"app", "second"}, {"", "empty key"}};
    EXPECT_EQ(labels.size(), 3u);
    std::vector<std::pair<std::string, std::string>> seen;
    for (const auto& [key, value] : labels)
        seen.emplace_back(key, value);
    const std::vector<std::pair<std::string, std::string>> want = {
        {"", "empty key"}, {"app", "web"}, {"tier", "front"}}; // the first "app" is kept
    EXPECT_EQ(seen, want);
    EXPECT_EQ(labels.at("tier"), "front");
    EXPECT_EQ(labels.find("zone"), labels.end());
    EXPECT_EQ(labels.find("ap"), labels.end()); // a prefix of a key is not the key
    EXPECT_THROW((void)labels.at("zone"), std::out_of_range);

    EXPECT_FALSE(labels.emplace("app", "other"));
    EXPECT_TRUE(labels.emplace("b", std::string(300, 'x'))); // lengths past one byte
    EXPECT_EQ(labels.find("b")->second.size(), 300u);
    labels.insert_or_assign("app", "replaced");
    labels.insert_or_assign("zz", "");
    EXPECT_EQ(labels.at("app"), "replaced");
    EXPECT_TRUE(labels.contains("zz"));
    EXPECT_TRUE(labels.erase("b"));
    EXPECT_FALSE(labels.erase("b"));
    EXPECT_EQ(labels,
              (label_map{{"zz", ""}, {"tier", "front"}, {"app", "replaced"}, {"", "empty key"}}));
    EXPECT_NE(labels, label_map{});
    const label_map none;
    EXPECT_TRUE(none.empty());
    EXPECT_EQ(none.begin(), none.end());
}

TEST(LabelMap, FromPairsSortsOnceAndReportsDuplicates) {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (int i = 20'000; i > 0; --i)
        pairs.emplace_back("k" + std::to_string(i), std::to_string(i));
    bool duplicates = true;
    const auto labels = label_map::from_pairs(pairs, &duplicates);
    EXPECT_FALSE(duplicates);
    EXPECT_EQ(labels.size(), 20'000u);
    EXPECT_EQ(labels.begin()->first, "k1");
    EXPECT_EQ(labels.at("k777"), "777");
    pairs.emplace_back("k5", "again");
    EXPECT_EQ(label_map::from_pairs(pairs, &duplicates).at("k5"), "5");
    EXPECT_TRUE(duplicates);
    EXPECT_TRUE(parse_label_selector("k9,k19=19,k20001 notin (x)")->matches(labels));
}

TEST(LabelMap, AFewPairsAreSortedAndTheFirstOfEqualKeysKept) {
    // Up to 16 pairs take the small path (views on the stack, insertion sort); check it orders
    // and keeps the first of equal keys as the large path does.
    for (const std::size_t n : {1u, 2u, 7u, 16u, 17u}) {
        std::vector<std::pair<std::string, std::string>> pairs;
        for (std::size_t i = n; i > 0; --i)
            pairs.emplace_back("k" + std::to_string(i % 5), std::to_string(i));
        bool duplicates = false;
        const auto labels = label_map::from_pairs(pairs, &duplicates);
        std::map<std::string, std::string> model;
        for (const auto& [k, v] : pairs)
            model.emplace(k, v);
        EXPECT_EQ(duplicates, model.size() != pairs.size()) << n;
        ASSERT_EQ(labels.size(), model.size()) << n;
        auto it = labels.begin();
        for (const auto& [k, v] : model) {
            EXPECT_EQ(it->first, k) << n;
            EXPECT_EQ(it->second, v) << n;
            ++it;
        }
    }
}

TEST(LabelMap, CopiesShareTheBufferAndAChangeCopiesIt) {
    const label_map original = {{"app", "web"}, {"tier", "front"}};
    label_map copy = original;
    EXPECT_TRUE(copy.shares_with(original));
    EXPECT_TRUE(copy.emplace("zone", "a"));
    EXPECT_FALSE(copy.shares_with(original));
    EXPECT_EQ(original, (label_map{{"app", "web"}, {"tier", "front"}})); // untouched
    EXPECT_EQ(copy.at("zone"), "a");
    label_map other = original;
    other.insert_or_assign("app", "api");
    EXPECT_EQ(original.at("app"), "web");
    label_map emptied = original;
    EXPECT_TRUE(emptied.erase("app") && emptied.erase("tier"));
    EXPECT_TRUE(emptied.empty());
    EXPECT_EQ(emptied, label_map{});
    EXPECT_EQ(original.size(), 2u);
    EXPECT_FALSE(label_map{}.shares_with(label_map{})); // nothing to share
}

TEST(LabelMap, FromViewsSharesALikeSetOnlyWhenItIsEqual) {
    const label_map like = {{"app", "web"}, {"pod-template-hash", "5d9c"}};
    std::vector<std::pair<std::string, std::string>> same = {{"pod-template-hash", "5d9c"},
                                                             {"app", "web"}};
    const auto shared = label_map::from_pairs(same, nullptr, &like);
    EXPECT_TRUE(shared.shares_with(like));
    // Equal but for one value, one label more, one label less, a repeated key: built anew.
    for (const auto& pairs : std::vector<std::vector<std::pair<std::string, std::string>>>{
             {{"app", "web"}, {"pod-template-hash", "5d9d"}},
             {{"app", "web"}, {"pod-template-hash", "5d9c"}, {"zone", "a"}},
             {{"app", "web"}},
             {{"app", "api"}, {"app", "web"}, {"pod-template-hash", "5d9c"}}}) {
        bool duplicates = false;
        const auto built = label_map::from_pairs(pairs, &duplicates, &like);
        EXPECT_FALSE(built.shares_with(like));
        EXPECT_NE(built, like);
        EXPECT_EQ(built, label_map::from_pairs(pairs)); // as without `like`
    }
    bool duplicates = false;
    std::vector<std::pair<std::string, std::string>> repeated = {
        {"app", "web"}, {"pod-template-hash", "5d9c"}, {"app", "api"}};
    EXPECT_TRUE(label_map::from_pairs(repeated, &duplicates, &like).shares_with(like));
    EXPECT_TRUE(duplicates); // still reported
}

TEST(LabelInterner, EqualSetsShareOneBufferAndSetsNoLongerUsedAreDropped) {
    label_interner interner;
    const label_map a = interner.intern({{"app", "web"}, {"hash", "1"}});
    const label_map b = interner.intern({{"hash", "1"}, {"app", "web"}});
    const label_map c = interner.intern({{"app", "web"}, {"hash", "2"}});
    EXPECT_TRUE(a.shares_with(b));
    EXPECT_FALSE(a.shares_with(c));
    EXPECT_EQ(c.at("hash"), "2");
    EXPECT_TRUE(interner.intern(label_map{}).empty());
    EXPECT_EQ(interner.size(), 2u);
    // Thousands of sets interned and dropped at once (pods come and go): the table keeps about
    // what is still used, and the sets still used keep being shared.
    for (int i = 0; i < 10'000; ++i)
        (void)interner.intern({{"app", "web"}, {"hash", "x" + std::to_string(i)}});
    EXPECT_LT(interner.size(), 200u);
    EXPECT_TRUE(interner.intern({{"app", "web"}, {"hash", "1"}}).shares_with(a));
    EXPECT_TRUE(interner.intern({{"app", "web"}, {"hash", "2"}}).shares_with(c));
}

} // namespace
} // namespace hpaplus::core
