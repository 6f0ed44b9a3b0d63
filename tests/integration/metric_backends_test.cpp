// Integration tests: metric backends against a misbehaving monitor on 127.0.0.1 — garbage,
// oversized, slow and hanging answers, HTTP errors — and coalescing, the circuit breaker and
// concurrent fetching. Every wait has a deadline.
#include "../support/run_awaitable.hpp"
#include "adapter/api.hpp"
#include "metrics/backends/backend_type.hpp"
#include "metrics/metric_sources.hpp"
#include "net/http_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <gtest/gtest.h>

#include <map>
#include <thread>

namespace hpaplus {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using metrics::answer_kind;

// A monitor whose answer depends on the query `q`: a number → that value; `garbage`, `huge`,
// `slow` (after 3 s), `hang` (after 60 s), `http400`, `http503`, `empty`, and `gate` (answers 7
// only once a request for `open` has arrived, or after 30 s).
class fake_monitor {
  public:
    explicit fake_monitor(asio::io_context& io)
        : io_(io),
          server_(io.get_executor(), {}, [this](net::http_request& req, net::http_responder& res) {
              return handle(req, res);
          }) {
        server_.start();
    }
    ~fake_monitor() { server_.stop(); }

    std::string url() const { return server_.url(); }
    int requests(const std::string& q) const {
        const auto it = seen_.find(q);
        return it == seen_.end() ? 0 : it->second;
    }
    int total() const {
        int n = 0;
        for (const auto& [q, count] : seen_)
            n += count;
        return n;
    }

  private:
    asio::awaitable<void> wait(std::chrono::milliseconds d) {
        asio::steady_timer t(io_, d);
        boost::system::error_code ec;
        co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }

    asio::awaitable<void> handle(net::http_request& req, net::http_responder& res) {
        const std::string q(req.query_param("q").value_or(""));
        ++seen_[q];
        net::http_response out;
        if (q == "garbage") {
            out.body = "<html>502 Bad Gateway</html>";
        } else if (q == "huge") {
            out.body = R"({"value":")" + std::string(1 << 20, 'x') + R"("})";
        } else if (q == "slow") {
            co_await wait(3000ms);
            out.body = R"({"value":1})";
        } else if (q == "hang") {
            co_await wait(60000ms);
        } else if (q == "http400") {
            out.status = 400;
            out.body = R"({"error":"syntax error near SELEC"})";
        } else if (q == "http503") {
            out.status = 503;
            out.body = "overloaded";
        } else if (q == "empty") {
            out.body = "{}";
        } else if (q == "open") {
            out.body = R"({"value":1})";
        } else if (q == "echo") { // a proxy that repeats the credentials it was sent
            out.status = 401;
            out.body = R"({"error":"bad credentials: )" + std::string(req.header("authorization")) +
                       " key " + std::string(req.header("x-api-key")) + R"("})";
        } else if (q == "gate") {
            for (int i = 0; i < 300 && requests("open") == 0; ++i)
                co_await wait(100ms);
            out.body = R"({"value":7})";
        } else {
            out.body = R"({"value":)" + q + "}";
        }
        co_await res.send(std::move(out));
    }

    asio::io_context& io_;
    net::http_server server_;
    std::map<std::string, int> seen_;
};

metrics::backend_config monitor_config(const std::string& name, const std::string& url) {
    metrics::backend_config b;
    b.name = name;
    b.type = metrics::find_backend_type("monitor");
    b.url = url + "/query?q={{query}}";
    b.response.value = "/value";
    b.timeout = 1000ms;
    b.max_response_bytes = 64 << 10;
    return b;
}

class MetricBackends : public ::testing::Test {
  protected:
    metrics::backend_answer fetch(metrics::http_backend& b, const std::string& q) {
        return test::run_awaitable(io, b.fetch(q, {}), 20s);
    }
    asio::io_context io;
    fake_monitor monitor{io};
};

TEST_F(MetricBackends, EachMisbehaviourIsAClearPerRequestError) {
    metrics::http_backend b(io.get_executor(), monitor_config("mon", monitor.url()));
    struct expectation {
        const char* query;
        answer_kind kind;
        const char* text;
    };
    const expectation cases[] = {
        {"42", answer_kind::values, ""},
        {"0", answer_kind::values, ""},
        {"empty", answer_kind::no_data, "no value at /value"},
        {"garbage", answer_kind::bad_answer, "not JSON"},
        {"huge", answer_kind::unavailable,
         "the answer is larger than maxResponseBytes (65536 bytes)"},
        {"slow", answer_kind::unavailable, "no answer within 1s"},
        {"hang", answer_kind::unavailable, "no answer within 1s"},
        {"http400", answer_kind::bad_answer, "HTTP 400: syntax error near SELEC"},
        {"http503", answer_kind::unavailable, "HTTP 503: overloaded"},
    };
    for (const auto& c : cases) {
        const auto a = fetch(b, c.query);
        EXPECT_EQ(to_string(a.kind), std::string(to_string(c.kind))) << c.query << ": " << a.error;
        EXPECT_NE(a.error.find(c.text), std::string::npos) << c.query << ": " << a.error;
    }
    EXPECT_EQ(fetch(b, "42").values.at(0).value, 42);
    EXPECT_EQ(fetch(b, "0").values.at(0).value, 0);
}

