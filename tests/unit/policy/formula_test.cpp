// Tests of Formula metrics: the expression language (table of texts and their values or errors),
// validation of names and formulas, and Formulas inside a whole reconcile.
#include "policy/formula.hpp"

#include "policy/decision.hpp"
#include "policy/defaults.hpp"
#include "policy/validation.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace hpaplus::policy {
namespace {

struct value_case {
    const char* text;
    double expected;
};

TEST(FormulaExpression, EvaluatesWithPrecedenceAndFunctions) {
    const std::vector<double> ab = {30, 25}; // a, b in order of first use
    const value_case cases[] = {
        {"a + 2 * b", 80},
        {"(a + 2) * b", 800},
        {"a - b - 5", 0}, // left-associative
        {"a / b / 2", 0.6},
        {"-a + b", -5},
        {"- - a", 30},
        {"+a", 30},
        {"max(a, b, 100) - min(a, b)", 75},
        {"abs(b - a) * 2", 10},
        {"a * 1.5e1 / 3", 150},
        {"min(a)", 30},
        {" a\t+\nb ", 55},
        {"a/b*b", 30},
        {".5 * a", 15},
    };
    for (const auto& c : cases) {
        auto e = formula_expression::parse(c.text);
        ASSERT_TRUE(e) << c.text << ": " << e.error().text;
        std::vector<double> values(ab.begin(), ab.begin() + e->inputs().size());
        auto v = e->evaluate(values);
        ASSERT_TRUE(v) << c.text;
        EXPECT_NEAR(*v, c.expected, 1e-9) << c.text;
    }
}

TEST(FormulaExpression, NamesAreDnsLabelsListedOnceInOrderOfFirstUse) {
    auto e = formula_expression::parse("queue-depth - lag + queue-depth * lag2");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->inputs(), (std::vector<std::string>{"queue-depth", "lag", "lag2"}));
    auto v = e->evaluate(std::vector<double>{10, 4, 2});
    ASSERT_TRUE(v);
    EXPECT_DOUBLE_EQ(*v, 26);
}

struct error_case {
    const char* text;
    const char* message;
};

TEST(FormulaExpression, RejectsBadTextSayingWhereAndWhy) {
    const error_case cases[] = {
        {"", "the expression is empty"},
        {"   ", "the expression is empty"},
        {"a +", "column 4: expected a number, a metric name or \"(\", got end of expression"},
        {"a b", "column 3: unexpected \"b\""},
        {"(a", "column 3: expected \")\", got end of expression"},
        {"a)", "column 2: unexpected \")\""},
        {"sqrt(a)", "column 1: unknown function \"sqrt\" (expected min, max or abs)"},
        {"abs(a, b)", "column 1: abs takes exactly one argument, got 2"},
        {"max(a b)", "column 7: expected \",\" or \")\", got \"b\""},
        {"a / 0", "column 5: division by zero (0 is 0)"},
        {"a / (1 - 1)", "column 5: division by zero ((1 - 1) is 0)"},
        {"1.2.3", "column 1: invalid number \"1.2.3\""},
        {"1e999", "column 1: invalid number \"1e999\""},
        {"A + b", "column 1: expected a number, a metric name or \"(\", got \"A\""},
        {"a % 2", "column 3: unexpected \"%\""},
        // Other bytes are named, never copied: the message must stay valid UTF-8.
        {"a +\x01 b", "column 4: expected a number, a metric name or \"(\", got \"\\x01\""},
        {"a + \xc3\xa9", "column 5: expected a number, a metric name or \"(\", got \"\\xc3\""},
    };
    for (const auto& c : cases) {
        auto e = formula_expression::parse(c.text);
        ASSERT_FALSE(e) << c.text;
        EXPECT_EQ(e.error().text, c.message) << c.text;
    }
}

