// tests/support/corrupting_proxy.cpp — blocking sockets, two threads per connection.
#include "corrupting_proxy.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace hpaplus::test {
namespace {

sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

bool send_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

// The longest end of `text` that is a proper beginning of `find` (held back: the rest of `find`
// may come with the next read).
std::size_t partial_match(const std::string& text, const std::string& find) {
    for (std::size_t n = std::min(text.size(), find.size() - 1); n > 0; --n)
        if (text.compare(text.size() - n, n, find, 0, n) == 0) return n;
    return 0;
}

} // namespace

struct corrupting_proxy::impl {
    std::uint16_t upstream = 0;
    std::string find, replace;
    int listener = -1;
    std::uint16_t port = 0;
    std::atomic<bool> stopping{false};
    std::atomic<int> corrupted{0};
    int times = 1; ///< replacements to make at most; 0: every occurrence
    std::mutex mutex;
    std::vector<int> sockets;
    std::vector<std::thread> threads;
    std::thread acceptor;

    void pump(int from, int to, bool from_server) {
        std::string pending;
        char buffer[16384];
        for (;;) {
            const ssize_t n = ::recv(from, buffer, sizeof buffer, 0);
            if (n <= 0) break;
            pending.append(buffer, static_cast<std::size_t>(n));
            std::size_t hold = 0;
            if (from_server) {
                for (std::size_t at = pending.find(find); at != std::string::npos;
                     at = pending.find(find, at + find.size())) {
                    int made = corrupted.load();
                    if (times > 0 && made >= times) break;
                    if (corrupted.compare_exchange_strong(made, made + 1))
                        pending.replace(at, find.size(), replace);
                }
                if (times == 0 || corrupted.load() < times) hold = partial_match(pending, find);
            }
            if (!send_all(to, pending.data(), pending.size() - hold)) break;
            pending.erase(0, pending.size() - hold);
        }
        if (!pending.empty()) send_all(to, pending.data(), pending.size());
        ::shutdown(to, SHUT_WR);
        ::shutdown(from, SHUT_RD);
    }

    void accept_loop() {
        while (!stopping) {
            pollfd p{listener, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            const int client = ::accept(listener, nullptr, nullptr);
            if (client < 0) continue;
            const int server = ::socket(AF_INET, SOCK_STREAM, 0);
            const sockaddr_in to = loopback(upstream);
            if (server < 0 ||
                ::connect(server, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
                ::close(client);
                if (server >= 0) ::close(server);
                continue;
            }
            std::lock_guard lock(mutex);
            sockets.push_back(client);
            sockets.push_back(server);
            threads.emplace_back([this, client, server] { pump(client, server, false); });
            threads.emplace_back([this, client, server] { pump(server, client, true); });
        }
    }
};

corrupting_proxy::corrupting_proxy(std::uint16_t upstream_port, std::string find,
                                   std::string replace, int times)
    : impl_(std::make_shared<impl>()) {
    impl_->times = times;
    if (find.empty() || find.size() != replace.size())
        throw std::invalid_argument("corrupting_proxy: find and replace must have one length");
    impl_->upstream = upstream_port;
    impl_->find = std::move(find);
    impl_->replace = std::move(replace);
    impl_->listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in any = loopback(0);
    socklen_t size = sizeof any;
    if (impl_->listener < 0 ||
        ::bind(impl_->listener, reinterpret_cast<const sockaddr*>(&any), sizeof any) != 0 ||
        ::listen(impl_->listener, 64) != 0 ||
        ::getsockname(impl_->listener, reinterpret_cast<sockaddr*>(&any), &size) != 0)
        throw std::runtime_error("corrupting_proxy: cannot listen on 127.0.0.1");
    impl_->port = ntohs(any.sin_port);
    impl_->acceptor = std::thread([i = impl_.get()] { i->accept_loop(); });
}

corrupting_proxy::~corrupting_proxy() {
    impl_->stopping = true;
    impl_->acceptor.join();
    {
        std::lock_guard lock(impl_->mutex);
        for (const int fd : impl_->sockets)
            ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& t : impl_->threads)
        t.join();
    for (const int fd : impl_->sockets)
        ::close(fd);
    ::close(impl_->listener);
}

std::uint16_t corrupting_proxy::port() const {
    return impl_->port;
}

std::string corrupting_proxy::url() const {
    return "http://127.0.0.1:" + std::to_string(impl_->port);
}

int corrupting_proxy::corrupted() const {
    return impl_->corrupted.load();
}

} // namespace hpaplus::test
