// Tests for the metric backends file: every field read, and every mistake a clear error naming
// the field.
#include "metrics/backend_config.hpp"
#include "metrics/backends/backend_type.hpp"

#include <gtest/gtest.h>

namespace hpaplus::metrics {
namespace {

const char* const full = R"(
backends:
  - name: k8s
    type: metricsAPI
  - name: prom
    type: prometheus
    url: http://127.0.0.1:9090/prom/
    auth: {bearerToken: secret}
    podLabel: kubernetes_pod
    window: 2m
    timeoutSeconds: 1.5
    coalesceSeconds: 0
    maxResponseBytes: 65536
    circuitBreaker: {failureThreshold: 3, openSeconds: 10}
  - name: influx
    type: monitor
    url: "http://127.0.0.1:8086/query?db=mon&q={{query}}"
    headers: {X-Team: autoscaling}
    auth: {basic: {username: hpaplus, password: pw}}
    scale: 0.001
    queryLanguage: InfluxQL
    response:
      items: /results/0/series
      value: /values/0/1
      pod: /tags/pod
      error: /results/0/error
adapter:
  external:
    - name: queue_depth
      backend: influx
      query: SELECT last("value") FROM "queue_depth" WHERE "namespace" = '{{namespace}}'
  custom:
    - name: rps
      backend: prom
      query: sum by (pod) (rate(http_requests_total{namespace="{{namespace}}",{{selector}}}[{{window}}]))
)";

TEST(BackendConfig, ReadsEveryField) {
    auto file = parse_backends(full);
    ASSERT_TRUE(file) << file.error().text;
    ASSERT_EQ(file->backends.size(), 3u);
    EXPECT_EQ(file->backends[0].type->name(), "metricsAPI");
    const backend_config& prom = *file->find("prom");
    EXPECT_EQ(prom.type->name(), "prometheus");
    EXPECT_EQ(prom.url, "http://127.0.0.1:9090/prom/");
    EXPECT_EQ(prom.bearer_token, "secret");
    EXPECT_EQ(prom.pod_label, "kubernetes_pod");
    EXPECT_EQ(prom.window, "2m");
    EXPECT_EQ(prom.timeout, std::chrono::milliseconds(1500));
    EXPECT_EQ(prom.coalesce, std::chrono::milliseconds(0));
    EXPECT_EQ(prom.max_response_bytes, 65536u);
    EXPECT_EQ(prom.breaker.failure_threshold, 3);
    EXPECT_EQ(prom.breaker.open_for, std::chrono::seconds(10));
    const backend_config& influx = *file->find("influx");
    EXPECT_EQ(influx.method, "GET");
    EXPECT_EQ(influx.headers.at("X-Team"), "autoscaling");
    EXPECT_EQ(influx.basic_username, "hpaplus");
    EXPECT_EQ(influx.basic_password, "pw");
    EXPECT_DOUBLE_EQ(influx.scale, 0.001);
    EXPECT_EQ(influx.query_language, value_encoding::influxql);
    EXPECT_EQ(prom.query_language, value_encoding::promql); // always, for prometheus
    EXPECT_EQ(influx.response.items, "/results/0/series");
    EXPECT_EQ(influx.response.pod, "/tags/pod");
    EXPECT_EQ(influx.timeout, std::chrono::milliseconds(5000)); // the default
    ASSERT_EQ(file->adapter_external.size(), 1u);
    EXPECT_EQ(file->adapter_external[0].backend, "influx");
    ASSERT_EQ(file->adapter_custom.size(), 1u);
    EXPECT_EQ(file->adapter_custom[0].resource, "pods");
    EXPECT_EQ(file->find("nope"), nullptr);
}

struct bad_case {
    const char* name;
    const char* text;
    const char* error; // a part of the error text
};

class BackendConfigErrors : public ::testing::TestWithParam<bad_case> {};

TEST_P(BackendConfigErrors, NameTheField) {
    auto file = parse_backends(GetParam().text);
    ASSERT_FALSE(file) << "accepted: " << GetParam().text;
    EXPECT_NE(file.error().text.find(GetParam().error), std::string::npos) << file.error().text;
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Cases, BackendConfigErrors, ::testing::Values(
    bad_case{"NotYaml", "backends: [", "line"},
    bad_case{"TwoDocuments", "backends: []\n---\nbackends: []\n", "exactly one YAML document"},
    bad_case{"UnknownTop", "backend: []", "backend: unknown field"},
    bad_case{"NoName", "backends: [{type: prometheus, url: 'http://a'}]", "backends[0].name: required"},
    bad_case{"BadName", "backends: [{name: 'Prom!', type: prometheus, url: 'http://a'}]", "backends[0].name: must be"},
    bad_case{"BadType", "backends: [{name: p, type: graphite, url: 'http://a'}]", "backends[0].type: must be metricsAPI, prometheus or monitor"},
    bad_case{"NoUrl", "backends: [{name: p, type: prometheus}]", "backends[0].url: required"},
    bad_case{"BadUrl", "backends: [{name: p, type: prometheus, url: 'ftp://a'}]", "backends[0].url: \"ftp://a\" is not an http"},
    bad_case{"TemplatedHost", "backends: [{name: m, type: monitor, url: 'http://{{namespace}}.mon/q', response: {value: /v}}]", "backends[0].url: the scheme, host and port must be literal"},
    bad_case{"PrometheusTemplate", "backends: [{name: p, type: prometheus, url: 'http://a/{{query}}'}]", "not a template"},
    bad_case{"Duplicate", "backends: [{name: p, type: metricsAPI}, {name: p, type: metricsAPI}]", "backends[1].name: \"p\" is defined twice"},
    bad_case{"MetricsApiUrl", "backends: [{name: k, type: metricsAPI, url: 'http://a'}]", "backends[0].url: unknown field"},
    bad_case{"MonitorField", "backends: [{name: p, type: prometheus, url: 'http://a', response: {value: /v}}]", "backends[0].response: unknown field"},
    bad_case{"NoResponse", "backends: [{name: m, type: monitor, url: 'http://a'}]", "backends[0].response: required for a monitor"},
    bad_case{"BadPointer", "backends: [{name: m, type: monitor, url: 'http://a', response: {value: 'values.0'}}]", "backends[0].response.value: \"values.0\" is not a JSON pointer"},
    bad_case{"UnknownPlaceholder", "backends: [{name: m, type: monitor, url: 'http://a/q?x={{qurey}}', response: {value: /v}}]", "unknown placeholder {{qurey}}"},
    bad_case{"Unterminated", "backends: [{name: m, type: monitor, url: 'http://a/q', body: '{{query', response: {value: /v}}]", "backends[0].body: unterminated"},
    bad_case{"BadLanguage", "backends: [{name: m, type: monitor, url: 'http://a', queryLanguage: SQL, response: {value: /v}}]", "backends[0].queryLanguage: must be PromQL, InfluxQL or None"},
    bad_case{"PrometheusLanguage", "backends: [{name: p, type: prometheus, url: 'http://a', queryLanguage: None}]", "backends[0].queryLanguage: unknown field"},
    bad_case{"BadMethod", "backends: [{name: m, type: monitor, url: 'http://a', method: DELETE, response: {value: /v}}]", "backends[0].method: must be GET, POST or PUT"},
    bad_case{"ZeroTimeout", "backends: [{name: p, type: prometheus, url: 'http://a', timeoutSeconds: 0}]", "backends[0].timeoutSeconds: must be between"},
    bad_case{"HugeTimeout", "backends: [{name: p, type: prometheus, url: 'http://a', timeoutSeconds: 1e9}]", "backends[0].timeoutSeconds: must be between"},
    bad_case{"ZeroScale", "backends: [{name: m, type: monitor, url: 'http://a', scale: 0, response: {value: /v}}]", "backends[0].scale: must be a finite non-zero"},
    bad_case{"TwoAuths", "backends: [{name: p, type: prometheus, url: 'http://a', auth: {bearerToken: t, basic: {username: u}}}]", "backends[0].auth: give one of"},
    bad_case{"MissingCa", "backends: [{name: p, type: prometheus, url: 'https://a', tls: {caFile: /nonexistent/ca.pem}}]", "backends[0].tls.caFile: cannot read"},
    bad_case{"BadThreshold", "backends: [{name: p, type: prometheus, url: 'http://a', circuitBreaker: {failureThreshold: 0}}]", "backends[0].circuitBreaker.failureThreshold"},
    bad_case{"AdapterUnknownBackend", "adapter: {external: [{name: q, backend: nope, query: x}]}", "adapter.external[0].backend: no backend named \"nope\""},
    bad_case{"AdapterMetricsApi", "backends: [{name: k, type: metricsAPI}]\nadapter: {external: [{name: q, backend: k, query: x}]}", "prometheus and monitor backends only"},
    bad_case{"AdapterPlaceholder", "backends: [{name: p, type: prometheus, url: 'http://a'}]\nadapter: {external: [{name: q, backend: p, query: '{{pods}}'}]}", "unknown placeholder {{pods}}"},
    bad_case{"AdapterTwice", "backends: [{name: p, type: prometheus, url: 'http://a'}]\nadapter: {external: [{name: q, backend: p, query: x}, {name: q, backend: p, query: y}]}", "adapter.external[1].name: \"q\" is served twice"}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

TEST(BackendConfig, LoadNamesTheFile) {
    auto file = load_backends("/nonexistent/backends.yaml");
    ASSERT_FALSE(file);
    EXPECT_EQ(file.error().text, "/nonexistent/backends.yaml: cannot read the file");
}

TEST(BackendConfig, EmptyFileHasNoBackends) {
    auto file = parse_backends("backends: []\n");
    ASSERT_TRUE(file) << file.error().text;
    EXPECT_TRUE(file->backends.empty());
}

} // namespace
} // namespace hpaplus::metrics
