// End-to-end: slow and hostile clients against a server of HPAPlus (the adapter, over TLS, as a
// client of the cluster's aggregation layer would reach it). Not run once per kubectl (no kubectl).
#include "../support/build_paths.hpp"
#include "../support/process.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

const std::string source = HPAPLUS_SOURCE_DIR;

// Resident memory of a process, in KiB (0 when it cannot be read).
long rss_kib(int pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return 0;
}

// An adapter on a backends file of its own, serving TLS on a free port.
struct adapter_process {
    test::temp_dir dir;
    std::unique_ptr<test::child_process> process;
    std::string url;
    unsigned short port = 0;
    adapter_process() {
        std::ofstream(dir.path() + "/backends.yaml")
            << ("backends:\n  - {name: m, type: monitor, url: 'http://127.0.0.1:9/q?q={{query}}',"
                " response: {value: /value}}\n");
        process = std::make_unique<test::child_process>(std::vector<std::string>{
            HPAPLUS_BINARY, "adapter", "--metric-backends=" + dir.path() + "/backends.yaml",
            "--listen=127.0.0.1:0"});
        url = test::url_in(process->wait_for_line("listening on", 20s));
        if (!url.empty())
            port = static_cast<unsigned short>(std::stoi(url.substr(url.rfind(':') + 1)));
    }
    test::command_result clients(const std::string& args) {
        return test::run_command(
            "python3 " + source + "/tests/e2e/fixtures/slow_tls_clients.py " + args, 120);
    }
};

// Issue 50: 300 TLS clients trickling one header line every 2 s were kept for the whole run
// (~80 KB each), and the memory stayed after they left (12.7 -> 61.9 MB after 600). Now the
// handshake and header must arrive within 10 s of the connection's start, idle TLS buffers are
// released, and freed memory goes back to the system. Figures are those of the production
// allocator: this test runs on the GCC build only (label `memory`, scripts/test.sh).
TEST(SlowClientsE2E, SixHundredTricklingTlsClientsAreCutAtTheHeaderDeadlineAndLeaveNoMemory) {
    adapter_process adapter;
    ASSERT_FALSE(adapter.url.empty()) << "the adapter did not start";
    const auto healthy = [&] {
        const auto r = test::run_command("curl -sk --max-time 2 '" + adapter.url + "/healthz'", 5);
        return r.exit_code == 0 && r.output.rfind("ok", 0) == 0;
    };
    ASSERT_TRUE(healthy());
    std::this_thread::sleep_for(1500ms); // the memory of the first answer settles
    const long before = rss_kib(adapter.process->pid());

    for (int round = 0; round < 2; ++round) { // 600, twice: nothing may pile up
        test::command_result slow;
        std::thread abuse([&] {
            slow = adapter.clients("slow 127.0.0.1 " + std::to_string(adapter.port) + " 600 2 30");
        });
        // Legitimate requests are answered meanwhile.
        int answered = 0, asked = 0;
        for (const auto until = std::chrono::steady_clock::now() + 12s;
             std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(500ms)) {
            ++asked;
            answered += healthy() ? 1 : 0;
        }
        abuse.join();
        EXPECT_EQ(answered, asked);
        // Every client was accepted, and closed by the adapter before its 30 s of trickling.
        EXPECT_NE(slow.output.find("\"refused\": 0, \"closed\": 600, \"open\": 0"),
                  std::string::npos)
            << slow.output;
    }
    std::this_thread::sleep_for(2500ms); // freed memory is returned a second after the closes
    const long after = rss_kib(adapter.process->pid());
    std::printf("adapter RSS: %ld KiB before, %ld KiB after 2 x 600 slow TLS clients\n", before,
                after);
    EXPECT_LT(after - before, 10 * 1024) << "KiB kept after the clients left";
    EXPECT_EQ(adapter.process->terminate(), 0);
}

// A 10 MB URL over TLS gets its 431 (the answer used to be lost in a reset connection).
TEST(SlowClientsE2E, ATenMegabyteUrlGetsA431) {
    adapter_process adapter;
    ASSERT_FALSE(adapter.url.empty()) << "the adapter did not start";
    const auto r =
        adapter.clients("huge-url 127.0.0.1 " + std::to_string(adapter.port) + " 10000000");
    EXPECT_EQ(r.output, "HTTP/1.1 431 Request Header Fields Too Large\n");
    EXPECT_EQ(adapter.process->terminate(), 0);
}

} // namespace
} // namespace hpaplus