// Credentials never reach an error (and so no log, condition or Event): a backend that repeats
// them in its answer has them redacted.
TEST_F(MetricBackends, CredentialsAnAnswerRepeatsAreRedactedFromErrors) {
    auto basic = monitor_config("basic", monitor.url());
    basic.basic_username = "hpaplus";
    basic.basic_password = "pa55-w0rd-secret";
    basic.headers["X-Api-Key"] = "k3y-s3cr3t-value";
    auto bearer = monitor_config("bearer", monitor.url());
    bearer.bearer_token = "t0ken-s3cr3t-value";
    for (auto* config : {&basic, &bearer}) {
        metrics::http_backend b(io.get_executor(), *config);
        const auto a = fetch(b, "echo");
        EXPECT_EQ(a.kind, answer_kind::bad_answer) << a.error;
        EXPECT_NE(a.error.find("HTTP 401: bad credentials: "), std::string::npos) << a.error;
        EXPECT_NE(a.error.find("[redacted]"), std::string::npos) << a.error;
        for (const char* secret :
             {"pa55-w0rd-secret", "k3y-s3cr3t-value", "t0ken-s3cr3t-value", "aHBhcGx1czpwYTU1"})
            EXPECT_EQ(a.error.find(secret), std::string::npos) << secret << " in " << a.error;
    }
}

TEST_F(MetricBackends, IdenticalRequestsAreCoalesced) {
    auto config = monitor_config("mon", monitor.url());
    config.coalesce = 60s;
    metrics::http_backend b(io.get_executor(), config);
    // 20 requests at once share one; a later one within the window is answered from it.
    int answered = 0;
    for (int i = 0; i < 20; ++i)
        asio::co_spawn(io, b.fetch("gate", {}), [&](std::exception_ptr, metrics::backend_answer a) {
            answered += a.kind == answer_kind::values;
        });
    EXPECT_EQ(fetch(b, "open").kind, answer_kind::values);
    const auto again = fetch(b, "gate");
    EXPECT_EQ(again.values.at(0).value, 7);
    io.restart();
    io.poll(); // the other waiters resume
    EXPECT_EQ(answered, 20);
    EXPECT_EQ(monitor.requests("gate"), 1);
    EXPECT_EQ(b.stats().coalesced, 20u);

    // Without a window only requests in flight are shared.
    config.coalesce = 0ms;
    metrics::http_backend fresh(io.get_executor(), config);
    fetch(fresh, "5");
    fetch(fresh, "5");
    EXPECT_EQ(monitor.requests("5"), 2);
}

TEST_F(MetricBackends, ExpiredAnswersAreDroppedAFewAtATime) {
    auto config = monitor_config("mon", monitor.url());
    config.coalesce = 2s; // long enough for four requests on a slow (sanitized) build
    metrics::http_backend b(io.get_executor(), config);
    for (const char* q : {"1", "2", "3", "4"})
        EXPECT_EQ(fetch(b, q).kind, answer_kind::values);
    EXPECT_EQ(b.remembered(), 4u);
    std::this_thread::sleep_for(2100ms);
    // Each request sent drops at most two expired answers, the oldest first, so that dropping
    // never holds the thread for long; the next requests drop the rest.
    EXPECT_EQ(fetch(b, "5").kind, answer_kind::values);
    EXPECT_EQ(b.remembered(), 3u); // "3", "4", "5"
    EXPECT_EQ(fetch(b, "6").kind, answer_kind::values);
    EXPECT_EQ(b.remembered(), 2u); // "5", "6"
    EXPECT_EQ(monitor.requests("1"), 1);
}

TEST_F(MetricBackends, CircuitOpensOnADeadBackendAndProbesLater) {
    // A port nothing listens on: connection refused.
    auto config = monitor_config("dead", "http://127.0.0.1:1");
    config.breaker = {2, std::chrono::seconds(1)};
    metrics::http_backend b(io.get_executor(), config);
    for (int i = 0; i < 2; ++i)
        EXPECT_EQ(fetch(b, "1").kind, answer_kind::unavailable);
    const auto refused = fetch(b, "1");
    EXPECT_EQ(refused.kind, answer_kind::unavailable);
    EXPECT_NE(refused.error.find("circuit open after 2 failures in a row; next try in 1s"),
              std::string::npos)
        << refused.error;
    EXPECT_EQ(b.stats().sent, 2u);
    EXPECT_EQ(b.stats().short_circuited, 1u);
    // After open_for, one probe goes out again.
    std::this_thread::sleep_for(1100ms);
    fetch(b, "1");
    EXPECT_EQ(b.stats().sent, 3u);
}

