// The CEL validation rules of crds/ (x-kubernetes-validations) and the simulated cluster's CEL
// evaluator (sim/apiserver/cel.hpp): expressions as the cel-spec defines them, compile errors in
// cel-go's words, hostile expressions ending in an error; every rule of crds/ compiles, reads only
// bounded inputs and stays under the real server's cost limit; every example passes every rule and
// each rule has an object that breaks it (crd_rules_breaking.yaml), refused with its message; and
// every evaluation agrees with @bufbuild/cel, a conformant implementation (cel_crosscheck.mjs).
#include "../../support/build_paths.hpp"
#include "../../support/manifest_files.hpp"
#include "../../support/process.hpp"
#include "sim/apiserver/cel.hpp"
#include "sim/apiserver/cel_rules.hpp"
#include "sim/apiserver/schema.hpp"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

namespace hpaplus {
namespace {

namespace cel = sim::cel;
namespace fs = std::filesystem;
using writer = rapidjson::Writer<rapidjson::StringBuffer>;

// {"TAG": text}, how the encoding marks what JSON cannot tell apart.
void tagged(writer& w, const char* tag, const std::string& text) {
    w.StartObject();
    w.Key(tag);
    w.String(text.c_str(), static_cast<rapidjson::SizeType>(text.size()));
    w.EndObject();
}

// The tests' encoding of a CEL value, which cel_crosscheck.mjs reads and writes.
void encode(const cel::value& v, writer& w) {
    using k = cel::value::kind;
    switch (v.k) {
    case k::null:
        w.Null();
        return;
    case k::boolean:
        w.Bool(v.b);
        return;
    case k::string:
        w.String(v.s.c_str(), static_cast<rapidjson::SizeType>(v.s.size()));
        return;
    case k::integer:
        tagged(w, "$int", std::to_string(v.i));
        return;
    case k::uinteger:
        tagged(w, "$uint", std::to_string(v.u));
        return;
    case k::type:
        tagged(w, "$type", v.s);
        return;
    case k::error:
        tagged(w, "$error", v.s);
        return;
    case k::bytes:
        tagged(w, "$bytes-size", std::to_string(v.s.size()));
        return;
    case k::real:
        if (std::isnan(v.d) || std::isinf(v.d)) {
            tagged(w, "$double", std::isnan(v.d) ? "NaN" : v.d > 0 ? "Infinity" : "-Infinity");
            return;
        }
        w.StartObject();
        w.Key("$double");
        if (v.d == std::trunc(v.d) && std::abs(v.d) < 1e15)
            w.Int64(static_cast<std::int64_t>(v.d)); // JSON.stringify writes 3, not 3.0
        else
            w.Double(v.d);
        w.EndObject();
        return;
    case k::list:
        w.StartArray();
        for (std::size_t i = 0; i < cel::size_of(v); ++i)
            encode(cel::element_at(v, i), w);
        w.EndArray();
        return;
    case k::map:
        w.StartObject();
        w.Key("$map");
        w.StartArray();
        for (std::size_t i = 0; i < cel::size_of(v); ++i) {
            const auto [key, value] = cel::entry_at(v, i);
            w.StartArray();
            encode(key, w);
            encode(value, w);
            w.EndArray();
        }
        w.EndArray();
        w.EndObject();
        return;
    }
}

std::string encoded(const cel::value& v) {
    rapidjson::StringBuffer b;
    writer w(b);
    encode(v, w);
    return b.GetString();
}

// An expression with `self` bound to a JSON value (typed by its JSON): its result as "error: …",
// "compile: …" or the encoding. Compiled behind dyn(), as the table's results have every type.
std::string run(const std::string& expression, const std::string& self_json = "null") {
    rapidjson::Document self;
    self.Parse(self_json.c_str());
    const auto program =
        cel::compile("dyn(" + expression + ")", nullptr, cel::result_type::boolean);
    if (!program.ok) return "compile: " + program.error;
    const auto result = cel::evaluate(*program.ok, cel::value_of(self, nullptr));
    if (result.result.is_error()) return "error: " + result.result.s;
    return encoded(result.result);
}

struct expression_case {
    const char* expression;
    const char* self;
    const char* expected;
    /// false where @bufbuild/cel departs from cel-go, which kube-apiserver runs: it prints
    /// doubles as JavaScript does (0.00001, not Go's %g 1e-05), and its split with a limit and
    /// replace of "" are not Go's strings.SplitN and strings.Replace.
    bool cross_checked = true;
};

// The cel-spec's semantics (its conformance suite's simple tests: basic, integer_math,
// fp_math, string, lists, logic, comparisons, conversions, macros) and the Kubernetes string
// library.
const expression_case expression_cases[] = {
    {"1 + 2 * 3", "null", R"({"$int":"7"})"},
    {"7 / 2", "null", R"({"$int":"3"})"},
    {"-7 / 2", "null", R"({"$int":"-3"})"},
    {"-7 % 3", "null", R"({"$int":"-1"})"},
    {"7.0 / 2.0", "null", R"({"$double":3.5})"},
    {"9223372036854775807 + 1", "null", "error: integer overflow"},
    {"-9223372036854775808", "null", R"({"$int":"-9223372036854775808"})"},
    {"-9223372036854775808 / -1", "null", "error: integer overflow"},
    {"1 / 0", "null", "error: division by zero"},
    {"1 % 0", "null", "error: modulus by zero"},
    {"1u + 2u", "null", R"({"$uint":"3"})"},
    {"0u - 1u", "null", "error: unsigned integer overflow"},
    {"0x10 + 1", "null", R"({"$int":"17"})"},
    {"dyn(1) == 1.0", "null", "true"},
    {"1 < 1.5", "null", "true"},
    {"2u > 1", "null", "true"},
    {"-1 < 1u", "null", "true"},
    {"0.0 / 0.0 == 0.0 / 0.0", "null", "false"},
    {"'abc' < 'abd'", "null", "true"},
    {"'a' + 'b' == 'ab'", "null", "true"},
    {"size('h\u00e9llo')", "null", R"({"$int":"5"})"},
    {"'\\u00e9' == '\u00e9'", "null", "true"},
    {"'\\x41\\101\\u0041' == 'AAA'", "null", "true"},
    {"size(r'\\n')", "null", R"({"$int":"2"})"},
    {"size('''a\nb''')", "null", R"({"$int":"3"})"},
    {"size(b'\\xff\\x00')", "null", R"({"$int":"2"})"},
    {"[1, 2] + [3]", "null", R"([{"$int":"1"},{"$int":"2"},{"$int":"3"}])"},
    {"[1, 2, 3].exists(x, x > 2)", "null", "true"},
    {"[1, 2, 3].all(x, x > 0)", "null", "true"},
    {"[1, 2, 3].exists_one(x, x > 1)", "null", "false"},
    {"[1, 2, 3].map(x, x * 2)", "null", R"([{"$int":"2"},{"$int":"4"},{"$int":"6"}])"},
    {"[1, 2, 3].map(x, x > 1, x * 10)", "null", R"([{"$int":"20"},{"$int":"30"}])"},
    {"[1, 2, 3].filter(x, x % 2 == 1)", "null", R"([{"$int":"1"},{"$int":"3"}])"},
    {"{'a': 1}.a", "null", R"({"$int":"1"})"},
    {"has({'a': 1}.b)", "null", "false"},
    {"'a' in {'a': 1}", "null", "true"},
    {"2 in [1, 2]", "null", "true"},
    {"{'a': 1, 'b': 2}.all(k, k != 'c')", "null", "true"},
    // Errors are absorbed by && and || from either side, and by all/exists.
    {"false && 1 / 0 == 1", "null", "false"},
    {"1 / 0 == 1 && false", "null", "false"},
    {"true || 1 / 0 == 1", "null", "true"},
    {"1 / 0 == 1 || true", "null", "true"},
    {"1 / 0 == 1 || false", "null", "error: division by zero"},
    {"[0, 1].all(x, 1 / x > 1)", "null", "false"},
    {"[0, 1].exists(x, 1 / x == 1)", "null", "true"},
    {"[0, 1].all(x, 1 / x == 1)", "null", "error: division by zero"},
    {"[0, 1].exists_one(x, 1 / x == 1)", "null", "error: division by zero"},
    {"true ? 1 : 1 / 0", "null", R"({"$int":"1"})"},
    {"int('42') + int(2.9) + int(-2.9)", "null", R"({"$int":"42"})"},
    {"uint(-1)", "null", "error: range error"},
    {"double('1.5') * 2.0", "null", R"({"$double":3})"},
    {"string(1.5) + ' ' + string(1e21) + ' ' + string(100000.0) + ' ' + string(0.00001)", "null",
     R"("1.5 1e+21 100000 1e-05")", false},
    {"string(123456789.0) + ' ' + string(1000000.0)", "null", R"("1.23456789e+08 1e+06")", false},
    {"string(-0.5) + ' ' + string(123456.5)", "null", R"("-0.5 123456.5")"},
    {"string(42) + string(7u) + string(true)", "null", R"("427true")"},
    {"bool('true') && !bool('f')", "null", "true"},
    {"type(1) == int && type('a') == string && type([]) == list", "null", "true"},
    {"dyn(1) == dyn('a')", "null", "false"},
    {"[1, 'a'] == [1, 'a'] && {'a': [1]} == {'a': [1]}", "null", "true"},
    {"'Hello'.lowerAscii() + 'Hello'.upperAscii()", "null", R"("helloHELLO")"},
    {"' a '.trim()", "null", R"("a")"},
    {"'a,b,c'.split(',')", "null", R"(["a","b","c"])"},
    {"'a,b,c'.split(',', 2)", "null", R"(["a","b,c"])", false},
    {"['a', 'b'].join('-') + ['c'].join()", "null", R"("a-bc")"},
    {"'hello'.indexOf('l') + 'hello'.lastIndexOf('l')", "null", R"({"$int":"5"})"},
    {"'h\u00e9llo'.charAt(1) + 'hello'.substring(1, 3) + 'hello'.substring(3)", "null",
     "\"\u00e9ello\""},
    {"'aaa'.replace('a', 'b', 2)", "null", R"("bba")"},
    {"'ab'.replace('', '-')", "null", R"("-a-b-")", false},
    {"'hello'.contains('ell') && 'hello'.startsWith('he') && 'hello'.endsWith('lo')", "null",
     "true"},
    {"'hello'.substring(2, 1)", "null", "error: invalid substring range. start: 2, end: 1"},
    // self, typed by its JSON.
    {"self.a.size() == 2 && self.a[1] == 2", R"({"a":[1,2]})", "true"},
    {"self.b", R"({"a":[1,2]})", "error: no such key: b"},
    {"self.a[2]", R"({"a":[1,2]})", "error: index out of bounds: 2"},
    {"has(self.a) && !has(self.b)", R"({"a":1})", "true"},
    {"self.ratio * 2.0", R"({"ratio":0.25})", R"({"$double":0.5})"},
    {"self.all(k, self[k] > 0)", R"({"x":1,"y":2})", "true"},
};

TEST(CelEvaluator, ExpressionsAsTheCelSpecDefinesThem) {
    for (const auto& c : expression_cases)
        EXPECT_EQ(run(c.expression, c.self), c.expected) << c.expression;
}

// crds/hpaplus.yaml's HPAPlus schema and the node of `spec`.
struct hpaplus_schema {
    rapidjson::Document crd =
        test::json_of(test::read_file(fs::path(HPAPLUS_SOURCE_DIR) / "crds/hpaplus.yaml"));
    const rapidjson::Value& schema() const {
        return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    }
    const rapidjson::Value& spec() const { return schema()["properties"]["spec"]; }
};

TEST(CelEvaluator, CompileErrorsInCelGosWords) {
    hpaplus_schema h;
    auto error = [&](const std::string& rule) {
        const auto c = cel::compile(rule, &h.spec(), cel::result_type::boolean);
        EXPECT_FALSE(c.ok) << rule;
        return c.error;
    };
    EXPECT_EQ(error("self.minReplica <= 1"),
              "ERROR: <input>:1:5: undefined field 'minReplica'\n | self.minReplica <= 1\n"
              " | ....^");
    EXPECT_EQ(error("has(self.metrics[0].nam)"),
              "ERROR: <input>:1:20: undefined field 'nam'\n | has(self.metrics[0].nam)\n"
              " | ...................^");
    EXPECT_EQ(error("replicas == 1"), "ERROR: <input>:1:1: undeclared reference to 'replicas' "
                                      "(in container '')\n | replicas == 1\n | ^");
    EXPECT_EQ(error("self.minReplicas == 'one'"),
              "ERROR: <input>:1:18: found no matching overload for '_==_' applied to '(int, "
              "string)'\n | self.minReplicas == 'one'\n | .................^");
    EXPECT_EQ(error("self.minReplicas"), "cel expression must evaluate to a bool");
    EXPECT_NE(error("self.minReplicas <=").find("ERROR: <input>:1:20: Syntax error"),
              std::string::npos);
    EXPECT_NE(error("self.metrics.all(m, m.name.matches('^a'))")
                  .find("function 'matches' is not supported by the simulated cluster"),
              std::string::npos);
    EXPECT_NE(error("self.metrics.size(").find("Syntax error"), std::string::npos);
    // What compiles: escaped property names, the root's metadata, int-or-string as dyn.
    EXPECT_TRUE(cel::compile("self.metadata.name.size() < 64 && !has(self.metadata.labels)",
                             &h.schema(), cel::result_type::boolean, true)
                    .error.find("undefined field 'labels'") != std::string::npos);
    EXPECT_TRUE(cel::compile("self.metrics.all(m, !has(m.resource) || !has(m.resource.target) "
                             "|| !has(m.resource.target.value) || type(m.resource.target.value) "
                             "== string || m.resource.target.value > 0)",
                             &h.spec(), cel::result_type::boolean)
                    .ok);
}

TEST(CelEvaluator, HostileExpressionsEndInAnErrorNotAHang) {
    auto error = [](const std::string& source) {
        const auto c = cel::compile(source, nullptr, cel::result_type::boolean);
        return c.ok ? std::string() : c.error;
    };
    EXPECT_NE(error(std::string(101, '(') + "true" + std::string(101, ')'))
                  .find("expression nesting exceeds 100 levels"),
              std::string::npos);
    std::string sum = "1";
    for (int i = 0; i < 300; ++i)
        sum += " + 1";
    EXPECT_NE(error(sum + " == 301").find("expression nesting exceeds 250 levels"),
              std::string::npos);
    // || and && chains are balanced, as cel-go builds them: 5,000 terms compile.
    std::string chain = "false";
    for (int i = 0; i < 5000; ++i)
        chain += " || false";
    EXPECT_EQ(error(chain), "");
    EXPECT_NE(error(std::string(cel::max_source_bytes + 1, ' ') + "true")
                  .find("expression code point size exceeds limit"),
              std::string::npos);
    EXPECT_NE(error("'unterminated").find("Syntax error"), std::string::npos);
    EXPECT_NE(error("'\\z'").find("invalid escape sequence"), std::string::npos);
    EXPECT_NE(error("99999999999999999999 > 0").find("invalid int literal"), std::string::npos);
    // A million steps is the per-call limit: the evaluation stops there with cel-go's error.
    std::string hundred = "[";
    for (int i = 0; i < 100; ++i)
        hundred += (i ? "," : "") + std::to_string(i);
    hundred += "]";
    const auto cube = cel::compile(hundred + ".all(a, " + hundred + ".all(b, " + hundred +
                                       ".all(c, a + b + c >= 0)))",
                                   nullptr, cel::result_type::boolean);
    ASSERT_TRUE(cube.ok) << cube.error;
    const auto result = cel::evaluate(*cube.ok, cel::value{});
    EXPECT_EQ(result.result.s, cel::cost_exceeded);
    EXPECT_LE(result.cost, cel::per_call_limit + 1000);
}

// Each CRD document of crds/ with the schema of each version.
struct crd_version {
    std::string file;
    std::string kind;
    std::shared_ptr<rapidjson::Document> crd;
    const rapidjson::Value* schema;
};
std::vector<crd_version> crd_versions() {
    std::vector<crd_version> out;
    for (const auto& entry : fs::directory_iterator(fs::path(HPAPLUS_SOURCE_DIR) / "crds")) {
        if (entry.path().extension() != ".yaml") continue;
        auto docs = kube::yaml_documents_to_json(test::read_file(entry.path()));
        EXPECT_TRUE(docs) << entry.path();
        if (!docs) continue;
        for (const auto& text : *docs) {
            auto crd = std::make_shared<rapidjson::Document>();
            crd->Parse(text.c_str());
            if (!crd->IsObject() ||
                std::string((*crd)["kind"].GetString()) != "CustomResourceDefinition")
                continue;
            for (const auto& v : (*crd)["spec"]["versions"].GetArray())
                out.push_back({entry.path().filename().string(),
                               (*crd)["spec"]["names"]["kind"].GetString(), crd,
                               &v["schema"]["openAPIV3Schema"]});
        }
    }
    return out;
}

TEST(CrdRules, EveryRuleOfCrdsCompilesReadsBoundedInputsAndStaysUnderTheCostLimit) {
    std::size_t rules = 0, hpaplus_rules = 0;
    for (const auto& v : crd_versions()) {
        const auto compiled = sim::compile_rules(*v.schema, "openAPIV3Schema");
        for (const auto& [path, message] : compiled.errors)
            ADD_FAILURE() << v.file << " " << v.kind << ": " << path << ": " << message;
        if (!compiled.rules) continue;
        for (const auto& [node, list] : compiled.rules->at) {
            for (const auto& r : list) {
                ++rules;
                hpaplus_rules += v.kind == "HPAPlus";
                for (const auto& why : cel::unbounded_inputs(r.program, node))
                    ADD_FAILURE() << v.kind << " rule \"" << r.rule << "\": " << why;
                const auto cost = cel::estimated_cost(r.program, node);
                ASSERT_TRUE(cost.has_value()) << r.rule;
                EXPECT_LE(*cost, cel::static_cost_limit) << r.rule;
            }
        }
    }
    EXPECT_EQ(hpaplus_rules, 11u);
    EXPECT_EQ(rules, hpaplus_rules) << "a CRD other than HPAPlus has rules now: give it breaking "
                                       "objects in crd_rules_breaking.yaml";
    // The check sees what the real estimator would refuse: a list walked without maxItems and a
    // string compared without maxLength.
    rapidjson::Document loose;
    loose.Parse(
        R"({"type":"object","properties":{"names":{"type":"array","items":{"type":"string"}}}})");
    const auto walk = cel::compile("self.names.all(n, n != 'x' && n.startsWith('a'))", &loose,
                                   cel::result_type::boolean);
    ASSERT_TRUE(walk.ok) << walk.error;
    EXPECT_EQ(cel::unbounded_inputs(*walk.ok, &loose),
              (std::vector<std::string>{
                  "`self.names`: a list or map walked without maxItems/maxProperties",
                  "`n`: a string compared or searched without maxLength",
                  "`n`: a string compared or searched without maxLength"}));
    EXPECT_FALSE(cel::estimated_cost(*walk.ok, &loose));
}

// The objects a rule run sees: the examples and the breaking objects of HPAPlus.
struct rule_run {
    std::string name;
    std::string expected; ///< the cause the object is refused with ("" for an example)
    rapidjson::Document object;
};
std::vector<rule_run> hpaplus_objects() {
    std::vector<rule_run> out;
    for (auto& [file, object] : test::examples_of(HPAPLUS_SOURCE_DIR, "HPAPlus"))
        out.push_back({file, "", std::move(object)});
    auto docs = kube::yaml_documents_to_json(test::read_file(
        fs::path(HPAPLUS_SOURCE_DIR) / "tests/unit/manifests/crd_rules_breaking.yaml"));
    EXPECT_TRUE(docs);
    if (!docs) return out;
    for (const auto& text : *docs) {
        rule_run r;
        r.object.Parse(text.c_str());
        r.name = r.object["metadata"]["name"].GetString();
        r.expected =
            r.object["metadata"]["annotations"]["test.hpaplus.io/refused-with"].GetString();
        out.push_back(std::move(r));
    }
    return out;
}

TEST(CrdRules, EveryExamplePassesAndEachRuleHasAnObjectRefusedWithItsMessage) {
    hpaplus_schema h;
    const auto compiled = sim::compile_rules(h.schema(), "openAPIV3Schema");
    ASSERT_TRUE(compiled.rules);
    std::set<std::string> broken;
    const sim::rule_observer observe = [&](const sim::validation_rule& r, const cel::value&,
                                           const cel::value& result) {
        if (result.k == cel::value::kind::boolean && !result.b) broken.insert(r.message);
    };
    for (auto& run : hpaplus_objects()) {
        bool blocked = false;
        const auto schema_errors =
            sim::apply_schema(h.schema(), run.object, run.object.GetAllocator(), nullptr, &blocked);
        EXPECT_TRUE(schema_errors.empty()) << run.name << ": " << schema_errors.front().second;
        EXPECT_FALSE(blocked);
        const auto errors = sim::check_rules(*compiled.rules, h.schema(), run.object, nullptr,
                                             run.expected.empty() ? nullptr : &observe);
        std::vector<std::string> causes;
        for (const auto& [path, message] : errors)
            causes.push_back(path + ": " + message);
        if (run.expected.empty())
            EXPECT_TRUE(causes.empty()) << run.name << ": " << causes.front();
        else
            EXPECT_EQ(causes, std::vector<std::string>{run.expected}) << run.name;
    }
    for (const auto& [node, list] : compiled.rules->at)
        for (const auto& r : list)
            EXPECT_TRUE(broken.count(r.message)) << "no object breaks \"" << r.rule << "\"";
}

TEST(CrdRules, TheSimsEvaluationAgreesWithAConformantCelImplementation) {
    const std::string js = std::string(HPAPLUS_SOURCE_DIR) + "/tests/e2e/js";
    ASSERT_EQ(test::run_command("test -d " + js + "/node_modules/@bufbuild/cel").exit_code, 0)
        << "@bufbuild/cel is not installed: run scripts/setup.sh";
    // Every rule at every node of every example and breaking object, with the sim's result.
    rapidjson::StringBuffer cases;
    writer w(cases);
    std::vector<std::string> ours, what;
    w.StartArray();
    auto add = [&](const std::string& expression, const cel::value* self,
                   const std::string& result) {
        w.StartObject();
        w.Key("expr");
        w.String(expression.c_str());
        if (self) {
            w.Key("self");
            encode(*self, w);
        }
        w.EndObject();
        ours.push_back(result);
        what.push_back(expression + (self ? " with self = " + encoded(*self) : ""));
    };
    hpaplus_schema h;
    const auto compiled = sim::compile_rules(h.schema(), "openAPIV3Schema");
    ASSERT_TRUE(compiled.rules);
    const sim::rule_observer observe = [&](const sim::validation_rule& r, const cel::value& self,
                                           const cel::value& result) {
        add(r.rule, &self, encoded(result));
    };
    for (auto& run : hpaplus_objects()) {
        (void)sim::apply_schema(h.schema(), run.object, run.object.GetAllocator());
        (void)sim::check_rules(*compiled.rules, h.schema(), run.object, nullptr, &observe);
    }
    const std::size_t rule_cases = ours.size();
    // And the evaluator's own table.
    for (const auto& c : expression_cases) {
        rapidjson::Document self;
        self.Parse(c.self);
        const std::string result = run(c.expression, c.self);
        if (!c.cross_checked || result.rfind("compile: ", 0) == 0) continue;
        const auto value = cel::value_of(self, nullptr);
        add(c.expression, self.IsNull() ? nullptr : &value,
            result.rfind("error: ", 0) == 0 ? R"({"$error":")" + result.substr(7) + "\"}" : result);
    }
    w.EndArray();
    EXPECT_GT(rule_cases, 100u);
    const fs::path file =
        fs::temp_directory_path() / ("cel-cases-" + std::to_string(::getpid()) + ".json");
    std::ofstream(file) << cases.GetString();
    const auto r = test::run_command("node " + js + "/cel_crosscheck.mjs " + file.string(), 60);
    fs::remove(file);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    rapidjson::Document theirs;
    theirs.Parse(r.output.c_str());
    ASSERT_TRUE(theirs.IsArray()) << r.output;
    ASSERT_EQ(theirs.Size(), ours.size());
    for (rapidjson::SizeType i = 0; i < theirs.Size(); ++i) {
        rapidjson::Document mine;
        mine.Parse(ours[i].c_str());
        const bool my_error = mine.IsObject() && mine.HasMember("$error");
        const bool their_error = theirs[i].IsObject() && theirs[i].HasMember("$error");
        // Both fail, or both give the same value (error texts are each implementation's own).
        EXPECT_EQ(my_error, their_error)
            << what[i] << ": sim " << ours[i] << ", @bufbuild/cel " << sim::to_string(theirs[i]);
        if (!my_error && !their_error) {
            EXPECT_TRUE(sim::equal(mine, theirs[i]))
                << what[i] << ": sim " << ours[i] << ", @bufbuild/cel "
                << sim::to_string(theirs[i]);
        }
    }
}

} // namespace
} // namespace hpaplus
