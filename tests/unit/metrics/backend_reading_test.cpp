// Tests for turning backend answers into readings and for the values a metric query sees.
#include "metrics/backend_reading.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace hpaplus::metrics {
namespace {

policy::metric_spec metric(policy::metric_source_type type) {
    policy::metric_spec m;
    m.type = type;
    m.resource_name = "cpu";
    m.metric.name = "rps";
    m.backend = "prom";
    return m;
}

backend_answer values(std::vector<backend_value> v) {
    backend_answer a;
    a.values = std::move(v);
    return a;
}

const core::time_point now = core::parse_rfc3339("2026-11-22T10:00:00Z").value();

TEST(BackendReading, PerPodValuesBecomeSortedMilliSamplesSummedPerPod) {
    policy::metric_reading r;
    set_backend_reading(values({{"web-2", 0.25, {}}, {"web-1", 1.5, {}}, {"web-2", 0.5, {}}}),
                        metric(policy::metric_source_type::resource), "prom", "pod", now, r);
    ASSERT_FALSE(r.error) << *r.error;
    ASSERT_EQ(r.samples.size(), 2u);
    EXPECT_EQ(r.samples[0].pod, "web-1");
    EXPECT_EQ(r.samples[0].milli, 1500);
    EXPECT_EQ(r.samples[1].pod, "web-2");
    EXPECT_EQ(r.samples[1].milli, 750);
    EXPECT_EQ(r.samples[1].timestamp, now);
}

// maxSampleAgeSeconds: Object and External readings keep their oldest value's time; a backend
// answering its evaluation time is dated by its sample-time query (Prometheus: timestamp(q)).
TEST(BackendReading, ObjectAndExternalReadingsKeepTheOldestSampleTime) {
    policy::metric_reading r;
    const auto earlier = now - std::chrono::seconds(90);
    set_backend_reading(values({{"", 1, now}, {"", 2, earlier}, {"", 3, {}}}),
                        metric(policy::metric_source_type::external), "prom", "pod", now, r);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.sample_time, earlier);
    policy::metric_reading object;
    set_backend_reading(values({{"", 1, earlier}}), metric(policy::metric_source_type::object),
                        "prom", "pod", now, object);
    EXPECT_EQ(object.sample_time, earlier);
}

TEST(BackendReading, ASampleTimeQueryDatesEveryValueByTheOldest) {
    backend_answer answer = values({{"web-1", 1, now}, {"web-2", 2, now}});
    const double newer = std::chrono::duration<double>(now.time_since_epoch()).count() - 30;
    const double older = newer - 570;
    date_samples(answer, values({{"web-1", newer, now}, {"web-2", older, now}}));
    ASSERT_EQ(answer.kind, answer_kind::values);
    for (const auto& v : answer.values)
        EXPECT_EQ(v.timestamp, now - std::chrono::seconds(600));
    // No time in the answer: the read fails rather than decide on a sample of unknown age.
    backend_answer unknown = values({{"", 1, now}});
    backend_answer none;
    none.kind = answer_kind::no_data;
    none.error = "the query returned no series";
    date_samples(unknown, none);
    EXPECT_EQ(unknown.kind, answer_kind::no_data);
    EXPECT_EQ(unknown.error, "the sample-time query failed: the query returned no series");
    backend_answer garbage = values({{"", 1, now}});
    date_samples(garbage, values({{"", -5, now}, {"", std::nan(""), now}}));
    EXPECT_EQ(garbage.kind, answer_kind::bad_answer);
    EXPECT_EQ(garbage.error, "the sample-time query failed: no value is a time");
}

TEST(BackendReading, PerPodMetricNeedsPodNames) {
    policy::metric_reading r;
    set_backend_reading(values({{"", 3, {}}}), metric(policy::metric_source_type::pods), "prom",
                        "kubernetes_pod", now, r);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(*r.error, "backend \"prom\" answered badly: a value does not name its pod (label "
                        "\"kubernetes_pod\"); a Pods metric needs one value per pod");
}