policy::metric_spec external(const std::string& backend, const std::string& query) {
    policy::metric_spec m;
    m.type = policy::metric_source_type::external;
    m.metric.name = query;
    m.target.type = policy::metric_target_type::value;
    m.backend = backend;
    m.backend_query = query;
    return m;
}

TEST_F(MetricBackends, MetricsOfOneObjectAreFetchedConcurrently) {
    // `gate` answers only once `open` has arrived: fetched one after the other, it would time out.
    metrics::backends_file file;
    auto slow = monitor_config("slow", monitor.url());
    slow.timeout = 10s;
    file.backends.push_back(slow);
    file.backends.push_back(monitor_config("mon", monitor.url()));
    kube::cluster_config nowhere;
    nowhere.server = "http://127.0.0.1:1";
    nowhere.scheme = "http";
    nowhere.host = "127.0.0.1";
    nowhere.port = "1";
    kube::api_client cluster(io.get_executor(), nowhere);
    metrics::metric_sources sources(io.get_executor(), cluster, file);
    policy::autoscaler hpa;
    hpa.namespace_ = "shop";
    hpa.name = "web";
    hpa.spec.metrics = {external("slow", "gate"), external("mon", "open"),
                        external("mon", "garbage"), external("nope", "x"),
                        external("mon", "{{bogus}}")};
    const std::vector<const policy::pod_info*> pods;
    const std::string selector = "app=web";
    const std::string target = "web";
    std::uint64_t pod_metrics_read = 0;
    const auto readings =
        test::run_awaitable(io, sources.read(hpa, target, selector, pods, pod_metrics_read), 20s);
    ASSERT_EQ(readings.size(), 5u);
    ASSERT_FALSE(readings[0].error) << *readings[0].error;
    EXPECT_EQ(readings[0].external_values, std::vector<std::int64_t>{7000});
    ASSERT_FALSE(readings[1].error) << *readings[1].error;
    ASSERT_TRUE(readings[2].error);
    EXPECT_EQ(*readings[2].error, "backend \"mon\" answered badly: the answer is not JSON "
                                  "(malformed JSON at offset 0: Invalid value.)");
    ASSERT_TRUE(readings[3].error);
    EXPECT_EQ(*readings[3].error, "backend \"nope\" is not configured (see --metric-backends)");
    ASSERT_TRUE(readings[4].error);
    EXPECT_NE(readings[4].error->find("backend.query: unknown placeholder {{bogus}}"),
              std::string::npos);
}

// Names from the adapter's URL go into backend queries; one that Kubernetes would not allow is
// refused with a 400 Status before any backend sees it (query injection: issue 20).
TEST_F(MetricBackends, TheAdapterRefusesHostileNamesBeforeAnyBackendSeesThem) {
    metrics::backends_file file;
    file.backends.push_back(monitor_config("mon", monitor.url()));
    file.adapter_external.push_back({"queue", "mon", "{{namespace}}", ""});
    file.adapter_custom.push_back({"qps", "mon", "{{name}}", "pods"});
    adapter::adapter_api api(io.get_executor(), file);
    auto get = [&](const std::string& path, const std::string& selector = "") {
        net::http_request r;
        r.method = "GET";
        r.path = path;
        if (!selector.empty()) r.query.emplace_back("labelSelector", selector);
        return test::run_awaitable(io, api.handle(r), 20s);
    };
    const std::string external = "/apis/external.metrics.k8s.io/v1beta1/namespaces/";
    const std::string custom = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/";
    for (const std::string& ns :
         {std::string("a\"}) or vector(1)#"), std::string("Shop"), std::string("a' OR 1=1"),
          std::string("-a"), std::string("a\\b"), std::string(64, 'a')}) {
        const auto r = get(external + ns + "/queue");
        EXPECT_EQ(r.status, 400) << ns << ": " << r.body;
        EXPECT_NE(r.body.find("\"reason\":\"BadRequest\""), std::string::npos) << r.body;
        EXPECT_EQ(get(custom + ns + "/pods/*/qps").status, 400) << ns;
    }
    for (const std::string& object : {std::string("web\"}) or vector(1)#"), std::string("Web"),
                                      std::string("a..b"), std::string(254, 'a')})
        EXPECT_EQ(get(custom + "shop/pods/" + object + "/qps").status, 400) << object;
    EXPECT_EQ(get(external + "shop/queue", "app=\"x\"}) or vector(1)#").status, 400);
    EXPECT_EQ(monitor.total(), 0) << "a hostile name reached the backend";

    // Valid names do reach it.
    get(external + "shop/queue");
    EXPECT_EQ(monitor.requests("shop"), 1);
    get(custom + "shop/pods/web-7d4b9c-x2x.a/qps");
    EXPECT_EQ(monitor.requests("web-7d4b9c-x2x.a"), 1);
}

} // namespace
} // namespace hpaplus