TEST(FormulaExpression, DivisionByAVariableThatIsZeroFailsAtEvaluationNamingIt) {
    // "b - 5" is not constant for the parser (b is a metric), so it passes parsing.
    auto e = formula_expression::parse("a / (b - 5)");
    ASSERT_TRUE(e);
    auto v = e->evaluate(std::vector<double>{1, 5});
    ASSERT_FALSE(v);
    EXPECT_EQ(v.error().text, "division by zero ((b - 5) is 0)");
}

TEST(FormulaExpression, ANonFiniteResultIsAnError) {
    auto e = formula_expression::parse("a * 1e300 * 1e300");
    ASSERT_TRUE(e);
    auto v = e->evaluate(std::vector<double>{1});
    ASSERT_FALSE(v);
    EXPECT_EQ(v.error().text, "the result is not a finite number");
}

TEST(FormulaExpression, HostileTextIsBoundedInLengthAndNesting) {
    EXPECT_FALSE(formula_expression::parse(std::string(max_formula_length + 1, '1')));
    const std::string deep = std::string(2000, '(') + "a" + std::string(2000, ')');
    auto e = formula_expression::parse(deep);
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().text.find("nests deeper than 64 levels"), std::string::npos);
    EXPECT_FALSE(formula_expression::parse(std::string(4000, '-') + "a"));
    // Within the limits: 60 levels and a long flat sum are fine.
    EXPECT_TRUE(formula_expression::parse(std::string(30, '(') + "a" + std::string(30, ')')));
    std::string sum = "a";
    while (sum.size() < max_formula_length - 4)
        sum += " + a";
    auto flat = formula_expression::parse(sum);
    ASSERT_TRUE(flat);
    EXPECT_EQ(flat->inputs().size(), 1u);
}

// ---------------------------------------------------------------------------------------------
// Validation

metric_spec external_input(std::string name, std::string metric) {
    metric_spec m;
    m.type = metric_source_type::external;
    m.name = std::move(name);
    m.metric.name = std::move(metric);
    m.target_set = false;
    return m;
}

metric_spec formula_metric(std::string name, std::string expression, bool average = true,
                           std::int64_t target_milli = 10000) {
    metric_spec m;
    m.type = metric_source_type::formula;
    m.name = std::move(name);
    m.formula = std::move(expression);
    m.target.type = average ? metric_target_type::average_value : metric_target_type::value;
    (average ? m.target.average_value : m.target.value) = core::quantity::from_milli(target_milli);
    return m;
}

autoscaler formula_hpa(std::vector<metric_spec> metrics) {
    autoscaler a = test::make_hpa(1, 20);
    a.spec.metrics = std::move(metrics);
    apply_defaults(a.spec);
    return a;
}

std::string first_error(const autoscaler& a) {
    auto errors = validate(a.spec);
    return errors.empty() ? "" : errors.front().field + ": " + errors.front().message;
}

