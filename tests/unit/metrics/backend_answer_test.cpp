// Tests for decoding Prometheus and monitor answers, and for the circuit breaker.
#include "metrics/backend_answer.hpp"
#include "metrics/backends/monitor.hpp"
#include "metrics/backends/prometheus.hpp"
#include "metrics/circuit_breaker.hpp"

#include <gtest/gtest.h>

namespace hpaplus::metrics {
namespace {

struct answer_case {
    const char* name;
    const char* body;
    answer_kind kind;
    std::vector<std::pair<std::string, double>> values; // pod, value
    const char* error = "";                             // part of the error text
};

// 200,000 unclosed `[`: the answer that crashed a controller whose parser recursed.
const std::string deep_brackets(200000, '[');

std::vector<std::pair<std::string, double>> values_of(const backend_answer& a) {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& v : a.values)
        out.emplace_back(v.pod, v.value);
    return out;
}

void check(const backend_answer& a, const answer_case& c) {
    EXPECT_EQ(to_string(a.kind), std::string(to_string(c.kind))) << a.error;
    EXPECT_EQ(values_of(a), c.values);
    EXPECT_NE(a.error.find(c.error), std::string::npos) << a.error;
}

class Prometheus : public ::testing::TestWithParam<answer_case> {};

TEST_P(Prometheus, Table) {
    check(parse_prometheus(GetParam().body, "pod", 1), GetParam());
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Cases, Prometheus, ::testing::Values(
    answer_case{"Vector", R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"pod":"web-1"},"value":[1700000000.5,"1.5"]},{"metric":{"pod":"web-2"},"value":[1700000000.5,"0"]}]}})",
                answer_kind::values, {{"web-1", 1.5}, {"web-2", 0}}},
    answer_case{"NoPodLabel", R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"42"]}]}})",
                answer_kind::values, {{"", 42}}},
    answer_case{"Scalar", R"({"status":"success","data":{"resultType":"scalar","result":[1,"7"]}})", answer_kind::values, {{"", 7}}},
    answer_case{"ZeroIsAValue", R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"0"]}]}})", answer_kind::values, {{"", 0}}},
    answer_case{"Empty", R"({"status":"success","data":{"resultType":"vector","result":[]}})", answer_kind::no_data, {}, "no series"},
    answer_case{"Matrix", R"({"status":"success","data":{"resultType":"matrix","result":[]}})", answer_kind::bad_answer, {}, "returned a matrix"},
    answer_case{"NaN", R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"pod":"a"},"value":[1,"NaN"]}]}})", answer_kind::bad_answer, {}, "NaN for pod a"},
    answer_case{"Inf", R"({"status":"success","data":{"resultType":"scalar","result":[1,"+Inf"]}})", answer_kind::bad_answer, {}, "infinite"},
    answer_case{"NotANumber", R"({"status":"success","data":{"resultType":"scalar","result":[1,"abc"]}})", answer_kind::bad_answer, {}, "not a number"},
    answer_case{"Error", R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})", answer_kind::bad_answer, {}, "bad_data: parse error at char 3"},
    answer_case{"Garbage", "<html>oops</html>", answer_kind::bad_answer, {}, "not JSON (malformed JSON at offset 0"},
    answer_case{"Truncated", R"({"status":"success","data":{"resultType":"vec)", answer_kind::bad_answer, {}, "not JSON (malformed JSON at offset 45"},
    answer_case{"DeeplyNested", deep_brackets.c_str(), answer_kind::bad_answer, {}, "nesting deeper than 512 levels"},
    answer_case{"NotAnObject", "[1]", answer_kind::bad_answer, {}, "not a JSON object"},
    answer_case{"NoData", R"({"status":"success"})", answer_kind::bad_answer, {}, "no data.resultType"},
    answer_case{"SeriesWithoutValue", R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{}}]}})", answer_kind::bad_answer, {}, "no [time, value]"}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

TEST(PrometheusMatrix, SeriesWithLabelsAndPointsInOrder) {
    const auto a = parse_prometheus_matrix(
        R"({"status":"success","data":{"resultType":"matrix","result":[)"
        R"({"metric":{"pod":"web-1","container":"app"},"values":[[1700000000,"0.5"],[1700003600,"0.75"],[1700007200,"NaN"]]},)"
        R"({"metric":{"pod":"web-2","container":"app"},"values":[]}]}})");
    ASSERT_EQ(a.error, "");
    ASSERT_EQ(a.series.size(), 2u);
    EXPECT_EQ(a.series[0].labels.at("container"), "app");
    ASSERT_EQ(a.series[0].points.size(), 2u) << "NaN points are skipped";
    EXPECT_DOUBLE_EQ(a.series[0].points[1].second, 0.75);
    EXPECT_EQ(a.series[0].points[1].first - a.series[0].points[0].first, std::chrono::hours(1));
    EXPECT_TRUE(a.series[1].points.empty());
    const std::pair<const char*, const char*> bad[] = {
        {R"({"status":"success","data":{"resultType":"vector","result":[]}})", "not a matrix"},
        {R"({"status":"error","errorType":"bad_data","error":"exceeded maximum resolution"})",
         "exceeded maximum resolution"},
        {"<html>", "not JSON"},
        {"[1]", "not a JSON object"},
        {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{}}]}})",
         "no values"}};
    for (const auto& [body, error] : bad) {
        const auto r = parse_prometheus_matrix(body);
        EXPECT_NE(r.error.find(error), std::string::npos) << r.error;
        EXPECT_TRUE(r.series.empty());
    }
}