TEST(BackendReading, ObjectNeedsExactlyOneValue) {
    policy::metric_reading r;
    set_backend_reading(values({{"", 2.5, {}}}), metric(policy::metric_source_type::object), "prom",
                        "pod", now, r);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.object_value, 2500);
    policy::metric_reading two;
    set_backend_reading(values({{"", 1, {}}, {"", 2, {}}}),
                        metric(policy::metric_source_type::object), "prom", "pod", now, two);
    ASSERT_TRUE(two.error);
    EXPECT_NE(two.error->find("2 values when an Object metric needs exactly one"),
              std::string::npos);
}

TEST(BackendReading, ExternalKeepsEveryValueWithItsSignAndRefusesHugeOnes) {
    policy::metric_reading r;
    set_backend_reading(values({{"", 0, {}}, {"a", -2.5, {}}, {"", -0.0004, {}}}),
                        metric(policy::metric_source_type::external), "prom", "pod", now, r);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.external_values, (std::vector<std::int64_t>{0, -2500, 0}));
    set_backend_reading(values({{"", 0, {}}, {"a", 1e300, {}}}),
                        metric(policy::metric_source_type::external), "prom", "pod", now, r);
    ASSERT_TRUE(r.error);
    EXPECT_TRUE(r.external_values.empty());
}

TEST(BackendReading, FailuresAreToldApart) {
    const std::pair<answer_kind, const char*> cases[] = {
        {answer_kind::unavailable, "backend \"prom\" is unavailable: x"},
        {answer_kind::no_data, "backend \"prom\" has no data: x"},
        {answer_kind::bad_answer, "backend \"prom\" answered badly: x"},
    };
    for (const auto& [kind, text] : cases) {
        backend_answer a;
        a.kind = kind;
        a.error = "x";
        policy::metric_reading r;
        set_backend_reading(a, metric(policy::metric_source_type::external), "prom", "pod", now, r);
        ASSERT_TRUE(r.error);
        EXPECT_EQ(*r.error, text);
    }
}

std::string value_of(const template_values& v, std::string_view name) {
    for (const auto& [k, x] : v)
        if (k == name) return x;
    return "<absent>";
}

TEST(BackendReading, QueryValuesPerType) {
    std::vector<std::string_view> pods{"web-1", "web-2"};
    const query_context ctx{"shop", "web-hpa", "web", "app=web", pods, "1m"};
    auto pod_values = query_values(metric(policy::metric_source_type::pods), ctx);
    ASSERT_TRUE(pod_values);
    EXPECT_EQ(value_of(*pod_values, "namespace"), "shop");
    EXPECT_EQ(value_of(*pod_values, "name"), "web-hpa");
    EXPECT_EQ(value_of(*pod_values, "target"), "web");
    EXPECT_EQ(value_of(*pod_values, "metric"), "rps");
    EXPECT_EQ(value_of(*pod_values, "selector"), R"(app="web")");
    EXPECT_EQ(value_of(*pod_values, "labelSelector"), "app=web");
    EXPECT_EQ(value_of(*pod_values, "pods"), "web-1|web-2");
    EXPECT_EQ(value_of(*pod_values, "window"), "1m");

    auto resource = query_values(metric(policy::metric_source_type::resource), ctx);
    ASSERT_TRUE(resource);
    EXPECT_EQ(value_of(*resource, "metric"), "cpu");

    auto external_spec = metric(policy::metric_source_type::external);
    external_spec.metric.selector = core::label_selector_spec{{{"queue", "orders"}}, {}};
    auto external = query_values(external_spec, ctx);
    ASSERT_TRUE(external);
    EXPECT_EQ(value_of(*external, "selector"), R"(queue="orders")");
    EXPECT_EQ(value_of(*external, "pods"), "");

    const query_context bad{"shop", "web-hpa", "web", "a>1", pods, "1m"};
    EXPECT_FALSE(query_values(metric(policy::metric_source_type::pods), bad));
}

} // namespace
} // namespace hpaplus::metrics