TEST(FormulaValidation, NamesFormulasAndInputs) {
    const auto ok = formula_hpa({external_input("a", "qa"), external_input("b", "qb"),
                                 formula_metric("backlog", "a + 2 * b")});
    EXPECT_EQ(first_error(ok), "");

    struct row {
        std::vector<metric_spec> metrics;
        std::string error;
    };
    auto unnamed = external_input("", "qa");
    auto voting_without_target = external_input("c", "qc");
    auto input_with_fallback = external_input("a", "qa");
    input_with_fallback.fallback = fallback_spec{};
    const row rows[] = {
        {{external_input("a", "qa"), formula_metric("f", "a + c")},
         "spec.metrics[1].formula.expression: unknown metric \"c\" (no entry of spec.metrics has "
         "this name)"},
        {{external_input("a", "qa"), formula_metric("f", "a-b")},
         "spec.metrics[1].formula.expression: unknown metric \"a-b\" (no entry of spec.metrics "
         "has this name); a name may contain '-', so write \"a - b\" to subtract"},
        {{external_input("a", "qa"), external_input("a", "qb"), formula_metric("f", "a")},
         "spec.metrics[1].name: Duplicate value: \"a\""},
        {{external_input("A", "qa"), formula_metric("f", "a")},
         "spec.metrics[0].name: must be a "
         "lowercase DNS-1123 label (at "
         "most 63 of a-z, 0-9 and '-', "
         "starting and ending with a "
         "letter or digit)"},
        {{external_input("a", "qa"), formula_metric("f", "a + g"), formula_metric("g", "f * 2")},
         "spec.metrics[1].formula.expression: formulas refer to each other in a cycle (f -> g -> "
         "f)"},
        {{external_input("a", "qa"), formula_metric("f", "a / 0")},
         "spec.metrics[1].formula.expression: column 5: division by zero (0 is 0)"},
        {{unnamed, formula_metric("f", "2")},
         "spec.metrics[0].external.target: Required value (only an input of a Formula may leave "
         "out its target)"},
        {{external_input("a", "qa"), voting_without_target, formula_metric("f", "a")},
         "spec.metrics[1].external.target: Required value (only an input of a Formula may leave "
         "out its target)"},
        {{input_with_fallback, formula_metric("f", "a")},
         "spec.metrics[0].fallback: an input of a Formula does not vote, so it takes no fallback; "
         "give the Formula one"},
        {{external_input("a", "qa"), formula_metric("f", "a", true, 0)},
         "spec.metrics[1].formula.target.averageValue: must be positive"},
    };
    for (const auto& r : rows)
        EXPECT_EQ(first_error(formula_hpa(r.metrics)), r.error);

    std::vector<metric_spec> many = {external_input("a", "qa")};
    for (int i = 0; i < 17; ++i)
        many.push_back(formula_metric("f" + std::to_string(i), "a"));
    EXPECT_EQ(first_error(formula_hpa(many)), "spec.metrics[17]: at most 16 Formula metrics per "
                                              "object");
}

TEST(FormulaValidation, AFormulaAloneAllowsMinReplicasZero) {
    auto a = formula_hpa({external_input("a", "qa"), formula_metric("f", "a")});
    a.spec.min_replicas = 0;
    EXPECT_EQ(first_error(a), "");
}

// ---------------------------------------------------------------------------------------------
// A whole reconcile

metric_reading external_value(std::int64_t milli) {
    metric_reading r;
    r.external_values = {milli};
    return r;
}

struct FormulaReconcile : ::testing::Test {
    test::pod_set pods = test::make_pods({{"a"}, {"b"}, {"c"}, {"d"}});
    reconcile_input in;

    FormulaReconcile() {
        in.hpa = formula_hpa({external_input("a", "qa"), external_input("b", "qb"),
                              formula_metric("backlog", "a + 2 * b")});
        in.scale = scale_snapshot{4, 4, "app=web"};
        in.pods = pods.view;
        in.now = test::now();
        in.hist.recommendations.push_back({test::now(), 4});
        in.readings = {external_value(30000), external_value(25000), {}};
    }

    decision run() {
        decision d = decide(in);
        finish(d, in, std::nullopt);
        return d;
    }
};

TEST_F(FormulaReconcile, TheIssueExampleProposesEight) {
    const decision d = run();
    ASSERT_EQ(d.metrics.size(), 3u);
    EXPECT_FALSE(d.metrics[0].proposal); // inputs do not vote
    EXPECT_FALSE(d.metrics[1].proposal);
    ASSERT_TRUE(d.metrics[0].status);
    EXPECT_EQ(d.metrics[0].status->current.value->milli_value(), 30000);
    EXPECT_EQ(d.metrics[2].proposal, 8);
    EXPECT_EQ(d.desired_replicas, 8);
    EXPECT_EQ(d.rescale_reason, "formula metric backlog above target");
    ASSERT_TRUE(d.metrics[2].status);
    EXPECT_EQ(d.metrics[2].status->type, metric_source_type::formula);
    EXPECT_EQ(d.metrics[2].status->current.average_value->milli_value(), 20000); // 80 / 4 pods
}

