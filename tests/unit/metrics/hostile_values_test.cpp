// Hostile metric values, end to end through the pure layers: a backend's answer (what Prometheus or
// a monitor returned) becomes a reading (set_backend_reading), the reading a whole decision
// (policy::decide). One table row per value and metric type, each naming the upstream behaviour it
// follows. The Kubernetes metrics APIs' decoding of the same values is tested at the end.
#include "metrics/backend_reading.hpp"

#include "../policy/test_support.hpp"
#include "core/kubernetes.hpp"
#include "kinds/decode.hpp"
#include "policy/decision.hpp"
#include "policy/defaults.hpp"

#include <rapidjson/document.h>

#include <cstdio>

#include <gtest/gtest.h>

namespace hpaplus::metrics {
namespace {

using core::quantity;
using policy::metric_source_type;
using policy::metric_target_type;

enum class kind {
    resource,
    container_resource,
    pods,
    object,
    external_value,
    external_average,
    formula
};

const char* name_of(kind k) {
    switch (k) {
    case kind::resource:
        return "Resource";
    case kind::container_resource:
        return "ContainerResource";
    case kind::pods:
        return "Pods";
    case kind::object:
        return "Object";
    case kind::external_value:
        return "External/Value";
    case kind::external_average:
        return "External/AverageValue";
    case kind::formula:
        return "Formula";
    }
    return "";
}

policy::metric_spec spec_of(kind k) {
    policy::metric_spec m;
    m.backend = "prom";
    m.metric.name = "lag";
    m.resource_name = "cpu";
    switch (k) {
    case kind::resource:
    case kind::container_resource:
        m.type = k == kind::resource ? metric_source_type::resource
                                     : metric_source_type::container_resource;
        if (k == kind::container_resource) m.container = "app";
        m.target.type = metric_target_type::utilization;
        m.target.average_utilization = 50;
        break;
    case kind::pods:
        m.type = metric_source_type::pods;
        m.target.type = metric_target_type::average_value;
        m.target.average_value = quantity::from_value(10);
        break;
    case kind::object:
        m.type = metric_source_type::object;
        m.described_object = {"Service", "web", "v1"};
        m.target.type = metric_target_type::value;
        m.target.value = quantity::from_value(10);
        break;
    case kind::external_value:
    case kind::formula: // the Formula's input: no target of its own
        m.type = metric_source_type::external;
        m.target.type = metric_target_type::value;
        m.target.value = quantity::from_value(10);
        if (k == kind::formula) {
            m.name = "lag";
            m.target_set = false;
            m.target = {};
        }
        break;
    case kind::external_average:
        m.type = metric_source_type::external;
        m.target.type = metric_target_type::average_value;
        m.target.average_value = quantity::from_value(10);
        break;
    }
    return m;
}

bool per_pod(kind k) {
    return k == kind::resource || k == kind::container_resource || k == kind::pods;
}

// What the backend answered: one value per pod (a, b) for per-pod metrics, else one series; with
// `split` each value is two halves (two containers, or two series), so that their sum is checked.
backend_answer answer(kind k, double value, bool split) {
    backend_answer a;
    const std::vector<std::string> owners =
        per_pod(k) ? std::vector<std::string>{"a", "b"} : std::vector<std::string>{""};
    for (const auto& pod : owners) {
        if (split) {
            a.values.push_back({pod, value / 2, {}});
            a.values.push_back({pod, value / 2, {}});
        } else {
            a.values.push_back({pod, value, {}});
        }
    }
    return a;
}

struct outcome {
    policy::decision d;
    std::optional<std::string> reading_error;
};

// HPA min 1, max 20 on a Deployment at 2 replicas with pods a and b (1 cpu requested each).
outcome decide(kind k, const backend_answer& a,
               std::optional<policy::fallback_spec> fallback = std::nullopt) {
    policy::reconcile_input in;
    const auto pods = policy::test::make_pods({{"a"}, {"b"}});
    in.hpa = policy::test::make_hpa(1, 20);
    in.hpa.spec.metrics = {spec_of(k)};
    if (k == kind::formula) {
        policy::metric_spec f;
        f.type = metric_source_type::formula;
        f.name = "backlog";
        f.formula = "lag";
        f.target.type = metric_target_type::average_value;
        f.target.average_value = quantity::from_value(10);
        f.fallback = fallback;
        in.hpa.spec.metrics.push_back(f);
    } else {
        in.hpa.spec.metrics[0].fallback = fallback;
    }
    in.scale = policy::scale_snapshot{2, 2, "app=web"};
    in.pods = pods.view;
    in.now = policy::test::now();
    in.hist.recommendations = {{policy::test::ago(400), 2}}; // outside every window
    policy::metric_reading r;
    set_backend_reading(a, spec_of(k), "prom", "pod", in.now, r);
    in.readings = {r};
    if (k == kind::formula) in.readings.emplace_back();
    outcome o{policy::decide(in), r.error};
    policy::finish(o.d, in, std::nullopt);
    return o;
}

// The status value the deciding metric reported, as the API server would print it.
std::string reported(const policy::decision& d) {
    const auto& status = d.metrics.back().status;
    if (!status) return "(none)";
    const auto& c = status->current;
    std::string out;
    if (c.average_utilization) out = std::to_string(*c.average_utilization) + "% ";
    if (c.average_value) return out + c.average_value->to_string();
    if (c.value) return out + c.value->to_string();
    return out;
}

struct row {
    double value;
    bool split;
    kind type;
    std::int32_t replicas; ///< after normalization (min 1); 2 = no scaling (a failed metric)
    const char* status;    ///< the reported value, or "error" when the metric failed
    const char* upstream;  ///< the upstream behaviour the row follows
};

// Ratio negative or zero: ceil(ratio × n) <= 0, normalizeDesiredReplicas lifts it to minReplicas.
const char* const to_min = "replica_calculator.go: a negative or zero ratio proposes <= 0; "
                           "horizontal.go normalizeDesiredReplicas lifts it to minReplicas";
const char* const per_pod_avg =
    "GetExternalPerPodMetricReplicas: ceil(usage/target) <= 0, status ceil(usage/statusReplicas); "
    "upstream master instead takes any negative running sum for an int64 overflow (MaxInt64, so "
    "maxReplicas): HPAPlus keeps the sign (docs/metrics.md)";
const char* const out_of_range =
    "upstream: MilliValue() of a quantity beyond int64 milli-units is not a usable number; "
    "HPAPlus fails the metric (FailedGet*Metric) so the fallback or the other metrics decide";
const char* const sum_overflow =
    "upstream wraps per-pod sums (Go's int64); HPAPlus checks the addition and fails the metric "
    "rather than report a wrapped or saturated number";
const char* const external_sum_capped =
    "replica_calculator.go GetExternalMetricReplicas caps the sum at MaxInt64 "
    "(TestReplicaCalcExternalMetricUsageOverflow), and GetExternalPerPodMetricReplicas keeps a "
    "MaxInt64 usage (TestExternalPerPodMetricUsageOverflow); the proposal saturates at MaxInt32 "
    "(TestExternalPerPodMetricReplicaOverflow), then maxReplicas and the rate limit apply";

const row rows[] = {
    // -1: every type carries the negative value and ends at minReplicas.
    {-1, false, kind::resource, 1, "-100% -1", to_min},
    {-1, false, kind::container_resource, 1, "-100% -1", to_min},
    {-1, false, kind::pods, 1, "-1", to_min},
    {-1, false, kind::object, 1, "-1", to_min},
    {-1, false, kind::external_value, 1, "-1", to_min},
    {-1, false, kind::external_average, 1, "-500m", per_pod_avg},
    {-1, false, kind::formula, 1, "-500m", per_pod_avg},
    // 0: a zero ratio proposes zero, lifted to minReplicas.
    {0, false, kind::resource, 1, "0% 0", to_min},
    {0, false, kind::container_resource, 1, "0% 0", to_min},
    {0, false, kind::pods, 1, "0", to_min},
    {0, false, kind::object, 1, "0", to_min},
    {0, false, kind::external_value, 1, "0", to_min},
    {0, false, kind::external_average, 1, "0", per_pod_avg},
    {0, false, kind::formula, 1, "0", per_pod_avg},
    // -1e18 and 1e308: beyond int64 milli-units, an error for the metric; replicas unchanged.
    {-1e18, false, kind::resource, 2, "error", out_of_range},
    {-1e18, false, kind::container_resource, 2, "error", out_of_range},
    {-1e18, false, kind::pods, 2, "error", out_of_range},
    {-1e18, false, kind::object, 2, "error", out_of_range},
    {-1e18, false, kind::external_value, 2, "error", out_of_range},
    {-1e18, false, kind::external_average, 2, "error", out_of_range},
    {-1e18, false, kind::formula, 2, "error", out_of_range},
    {1e308, false, kind::resource, 2, "error", out_of_range},
    {1e308, false, kind::container_resource, 2, "error", out_of_range},
    {1e308, false, kind::pods, 2, "error", out_of_range},
    {1e308, false, kind::object, 2, "error", out_of_range},
    {1e308, false, kind::external_value, 2, "error", out_of_range},
    {1e308, false, kind::external_average, 2, "error", out_of_range},
    {1e308, false, kind::formula, 2, "error", out_of_range},
    // Each half fits (9e15 units = 9e18 milli), their sum does not: an overflow, found by checked
    // addition (an Object metric has one value, so it has no sum); an External sum saturates.
    {1.8e16, true, kind::resource, 2, "error", sum_overflow},
    {1.8e16, true, kind::container_resource, 2, "error", sum_overflow},
    {1.8e16, true, kind::pods, 2, "error", sum_overflow},
    {1.8e16, true, kind::external_value, 4, "9223372036854775807m", external_sum_capped},
    {1.8e16, true, kind::external_average, 4, "9223372036854775807m", external_sum_capped},
    {1.8e16, true, kind::formula, 2, "error", sum_overflow},
    // A negative sum of two negative halves that fits is carried as it is.
    {-4, true, kind::external_average, 1, "-2", per_pod_avg},
    {-4, true, kind::pods, 1, "-4", to_min},
};

TEST(HostileMetricValues, TableOfValuesAndMetricTypes) {
    for (const row& r : rows) {
        char value[32];
        std::snprintf(value, sizeof value, "%g", r.value);
        SCOPED_TRACE(std::string(name_of(r.type)) + " value " + value +
                     (r.split ? " (as two halves)" : "") + " — " + r.upstream);
        const outcome o = decide(r.type, answer(r.type, r.value, r.split));
        const auto& m = o.d.metrics.back();
        if (std::string_view(r.status) == "error") {
            ASSERT_TRUE(m.error);
            EXPECT_NE(m.error->find("out of range"), std::string::npos) << *m.error;
            const auto* active = core::find_condition(o.d.status.conditions, "ScalingActive");
            ASSERT_NE(active, nullptr);
            EXPECT_EQ(active->status, core::condition_status::false_);
            EXPECT_EQ(active->reason.rfind("FailedGet", 0), 0u) << active->reason;
            EXPECT_FALSE(o.d.rescale);
        } else {
            EXPECT_FALSE(m.error) << *m.error;
            EXPECT_EQ(o.d.target_replicas, r.replicas);
            EXPECT_EQ(reported(o.d), r.status);
        }
    }
}

TEST(HostileMetricValues, OutOfRangeErrorsNameTheValue) {
    policy::metric_reading r;
    set_backend_reading(answer(kind::external_average, 1e308, false),
                        spec_of(kind::external_average), "prom", "pod", policy::test::now(), r);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(*r.error, "backend \"prom\" answered a value out of range: 1e+308 "
                        "(a metric value must fit in 64-bit milli-units, below 9.2e15 in "
                        "magnitude)");
    r = {};
    set_backend_reading(answer(kind::pods, -1e18, false), spec_of(kind::pods), "prom", "pod",
                        policy::test::now(), r);
    ASSERT_TRUE(r.error);
    EXPECT_NE(r.error->find("-1e+18 for pod a"), std::string::npos) << *r.error;
}

TEST(HostileMetricValues, AnOutOfRangeValueEngagesTheFallback) {
    const policy::fallback_spec five{std::chrono::seconds(0), policy::on_failure::replicas, 5};
    for (kind k : {kind::external_average, kind::formula, kind::resource}) {
        SCOPED_TRACE(name_of(k));
        const outcome o = decide(k, answer(k, 1e308, false), five);
        EXPECT_EQ(o.d.metrics.back().proposal, 5);
        EXPECT_EQ(o.d.metrics.back().fallback, "Replicas");
        EXPECT_TRUE(o.d.rescale);
    }
}

// The Kubernetes metrics APIs carry quantities: one whose milli-value does not fit fails the answer
// (the same rule as a backend's), a negative one is kept.
TEST(HostileMetricValues, MetricsApiQuantitiesOutOfRangeFailTheAnswer) {
    struct api_row {
        const char* value;
        bool ok;
        std::int64_t milli;
    };
    const api_row api_rows[] = {
        {"\"-1\"", true, -1000},
        {"\"0\"", true, 0},
        {"\"9e15\"", true, 9'000'000'000'000'000'000},
        {"\"-1e18\"", false, 0},
        {"\"1e17\"", false, 0},
        {"\"9223372036854775807\"", false, 0},
    };
    for (const auto& r : api_rows) {
        SCOPED_TRACE(r.value);
        const std::string body =
            std::string(
                R"({"metricName":"lag","metricLabels":{},"timestamp":"2026-01-01T00:00:00Z","value":)") +
            r.value + "}";
        rapidjson::Document doc;
        doc.Parse(body.c_str());
        ASSERT_FALSE(doc.HasParseError());
        kube::json_decoder d;
        const auto item = kinds::decode_external_metric_item(d, {&doc, ""});
        EXPECT_EQ(d.ok(), r.ok) << (d.ok() ? "" : d.error().to_string());
        if (r.ok) {
            EXPECT_EQ(item.milli, r.milli);
        } else {
            EXPECT_NE(d.error().to_string().find("out of range"), std::string::npos);
        }
    }
}

} // namespace
} // namespace hpaplus::metrics
