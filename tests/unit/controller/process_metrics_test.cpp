// The process_* series' source: /proc/PID/stat and /proc/stat parsed as the kernel writes them,
// hostile command names included, and this process's own sample.
#include "controller/runtime/process_metrics.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

namespace hpaplus::controller {
namespace {

// A line as Linux 6.x writes it (52 fields), fields 14/15/22/23/24 = 1200, 300, 4242, 987654, 321.
std::string stat_line(const std::string& command) {
    return "4711 (" + command +
           ") S 1 4711 4711 0 -1 4194560 2000 0 0 0 1200 300 0 0 20 0 9 0 4242 987654 321 "
           "18446744073709551615 1 1 0 0 0 0 0 4096 17415 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
}

TEST(ProcStat, ReadsTheFieldsAfterTheCommand) {
    const auto s = parse_proc_stat(stat_line("hpaplus"));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->user_ticks, 1200u);
    EXPECT_EQ(s->system_ticks, 300u);
    EXPECT_EQ(s->start_ticks, 4242u);
    EXPECT_EQ(s->virtual_bytes, 987654u);
    EXPECT_EQ(s->resident_pages, 321);
}

// A process may name itself anything: spaces and parentheses in the command do not shift fields.
TEST(ProcStat, ACommandWithParenthesesAndSpacesShiftsNothing) {
    const auto s = parse_proc_stat(stat_line("a) S 9 9 (b c) 7"));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->user_ticks, 1200u);
    EXPECT_EQ(s->resident_pages, 321);
}

TEST(ProcStat, AnythingElseIsNoSample) {
    for (const std::string& text :
         {std::string(), std::string("4711 hpaplus S 1"), stat_line("x").substr(0, 60),
          std::string("1 (x) S 1 2 3 4 5 6 7 8 9 10 u s 0 0 0 0 0 0 1 2 3\n"),
          std::string("1 (x) S 1 2 3 4 5 6 7 8 9 10 -5 1 0 0 0 0 0 0 1 2 3\n")})
        EXPECT_FALSE(parse_proc_stat(text)) << text;
}

TEST(ProcStat, BootTimeFromItsLine) {
    EXPECT_EQ(parse_boot_time("cpu  1 2 3\nintr 5\nbtime 1764979200\nprocesses 9\n"), 1764979200u);
    EXPECT_EQ(parse_boot_time("cpu  1 2 3\n"), std::nullopt);
    EXPECT_EQ(parse_boot_time("btime soon\n"), std::nullopt);
}

TEST(ProcessSample, ThisProcessUsesMemoryAndFilesAndStartedRecently) {
    const process_sample p = read_process_sample();
    EXPECT_GT(p.resident_bytes, 0);
    EXPECT_GE(p.virtual_bytes, p.resident_bytes);
    EXPECT_GE(p.open_fds, 3); // stdin, stdout, stderr
    EXPECT_GT(p.max_fds, 0);
    EXPECT_GE(p.cpu_seconds, 0);
    const double now = static_cast<double>(::time(nullptr));
    EXPECT_LE(p.start_time_seconds, now + 1);
    EXPECT_GT(p.start_time_seconds, now - 24 * 3600.0); // a test binary started today
}

} // namespace
} // namespace hpaplus::controller
