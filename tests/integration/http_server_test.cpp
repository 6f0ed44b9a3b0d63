// net::http_server when the process runs out of file descriptors: the accept loop waits between
// tries instead of spinning on EMFILE, and the waiting client is served once descriptors are back.
#include "net/http_server.hpp"

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
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
    http_server server{io.get_executor(), http_server_options{}, answer_ok};
    std::thread loop;
    ok_server() {
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

} // namespace
} // namespace hpaplus::net
