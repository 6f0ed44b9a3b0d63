// tests/support/process.cpp — fork/exec with a stdout pipe, deadlines on every wait.
#include "process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace hpaplus::test {

child_process::child_process(const std::vector<std::string>& argv) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO); // one stream, as a terminal shows it
        close(fds[0]);
        close(fds[1]);
        std::vector<char*> args;
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data()); // PATH is searched for bare names (prometheus, influxd)
        _exit(127);
    }
    close(fds[1]);
    out_fd_ = fds[0];
    fcntl(out_fd_, F_SETFL, O_NONBLOCK);
}

child_process::~child_process() {
    terminate(std::chrono::milliseconds(3000));
    if (out_fd_ >= 0) close(out_fd_);
}

std::string child_process::wait_for_line(const std::string& needle,
                                         std::chrono::milliseconds deadline) {
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < end) {
        std::size_t nl;
        while ((nl = buffered_.find('\n')) != std::string::npos) {
            std::string line = buffered_.substr(0, nl);
            buffered_.erase(0, nl + 1);
            if (line.find(needle) != std::string::npos) return line;
        }
        pollfd p{out_fd_, POLLIN, 0};
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            end - std::chrono::steady_clock::now());
        if (poll(&p, 1, static_cast<int>(std::max<long long>(1, left.count()))) <= 0) continue;
        std::array<char, 4096> buf{};
        const ssize_t n = read(out_fd_, buf.data(), buf.size());
        if (n <= 0) break;
        buffered_.append(buf.data(), static_cast<std::size_t>(n));
    }
    return {};
}

std::vector<std::string> child_process::read_lines(std::chrono::milliseconds wait) {
    std::vector<std::string> lines;
    const auto end = std::chrono::steady_clock::now() + wait;
    for (bool first = true;; first = false) {
        pollfd p{out_fd_, POLLIN, 0};
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            end - std::chrono::steady_clock::now());
        const int timeout = first ? static_cast<int>(std::max<long long>(0, left.count())) : 0;
        if (poll(&p, 1, timeout) <= 0) break;
        std::array<char, 4096> buf{};
        const ssize_t n = read(out_fd_, buf.data(), buf.size());
        if (n <= 0) break;
        buffered_.append(buf.data(), static_cast<std::size_t>(n));
    }
    for (std::size_t nl; (nl = buffered_.find('\n')) != std::string::npos;) {
        lines.push_back(buffered_.substr(0, nl));
        buffered_.erase(0, nl + 1);
    }
    return lines;
}

int child_process::terminate(std::chrono::milliseconds grace) {
    if (reaped_ || pid_ <= 0) return status_;
    kill(pid_, SIGTERM);
    const auto end = std::chrono::steady_clock::now() + grace;
    while (std::chrono::steady_clock::now() < end) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            reaped_ = true;
            status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            return status_;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    reaped_ = true;
    status_ = -1;
    return status_;
}

void child_process::kill_now() {
    if (reaped_ || pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    reaped_ = true;
    status_ = -1;
}

command_result run_command(const std::string& command, int timeout_seconds) {
    command_result r;
    const std::string full =
        "timeout -k 5 " + std::to_string(timeout_seconds) + " " + command + " 2>&1";
    FILE* pipe = popen(full.c_str(), "r");
    if (!pipe) return r;
    std::array<char, 4096> buf{};
    std::size_t n = 0;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0)
        r.output.append(buf.data(), n);
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

temp_dir::temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "hpaplus-test-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
}

temp_dir::~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::string kubectl_program() {
    const char* chosen = std::getenv("HPAPLUS_KUBECTL");
    return chosen && *chosen ? chosen : "kubectl";
}

command_result run_kubectl(const std::string& dir, const std::string& args, int timeout_seconds) {
    return run_command(kubectl_program() + " --kubeconfig " + dir + "/kubeconfig --cache-dir " +
                           dir + "/cache " + args,
                       timeout_seconds);
}

std::string url_in(const std::string& line) {
    const auto at = line.find("http");
    if (at == std::string::npos) return {};
    return line.substr(at, line.find_first_of(" \n", at) - at);
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit,
                std::chrono::milliseconds poll) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (condition()) return true;
        std::this_thread::sleep_for(poll);
    }
    return condition();
}

namespace {

// The kernel's ephemeral range ("32768 60999" by default): ports bind(0) and connect() take.
std::pair<int, int> ephemeral_ports() {
    int low = 32768, high = 60999;
    if (FILE* f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) {
        if (std::fscanf(f, "%d %d", &low, &high) != 2) low = 32768, high = 60999;
        std::fclose(f);
    }
    return {low, high};
}

bool bindable(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

// Locks `port`'s file (the kernel drops the lock with the process, crashed or not): while held,
// no other test process is handed the same port. The descriptor, or -1 when another holds it.
int reserve(int port) {
    static const std::string dir = [] {
        std::filesystem::path d = std::filesystem::temp_directory_path() / "hpaplus-test-ports";
        std::error_code ignored;
        std::filesystem::create_directories(d, ignored);
        std::filesystem::permissions(d, std::filesystem::perms::all, ignored);
        return d.string();
    }();
    const std::string file = dir + "/" + std::to_string(port);
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

} // namespace

int free_port() {
    // A port from the ephemeral range, found free and released, can be taken before the server
    // binds it by any connection's local end or any bind(0) — CI saw influxd lose its port so.
    // Ports below that range are never handed out by the kernel; the lock keeps test processes
    // running side by side from choosing the same one.
    const auto [ephemeral_low, ephemeral_high] = ephemeral_ports();
    int low = 10000, high = ephemeral_low - 1;
    if (high - low < 1000) low = ephemeral_high + 1, high = 65535;
    if (high - low >= 1000) {
        static std::mutex m;
        static int next = low + static_cast<int>(::getpid() * 7919L % (high - low + 1));
        const std::lock_guard lock(m);
        for (int tried = 0; tried <= high - low; ++tried) {
            const int port = next;
            next = next == high ? low : next + 1;
            const int held = reserve(port);
            if (held < 0) continue;
            if (bindable(port)) return port; // `held` stays open: the port is ours until exit
            ::close(held);
        }
    }
    // No room outside the ephemeral range: a port free a moment ago.
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

} // namespace hpaplus::test
