// net::http_server when the process runs out of file descriptors: the accept loop waits between
// tries instead of spinning on EMFILE, and the waiting client is served once descriptors are back.
#include "net/http_server.hpp"

#include "net/http_client.hpp"
#include "net/tls.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_future.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace hpaplus::net {
namespace {

using namespace std::chrono_literals;

int connect_loopback(unsigned short port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return -1;
    return fd;
}

// A plain coroutine, not a lambda, and no temporary in co_await: GCC 12 miscompiles both.
boost::asio::awaitable<void> answer_ok(http_request&, http_responder& out) {
    http_response ok{200, "text/plain", "ok", {}};
    co_await out.send(std::move(ok));
}

// A server answering "ok" to everything, on its own thread.
struct ok_server {
    boost::asio::io_context io;
    http_server server;
    std::thread loop;
    explicit ok_server(http_server_options options = {})
        : server(io.get_executor(), std::move(options), answer_ok) {
        server.start();
        loop = std::thread([this] { io.run(); });
    }
    ~ok_server() {
        server.stop(); // closes the acceptor and every connection: run() then runs out of work
        loop.join();
    }
};

// Sends `request` on `fd` and returns the start of the answer ("" when none within 5 s).
std::string ask(int fd, const std::string& request) {
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(request.size()))
        return "";
    timeval five_seconds{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &five_seconds, sizeof five_seconds);
    std::string answer(256, '\0');
    const auto n = ::recv(fd, answer.data(), answer.size(), 0);
    answer.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return answer;
}

TEST(HttpServer, ParsesRequestsAsAConnectionDoes) {
    const auto get =
        parse_request("GET /a%20b?x=1&y=%3D HTTP/1.1\r\nHost: h\r\nX-Y: z\r\n\r\n", 100);
    ASSERT_TRUE(get.request);
    EXPECT_EQ(get.request->path, "/a b");
    EXPECT_EQ(get.request->query_param("y"), "=");
    EXPECT_EQ(get.request->header("x-y"), "z");
    const auto chunked = parse_request(
        "PUT /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        100);
    ASSERT_TRUE(chunked.request);
    EXPECT_EQ(chunked.request->body, "abc");
    EXPECT_EQ(parse_request("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n", 100).status, 413);
    EXPECT_EQ(
        parse_request("GET / HTTP/1.1\r\nX: " + std::string(9000, 'a') + "\r\n\r\n", 100).status,
        431);
    EXPECT_EQ(parse_request("GET / HTTP/1.1\r\nHost", 100).status, 400);
    EXPECT_EQ(parse_request("\x01\x02 nonsense\r\n\r\n", 100).status, 400);
    EXPECT_EQ(parse_request("", 100).status, 400);
}

TEST(HttpServer, HeadersPastTheLimitAre431) {
    ok_server s;
    const int fd = connect_loopback(s.server.port());
    ASSERT_GE(fd, 0);
    const std::string answer =
        ask(fd, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(9000, 'a') + "\r\n\r\n");
    ::close(fd);
    EXPECT_EQ(answer.rfind("HTTP/1.1 431", 0), 0u) << answer;
}

// True when the server closed `fd` within `limit` (recv sees the end), reading what comes.
bool closed_within(int fd, std::chrono::seconds limit) {
    timeval tick{0, 100000};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof tick);
    for (const auto until = std::chrono::steady_clock::now() + limit;
         std::chrono::steady_clock::now() < until;) {
        char buffer[256];
        const auto n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) return true;
    }
    return false;
}

