// tests/unit/support/free_port_test.cpp — the ports tests hand to servers that take a number.
#include "../../support/process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <set>

namespace {

std::pair<int, int> kernel_ephemeral_range() {
    int low = 0, high = 0;
    FILE* f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f == nullptr) return {0, 0};
    if (std::fscanf(f, "%d %d", &low, &high) != 2) low = high = 0;
    std::fclose(f);
    return {low, high};
}

} // namespace

// Outside the range the kernel gives connections and bind(0), so nothing takes it meanwhile.
TEST(FreePort, IsOutsideTheKernelsEphemeralRangeAndNeverTheSameTwice) {
    const auto [low, high] = kernel_ephemeral_range();
    ASSERT_GT(low, 0);
    std::set<int> seen;
    for (int i = 0; i < 50; ++i) {
        const int port = hpaplus::test::free_port();
        EXPECT_TRUE(port < low || port > high) << port << " in " << low << "-" << high;
        EXPECT_TRUE(seen.insert(port).second) << port << " handed out twice";
    }
}

// Each port handed out is locked (tmp/hpaplus-test-ports/PORT) while its process lives: a test
// process beside it, which finds the lock held, moves on to another port.
TEST(FreePort, IsHeldWhileItsProcessLivesAndFreedWhenItExits) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(fds[0]);
        const int port = hpaplus::test::free_port();
        if (::write(fds[1], &port, sizeof port) != sizeof port) ::_exit(2);
        ::close(fds[1]);
        ::pause(); // until the parent has looked, then killed
        ::_exit(0);
    }
    ::close(fds[1]);
    int port = 0;
    ASSERT_EQ(::read(fds[0], &port, sizeof port), static_cast<ssize_t>(sizeof port));
    ::close(fds[0]);
    const std::string file =
        (std::filesystem::temp_directory_path() / "hpaplus-test-ports" / std::to_string(port))
            .string();
    const int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0) << file;
    EXPECT_NE(::flock(fd, LOCK_EX | LOCK_NB), 0) << "port " << port << " is not held";
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0) << "port " << port << " still held after exit";
    ::close(fd);
}