class Monitor : public ::testing::TestWithParam<answer_case> {};

const response_mapping influx{"/results/0/series", "/values/0/1", "/tags/pod", "/results/0/error",
                              "/values/0/0"};

TEST_P(Monitor, InfluxMapping) {
    check(parse_monitor(GetParam().body, influx, 1), GetParam());
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Cases, Monitor, ::testing::Values(
    answer_case{"PerPod", R"({"results":[{"statement_id":0,"series":[{"name":"rps","tags":{"pod":"web-1"},"columns":["time","last"],"values":[["2026-11-22T09:15:26Z",10]]},{"name":"rps","tags":{"pod":"web-2"},"columns":["time","last"],"values":[["2026-11-22T09:15:26Z",0]]}]}]})",
                answer_kind::values, {{"web-1", 10}, {"web-2", 0}}},
    answer_case{"NoSeries", R"({"results":[{"statement_id":0}]})", answer_kind::no_data, {}, "nothing at /results/0/series"},
    answer_case{"StatementError", R"({"results":[{"statement_id":0,"error":"database not found: mon"}]})", answer_kind::bad_answer, {}, "the monitor says: database not found: mon"},
    answer_case{"NoPod", R"({"results":[{"series":[{"values":[[1,2]]}]}]})", answer_kind::values, {{"", 2}}},
    answer_case{"NullValue", R"({"results":[{"series":[{"tags":{"pod":"a"},"values":[[1,null]]}]}]})", answer_kind::no_data, {}, "no value at /values/0/1"},
    answer_case{"StringValue", R"({"results":[{"series":[{"tags":{"pod":"a"},"values":[[1,"2.5"]]}]}]})", answer_kind::values, {{"a", 2.5}}},
    answer_case{"NotJson", "garbage", answer_kind::bad_answer, {}, "not JSON"}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

TEST(Monitor, SingleValueAndScale) {
    const response_mapping m{"", "/data/value", "", "", ""};
    const auto a = parse_monitor(R"({"data":{"value":1500}})", m, 0.001);
    ASSERT_EQ(a.kind, answer_kind::values) << a.error;
    ASSERT_EQ(a.values.size(), 1u);
    EXPECT_DOUBLE_EQ(a.values[0].value, 1.5);
    EXPECT_EQ(parse_monitor(R"({"data":{}})", m, 1).kind, answer_kind::no_data);
}

TEST(Monitor, Timestamps) {
    const auto a = parse_monitor(
        R"({"results":[{"series":[{"tags":{"pod":"a"},"values":[["2026-11-22T09:15:26Z",1]]}]}]})",
        influx, 1);
    ASSERT_EQ(a.values.size(), 1u);
    ASSERT_TRUE(a.values[0].timestamp);
    EXPECT_EQ(core::format_rfc3339(*a.values[0].timestamp), "2026-11-22T09:15:26Z");
}

TEST(Monitor, ValuesAndTimesOutOfRangeAreRefusedNotOverflowed) {
    const response_mapping m{"/r", "/v", "", "", "/t"};
    // Unix seconds beyond what a time_point holds: no timestamp (converting would be undefined).
    const auto far = parse_monitor(R"({"r":[{"v":1,"t":1e300},{"v":2,"t":-9.3e9}]})", m, 1);
    ASSERT_EQ(far.kind, answer_kind::values) << far.error;
    ASSERT_EQ(far.values.size(), 2u);
    EXPECT_FALSE(far.values[0].timestamp);
    EXPECT_FALSE(far.values[1].timestamp);
    // A finite value that the backend's scale makes infinite is a bad answer, not infinity.
    const auto huge = parse_monitor(R"({"r":[{"v":1e300}]})", m, 1e10);
    EXPECT_EQ(huge.kind, answer_kind::bad_answer);
    EXPECT_NE(huge.error.find("overflows once scaled"), std::string::npos) << huge.error;
}

TEST(CircuitBreaker, OpensAfterThresholdAndProbesOnce) {
    using namespace std::chrono_literals;
    circuit_breaker b({3, 10s});
    const auto t0 = circuit_breaker::clock::time_point{} + 100s;
    EXPECT_TRUE(b.allow(t0));
    b.record_failure(t0);
    b.record_failure(t0);
    EXPECT_EQ(b.current(), circuit_breaker::state::closed);
    b.record_success(); // a success in between starts the count again
    for (int i = 0; i < 3; ++i)
        b.record_failure(t0);
    EXPECT_EQ(b.current(), circuit_breaker::state::open);
    EXPECT_FALSE(b.allow(t0 + 9s));
    EXPECT_TRUE(b.allow(t0 + 10s));  // the probe
    EXPECT_FALSE(b.allow(t0 + 10s)); // only one
    b.record_failure(t0 + 11s);      // the probe failed: open again, from now
    EXPECT_FALSE(b.allow(t0 + 20s));
    EXPECT_TRUE(b.allow(t0 + 21s));
    b.record_success();
    EXPECT_EQ(b.current(), circuit_breaker::state::closed);
    EXPECT_TRUE(b.allow(t0 + 21s));
    EXPECT_EQ(b.consecutive_failures(), 0);
}

} // namespace
} // namespace hpaplus::metrics