// The header must arrive within header_timeout of the connection's start: a client trickling a
// line every 200 ms (each byte would reset an idle timer) is closed all the same.
TEST(HttpServer, ATricklingHeaderIsCutAtTheHeaderDeadline) {
    http_server_options options;
    options.header_timeout = 1s;
    ok_server s(options);
    const int fd = connect_loopback(s.server.port());
    ASSERT_GE(fd, 0);
    ASSERT_GT(::send(fd, "GET / HTTP/1.1\r\n", 16, MSG_NOSIGNAL), 0);
    int lines = 0;
    bool closed = false;
    // 40 lines at 200 ms would take 8 s: the server gives up after 1 s.
    for (; lines < 40 && !closed; ++lines) {
        const std::string line = "X-" + std::to_string(lines) + ": y\r\n";
        if (::send(fd, line.data(), line.size(), MSG_NOSIGNAL) < 0) break;
        closed = closed_within(fd, 0s) || (std::this_thread::sleep_for(200ms), false);
    }
    EXPECT_TRUE(closed || closed_within(fd, 5s));
    EXPECT_LT(lines, 40);
    ::close(fd);
}

// Beyond max_connections a connection is accepted and closed at once; when one leaves, the next
// is served.
TEST(HttpServer, ConnectionsBeyondTheCapAreRefused) {
    http_server_options options;
    options.max_connections = 3;
    ok_server s(options);
    std::vector<int> held;
    for (int i = 0; i < 3; ++i) {
        held.push_back(connect_loopback(s.server.port()));
        ASSERT_GE(held.back(), 0);
        // Answered, and so registered as open before the next one comes.
        ASSERT_EQ(ask(held.back(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.1 200", 0),
                  0u);
    }
    const int refused = connect_loopback(s.server.port());
    ASSERT_GE(refused, 0);
    EXPECT_TRUE(closed_within(refused, 5s));
    ::close(refused);
    EXPECT_EQ(s.server.refused_connections(), 1u);
    ::close(held.back());
    held.pop_back();
    bool served = false;
    for (int attempt = 0; attempt < 50 && !served; ++attempt) { // the close reaches the server
        const int next = connect_loopback(s.server.port());
        served = ask(next, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                     .rfind("HTTP/1.1 200", 0) == 0;
        ::close(next);
        if (!served) std::this_thread::sleep_for(100ms);
    }
    EXPECT_TRUE(served);
    for (int fd : held)
        ::close(fd);
}

TEST(HttpServer, OutOfFileDescriptorsTheAcceptLoopWaitsInsteadOfSpinning) {
    ok_server s;
    http_server& server = s.server;
    // One exchange first, while descriptors are plenty: the server's thread is running, and
    // UBSan has checked (and cached) the virtual calls of its loop — its check of a new one
    // needs a pipe, which it cannot get once descriptors are gone.
    const int warm = connect_loopback(server.port());
    ASSERT_GE(warm, 0);
    const std::string first = ask(warm, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    ASSERT_EQ(first.rfind("HTTP/1.1 200", 0), 0u) << first;
    // ... and finished with it: the server closes its end only after its write completed, so
    // reading to the end means that session has no virtual call left to make.
    for (char rest[256]; ::recv(warm, rest, sizeof rest, 0) > 0;) {
    }
    ::close(warm);
    std::this_thread::sleep_for(200ms); // the session's last steps run after the close

    // Take every descriptor but one (under a low limit), and use that one for the client: the
    // connection waits in the backlog and each accept fails with EMFILE.
    rlimit saved{};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
    rlimit low = saved;
    low.rlim_cur = 512;
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
    std::vector<int> hogs;
    for (int fd; (fd = ::open("/dev/null", O_RDONLY)) >= 0;)
        hogs.push_back(fd);
    ASSERT_FALSE(hogs.empty());
    ::close(hogs.back());
    hogs.pop_back();
    const int client = connect_loopback(server.port());
    ASSERT_GE(client, 0);
    std::this_thread::sleep_for(1500ms);
    const auto failures = server.accept_failures();
    for (int fd : hogs)
        ::close(fd);
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);

    EXPECT_GE(failures, 1u);
    // 5 ms doubling to 1 s is at most 9 tries in 1.5 s; a loop spinning on EMFILE makes
    // hundreds of thousands.
    EXPECT_LE(failures, 20u);

    // Descriptors are back: the waiting client is accepted and answered.
    const std::string answer =
        ask(client, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    ::close(client);
    EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
}

// A GET over HTTPS trusting only `ca_pem`: the status, or the client's error.
boost::asio::awaitable<client_response> get_trusting(unsigned short port, std::string ca_pem) {
    client_request r;
    r.url = "https://127.0.0.1:" + std::to_string(port) + "/";
    r.method = "GET";
    r.ca_pem = std::move(ca_pem);
    r.timeout = 3s;
    const auto executor = co_await boost::asio::this_coro::executor;
    co_return co_await send_once(executor, std::move(r));
}

void write_file(const std::filesystem::path& path, const std::string& text) {
    const auto temporary = path.string() + ".new";
    std::ofstream(temporary) << text;
    std::filesystem::rename(temporary, path); // whole, as a Secret volume swaps it
}

// A certificate renewed on disk (cert-manager writing the Secret the pod mounts) serves new
// connections without a restart: a client that trusts only the new CA connects after the swap
// and one that trusts only the old CA no longer does; a broken pair is reported and the last good
// pair keeps serving.
TEST(HttpServerTls, ReloadsItsCertificateWhenTheFilesChange) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("hpaplus-tls-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto old_pair = make_self_signed({"127.0.0.1"});
    const auto new_pair = make_self_signed({"127.0.0.1"});
    write_file(dir / "tls.crt", old_pair.cert_pem);
    write_file(dir / "tls.key", old_pair.key_pem);

    boost::asio::io_context io;
    std::vector<std::string> reloads; // what on_tls_reload was told
    http_server_options o;
    o.tls_from_files = tls_files{(dir / "tls.crt").string(), (dir / "tls.key").string(), 50ms};
    o.on_tls_reload = [&](const std::string& error) { reloads.push_back(error); };
    http_server server(io.get_executor(), o, answer_ok);
    server.start();
    auto ask_trusting = [&](const std::string& ca) {
        auto f =
            boost::asio::co_spawn(io, get_trusting(server.port(), ca), boost::asio::use_future);
        while (f.wait_for(0s) != std::future_status::ready)
            io.run_for(10ms);
        return f.get();
    };
    auto run_until = [&](std::size_t count) {
        for (int i = 0; i < 300 && reloads.size() < count; ++i)
            io.run_for(10ms);
        return reloads.size() >= count;
    };
    EXPECT_EQ(ask_trusting(old_pair.ca_cert_pem).status, 200);
    EXPECT_NE(ask_trusting(new_pair.ca_cert_pem).error, "");

    write_file(dir / "tls.crt", new_pair.cert_pem);
    write_file(dir / "tls.key", new_pair.key_pem);
    ASSERT_TRUE(run_until(1));
    EXPECT_EQ(reloads[0], "");
    EXPECT_EQ(ask_trusting(new_pair.ca_cert_pem).status, 200);
    EXPECT_NE(ask_trusting(old_pair.ca_cert_pem).error, "");

    // A key that is not the certificate's: reported once, and the new pair still serves.
    write_file(dir / "tls.key", old_pair.key_pem);
    ASSERT_TRUE(run_until(2));
    EXPECT_NE(reloads[1].find("key values mismatch"), std::string::npos) << reloads[1];
    EXPECT_NE(reloads[1].find("tls.key"), std::string::npos) << reloads[1];
    EXPECT_EQ(reloads[1].find("PRIVATE KEY"), std::string::npos) << "no key material in errors";
    io.run_for(300ms);
    EXPECT_EQ(reloads.size(), 2u) << "a failure is reported once, not every interval";
    EXPECT_EQ(ask_trusting(new_pair.ca_cert_pem).status, 200);

    server.stop();
    io.run_for(50ms);
    std::filesystem::remove_all(dir);
}

} // namespace
} // namespace hpaplus::net
