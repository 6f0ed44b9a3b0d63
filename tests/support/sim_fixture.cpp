// tests/support/sim_fixture.cpp — background simulated cluster and a blocking client for tests.
#include "sim_fixture.hpp"
#include "shipped_identity.hpp"

#include "kube/yaml_json.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <future>
#include <stdexcept>

#include <sys/socket.h>
#include <sys/time.h>

#include <gtest/gtest.h>

namespace hpaplus::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {
sim::cluster_options test_options(bool tls) {
    sim::cluster_options options;
    options.tls = tls;
    options.api.bookmark_interval = std::chrono::milliseconds(300);
    // The tests of the store, watches and clients count and watch the ConfigMaps they make; a
    // cluster with the root CA publisher has one more in each namespace (SimClusterDefaults).
    options.publish_root_ca = false;
    return options;
}
} // namespace

sim_fixture::sim_fixture(bool tls) : sim_fixture(test_options(tls)) {}

std::string sim_fixture::shipped_token(const std::string& account, const std::string& overlay) {
    for (const auto& yaml : shipped_rbac_documents(overlay)) {
        auto documents = kube::yaml_documents_to_json(yaml);
        if (!documents || documents->size() != 1)
            throw std::runtime_error("a rendered RBAC document does not parse: " + yaml);
        const std::string& body = documents->front();
        sim::json_doc doc;
        doc.Parse(body.c_str());
        const std::string kind = sim::string_at(doc, "kind");
        const std::string ns = sim::string_at(doc, "metadata.namespace");
        std::string path;
        if (kind == "Namespace")
            path = "/api/v1/namespaces";
        else if (kind == "ServiceAccount")
            path = "/api/v1/namespaces/" + ns + "/serviceaccounts";
        else if (kind == "Role" || kind == "RoleBinding")
            path = "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns +
                   (kind == "Role" ? "/roles" : "/rolebindings");
        else
            path = std::string("/apis/rbac.authorization.k8s.io/v1/") +
                   (kind == "ClusterRole" ? "clusterroles" : "clusterrolebindings");
        auto r = request("POST", path, body);
        if (r.status == 409)
            r = request("PUT", path + "/" + sim::string_at(doc, "metadata.name"), body);
        if (r.status != 200 && r.status != 201)
            throw std::runtime_error("installing " + kind + " failed: " + r.body);
    }
    const auto r = request("POST",
                           "/api/v1/namespaces/" + shipped_namespace + "/serviceaccounts/" +
                               account + "/token",
                           R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",)"
                           R"("spec":{"expirationSeconds":86400}})");
    sim::json_doc answer;
    answer.Parse(r.body.c_str());
    const std::string token = answer.IsObject() ? sim::string_at(answer, "status.token") : "";
    if (r.status != 201 || token.empty())
        throw std::runtime_error("no token for " + account + ": " + r.body);
    return token;
}

sim_fixture::sim_fixture(sim::cluster_options options) : tls_(options.tls) {
    cluster_ = std::make_unique<sim::cluster>(io_, options);
    cluster_->start();
    url_ = cluster_->url();
    const auto colon = url_.rfind(':');
    port_ = static_cast<unsigned short>(std::stoi(url_.substr(colon + 1)));
    host_ = "127.0.0.1";
    thread_ = std::thread([this] { io_.run(); });
}

sim_fixture::~sim_fixture() {
    // Stop the cluster and let the io_context run out of work: every connection and watch must
    // end by itself. If something is still running after the deadline, that is a bug: fail loudly.
    asio::post(io_, [this] { cluster_->stop(); });
    auto finished = std::async(std::launch::async, [this] { thread_.join(); });
    if (finished.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        ADD_FAILURE() << "the simulated cluster did not shut down within 10 s";
        io_.stop();
        finished.wait();
    }
}

void sim_fixture::run_on_cluster(const std::function<void()>& f) {
    std::promise<void> done;
    asio::post(io_, [&] {
        f();
        done.set_value();
    });
    done.get_future().wait_for(std::chrono::seconds(10));
}

namespace {

template <class Stream>
http_result exchange(Stream& stream, const std::string& method, const std::string& target,
                     const std::string& body, const std::string& content_type,
                     const std::string& accept,
                     const std::vector<std::pair<std::string, std::string>>& headers) {
    http::request<http::string_body> req{http::string_to_verb(method), target, 11};
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::accept, accept);
    for (const auto& [name, value] : headers)
        req.set(name, value);
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
        req.set(http::field::content_type,
                content_type.empty() ? "application/json" : content_type);
        req.body() = body;
        req.prepare_payload();
    }
    beast::error_code ec;
    http::write(stream, req, ec); // a server may answer (413) before it has read everything
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    http_result out{static_cast<int>(res.result_int()), res.body(), {}};
    for (const auto& f : res) {
        std::string name(f.name_string());
        for (auto& c : name)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out.headers[name] = std::string(f.value());
    }
    return out;
}

} // namespace

http_result sim_fixture::request(const std::string& method, const std::string& target,
                                 const std::string& body, const std::string& content_type,
                                 const std::string& accept,
                                 const std::vector<std::pair<std::string, std::string>>& headers) {
    asio::io_context io;
    beast::tcp_stream tcp_stream(io);
    tcp_stream.connect(tcp::endpoint(asio::ip::make_address(host_), port_));
    timeval tv{10, 0}; // bound blocking reads (Beast's timers only apply to async operations)
    setsockopt(tcp_stream.socket().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (!tls_) return exchange(tcp_stream, method, target, body, content_type, accept, headers);
    asio::ssl::context ctx(asio::ssl::context::tls_client);
    ctx.add_certificate_authority(asio::buffer(cluster_->tls()->ca_cert_pem));
    ctx.set_verify_mode(asio::ssl::verify_peer);
    beast::ssl_stream<beast::tcp_stream&> tls(tcp_stream, ctx);
    tls.set_verify_callback(asio::ssl::host_name_verification("127.0.0.1"));
    tls.handshake(asio::ssl::stream_base::client);
    return exchange(tls, method, target, body, content_type, accept, headers);
}

std::vector<std::string> sim_fixture::watch(const std::string& target, std::size_t lines,
                                            std::chrono::milliseconds deadline) {
    asio::io_context io;
    beast::tcp_stream stream(io);
    stream.connect(tcp::endpoint(asio::ip::make_address(host_), port_));
    // Blocking reads ignore Beast's timers: bound each read with a socket timeout instead.
    timeval tv{static_cast<time_t>(deadline.count() / 1000),
               static_cast<suseconds_t>((deadline.count() % 1000) * 1000)};
    setsockopt(stream.socket().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    const auto end = std::chrono::steady_clock::now() + deadline;
    http::request<http::empty_body> req{http::verb::get, target, 11};
    req.set(http::field::host, "127.0.0.1");
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64u << 20);
    std::vector<std::string> out;
    beast::error_code ec;
    http::read_header(stream, buffer, parser, ec);
    std::string body;
    while (!ec && out.size() < lines && std::chrono::steady_clock::now() < end) {
        http::read_some(stream, buffer, parser, ec);
        body += parser.get().body();
        parser.get().body().clear();
        std::size_t nl;
        while ((nl = body.find('\n')) != std::string::npos) {
            out.push_back(body.substr(0, nl));
            body.erase(0, nl + 1);
        }
        if (parser.is_done()) break;
    }
    return out;
}

} // namespace hpaplus::test
