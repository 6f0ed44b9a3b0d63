// tests/support/controller_fixture.cpp — running the controller in a test.
#include "controller_fixture.hpp"
#include "build_paths.hpp"
#include "shipped_identity.hpp"

#include "controller/runtime/manager.hpp"
#include "controller/runtime/process.hpp"
#include "kube/config.hpp"
#include "kube/yaml_json.hpp"

#include <atomic>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <future>
#include <sstream>

namespace hpaplus::test {

namespace asio = boost::asio;

namespace {
std::atomic<std::int64_t> test_clock_offset{0}; // nanoseconds
} // namespace

core::time_point test_clock() {
    return core::wall_now() + std::chrono::nanoseconds(test_clock_offset.load());
}

void step_test_clock(std::chrono::nanoseconds by) {
    test_clock_offset += by.count();
}

void reset_test_clock() {
    test_clock_offset = 0;
}

controller::controller_options test_controller_options() {
    controller::controller_options o;
    o.ops_listen.clear();
    o.leader.enabled = false;
    // Simulated pods start in under a second; upstream's 5 min CPU initialization period (whose
    // readiness rule needs a 15 s metric window after Ready) would only make the tests wait.
    o.policy.cpu_initialization_period = std::chrono::seconds(1);
    o.cache_sync_timeout = std::chrono::seconds(10);
    o.shutdown_grace = std::chrono::seconds(5);
    o.client.request_timeout = std::chrono::seconds(5);
    o.client.connect_timeout = std::chrono::seconds(2);
    o.client.qps = 1000;
    o.client.burst = 1000;
    // HPAPLUS_TEST_THREADS=N runs every controller of the tests on N lanes of workers (--threads).
    if (const char* lanes = std::getenv("HPAPLUS_TEST_THREADS")) o.threads = std::atoi(lanes);
    return o;
}

controller_runner::controller_runner(sim_fixture& sim, controller::controller_options options,
                                     std::uint16_t through_port)
    : sim_(sim) {
    auto config = kube::parse_kubeconfig(sim.cluster().kubeconfig(), "/");
    if (!config) throw std::runtime_error(config.error().text);
    // As deployed: the controller's ServiceAccount with deploy/'s RBAC (sharded: its Role).
    config->token =
        sim.shipped_token(controller_account, options.shards > 1 ? "sharded" : "complete");
    if (through_port) {
        config->port = std::to_string(through_port);
        config->server = config->scheme + "://" + config->host + ":" + config->port;
    }
    process_ = std::make_unique<controller::controller_process>(io_, std::move(*config),
                                                                std::move(options));
    process_->start([this](int code) {
        exit_code_ = code;
        io_.stop();
    });
    thread_ = std::thread([this] { io_.run(); });
}

controller_runner::~controller_runner() {
    if (!ended_) shutdown();
    // Whatever the test did, the controller never needed a right deploy/ does not grant.
    const auto answer = sim_.get("/sim/v1/rbac-usage");
    record_rbac_usage(answer.body);
    rapidjson::Document usage;
    usage.Parse(answer.body.c_str());
    const std::string user =
        "system:serviceaccount:" + shipped_namespace + ":" + controller_account;
    if (!refusals_expected_ && usage.IsObject() && usage.HasMember("refused") &&
        usage["refused"].HasMember(user.c_str()))
        ADD_FAILURE() << "the controller was refused "
                      << usage["refused"][user.c_str()]["count"].GetUint64()
                      << " request(s) under deploy/'s RBAC, first: "
                      << usage["refused"][user.c_str()]["first"].GetString();
    // Destroy the process on the (stopped) io_context's owner thread after the run ended.
    process_.reset();
}

int controller_runner::shutdown() {
    if (ended_) return exit_code_;
    ended_ = true;
    asio::post(io_, [this] { process_->shutdown(); });
    auto joined = std::async(std::launch::async, [this] { thread_.join(); });
    if (joined.wait_for(std::chrono::seconds(15)) != std::future_status::ready) {
        ADD_FAILURE() << "the controller did not shut down within 15 s";
        io_.stop();
        joined.wait();
    }
    return exit_code_;
}

void controller_runner::kill() {
    if (ended_) return;
    ended_ = true;
    io_.stop();
    thread_.join();
}

void controller_runner::freeze(std::chrono::milliseconds d) {
    // As SIGSTOP stops every thread: the main one and each lane's.
    for (const auto& ex : process_->executors())
        asio::post(ex, [d] { std::this_thread::sleep_for(d); });
}

template <class T> T controller_runner::on_thread(std::function<T()> f) {
    if (ended_) return T{};
    std::promise<T> result;
    asio::post(io_, [&] { result.set_value(f()); });
    auto future = result.get_future();
    if (future.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        ADD_FAILURE() << "the controller thread did not answer within 10 s";
        return T{};
    }
    return future.get();
}

bool controller_runner::leading() {
    return on_thread<bool>([this] { return process_->leading(); });
}

bool controller_runner::acting() {
    return on_thread<bool>(
        [this] { return process_->objects().synced() && process_->objects().acting(); });
}

std::uint64_t controller_runner::pod_metrics_lists() {
    return on_thread<std::uint64_t>([this] { return process_->pod_metrics_lists(); });
}

std::uint64_t controller_runner::reconciles() {
    return on_thread<std::uint64_t>([this] { return process_->objects().stats().reconciles; });
}

std::uint64_t controller_runner::status_writes() {
    return on_thread<std::uint64_t>([this] { return process_->objects().stats().status_writes; });
}

std::size_t controller_runner::workers() {
    return on_thread<std::size_t>([this] { return process_->objects().worker_count(); });
}

std::string controller_runner::ops_url() {
    return on_thread<std::string>([this] { return process_->ops_url(); });
}

std::string controller_runner::webhook_url() {
    return on_thread<std::string>([this] { return process_->webhook_url(); });
}

std::string read_source_file(const std::string& relative_path) {
    std::ifstream in(std::string(HPAPLUS_SOURCE_DIR) + "/" + relative_path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

namespace {

std::string collection_of(const rapidjson::Document& doc) {
    const std::string api_version = doc["apiVersion"].GetString();
    const std::string kind = doc["kind"].GetString();
    std::string ns = "default";
    if (doc.HasMember("metadata") && doc["metadata"].HasMember("namespace"))
        ns = doc["metadata"]["namespace"].GetString();
    const std::string base = api_version == "v1" ? "/api/v1" : "/apis/" + api_version;
    if (kind == "CustomResourceDefinition") return base + "/customresourcedefinitions";
    if (kind == "Namespace") return base + "/namespaces";
    if (kind == "MutatingWebhookConfiguration") return base + "/mutatingwebhookconfigurations";
    std::string plural = kind;
    for (auto& c : plural)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    plural += plural.back() == 's' ? "es" : "s";
    return base + "/namespaces/" + ns + "/" + plural;
}

} // namespace

void apply_manifest(sim_fixture& sim, const std::string& yaml) {
    auto docs = kube::yaml_documents_to_json(yaml);
    ASSERT_TRUE(docs) << docs.error().text;
    for (const auto& json : *docs) {
        rapidjson::Document doc;
        doc.Parse(json.c_str());
        ASSERT_TRUE(doc.IsObject()) << json;
        const auto r = sim.request("POST", collection_of(doc), json);
        ASSERT_TRUE(r.status == 201 || r.status == 200) << r.status << " " << r.body;
    }
}

rapidjson::Document get_json(sim_fixture& sim, const std::string& path) {
    rapidjson::Document doc;
    const auto r = sim.get(path);
    if (r.status == 200) doc.Parse(r.body.c_str());
    return doc;
}

http_result http_get(const std::string& url) {
    namespace beast = boost::beast;
    namespace http = beast::http;
    const auto host_start = url.find("://") + 3;
    const auto path_start = url.find('/', host_start);
    const std::string host_port = url.substr(host_start, path_start - host_start);
    const auto colon = host_port.rfind(':');
    asio::io_context io;
    beast::tcp_stream stream(io);
    stream.expires_after(std::chrono::seconds(10));
    asio::ip::tcp::resolver resolver(io);
    stream.connect(resolver.resolve(host_port.substr(0, colon), host_port.substr(colon + 1)));
    http::request<http::empty_body> req{http::verb::get, url.substr(path_start), 11};
    req.set(http::field::host, host_port);
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    return {static_cast<int>(res.result_int()), res.body(), {}};
}

} // namespace hpaplus::test