TEST_F(FormulaReconcile, AnInputAboveTargetAloneDoesNotVote) {
    // Without the Formula's vote the input (target 1 per pod, value 30) would ask for 20.
    in.hpa.spec.metrics[0].target_set = true;
    in.hpa.spec.metrics[0].target.type = metric_target_type::average_value;
    in.hpa.spec.metrics[0].target.average_value = core::quantity::from_milli(1000);
    EXPECT_EQ(run().desired_replicas, 8);
}

TEST_F(FormulaReconcile, ToleranceAppliesToTheFormula) {
    in.readings[0] = external_value(39000); // 39 + 2 × 2 = 43 over 4 pods × 10: ratio 1.075
    in.readings[1] = external_value(2000);
    EXPECT_EQ(run().desired_replicas, 4); // within the default 10 %
    in.hpa.spec.behavior.emplace();
    in.hpa.spec.behavior->scale_up.emplace();
    in.hpa.spec.behavior->scale_up->tolerance = core::quantity::parse("0.05").value();
    apply_defaults(in.hpa.spec);
    EXPECT_EQ(run().desired_replicas, 5); // outside 5 % up: ceil(4.3)
}

TEST_F(FormulaReconcile, AFailingInputFailsTheFormulaNamingTheInput) {
    in.readings[1].external_values.clear();
    in.readings[1].error = "no metrics returned from external metrics API";
    const decision d = run();
    ASSERT_TRUE(d.metrics[2].error);
    EXPECT_EQ(*d.metrics[2].error,
              "failed to get formula metric value: unable to compute formula metric backlog: input "
              "\"b\" (spec.metrics[1]) failed: no metrics returned from external metrics API");
    EXPECT_EQ(*d.metrics[1].error, "no metrics returned from external metrics API");
    EXPECT_EQ(d.desired_replicas, 0); // status keeps its previous desiredReplicas (unset here)
    EXPECT_FALSE(d.rescale);
    ASSERT_FALSE(d.events.empty());
    EXPECT_EQ(d.events.front().reason, "FailedGetFormulaMetric");
}

TEST_F(FormulaReconcile, AFailingFormulaNeverAllowsAScaleDown) {
    // A second, ordinary metric proposes 2; the failed Formula must block going below 4.
    metric_spec low;
    low.type = metric_source_type::external;
    low.metric.name = "low";
    low.target.type = metric_target_type::value;
    low.target.value = core::quantity::from_milli(100000);
    in.hpa.spec.metrics.push_back(low);
    in.readings.push_back(external_value(1000));
    in.hist.recommendations.clear();
    in.readings[0].error = "backend down";
    const decision d = run();
    EXPECT_FALSE(d.rescale);
    EXPECT_TRUE(d.error);
}

TEST_F(FormulaReconcile, AValueTargetScalesOnTheRatioLikeAnExternalMetric) {
    in.hpa.spec.metrics[2] = formula_metric("backlog", "max(a, b) / 3", false, 5000); // 10 vs 5
    const decision d = run();
    EXPECT_EQ(d.metrics[2].proposal, 8); // ceil(2.0 × 4 ready pods)
    EXPECT_EQ(d.metrics[2].status->current.value->milli_value(), 10000);
}

TEST_F(FormulaReconcile, DivisionByZeroAtRunTimeIsAMetricFailure) {
    in.hpa.spec.metrics[2] = formula_metric("backlog", "a / (b - 25)");
    const decision d = run();
    ASSERT_TRUE(d.metrics[2].error);
    EXPECT_NE(d.metrics[2].error->find("division by zero ((b - 25) is 0)"), std::string::npos);
}

TEST_F(FormulaReconcile, FormulasMayReadFormulas) {
    in.hpa.spec.metrics[2] = formula_metric("weighted", "2 * b");
    in.hpa.spec.metrics.push_back(formula_metric("backlog", "a + weighted"));
    in.readings.push_back({});
    ASSERT_EQ(first_error(in.hpa), "");
    const decision d = run();
    EXPECT_FALSE(d.metrics[2].proposal); // "weighted" is an input of "backlog"
    EXPECT_EQ(d.metrics[3].proposal, 8);
}

} // namespace
} // namespace hpaplus::policy
